#pragma once

// The program the interpreter and profiler benchmarks run: forward(x: float32[1]) -> float32[1]
// made of kAddChainInstructions tiny adds (t0 = x + x; t1 = t0 + x; t0 = t1 + x; ...), so that
// its output is kAddChainInstructions + 1 for x = 1. It is built in memory with the FlatBuffers
// builder from formats/program.fbs and loaded from 16-byte-aligned memory, as programs need.

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/program.h"
#include "etkit/formats/program_generated.h"

namespace etkit::bench {

constexpr int kAddChainInstructions = 10000;

/// The serialized add-chain program.
inline std::vector<uint8_t> build_add_chain() {
  namespace fb = executorch_flatbuffer;
  flatbuffers::FlatBufferBuilder b;
  auto tensor = [&](uint32_t offset) {
    const int32_t sizes[] = {1};
    const uint8_t order[] = {0};
    auto t = fb::CreateTensor(b, fb::ScalarType::FLOAT, 0, b.CreateVector(sizes, 1),
                              b.CreateVector(order, 1), false, 0,
                              fb::CreateAllocationDetails(b, 1, offset, 0));
    return fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union());
  };
  std::vector<flatbuffers::Offset<fb::EValue>> values = {
      tensor(0), fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, 1).Union()),
      tensor(16), tensor(32)};
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  for (int i = 0; i < kAddChainInstructions; ++i) {
    const int32_t self = i == 0 ? 0 : (i % 2 == 1 ? 2 : 3);
    const int32_t out = i % 2 == 0 ? 2 : 3;
    const int32_t args[] = {self, 0, 1, out, out};
    auto call = fb::CreateKernelCall(b, 0, b.CreateVector(args, 5));
    instructions.push_back(
        fb::CreateInstruction(b, fb::InstructionArguments::KernelCall, call.Union()));
  }
  const int32_t inputs[] = {0};
  const int32_t outputs[] = {kAddChainInstructions % 2 == 0 ? 3 : 2};
  const int64_t buffer_sizes[] = {0, 48};
  std::vector<flatbuffers::Offset<fb::Chain>> chains = {
      fb::CreateChain(b, 0, 0, b.CreateVector(instructions))};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperator(b, b.CreateString("aten::add"), b.CreateString("out"))};
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> no_delegates;
  auto plan = fb::CreateExecutionPlan(
      b, b.CreateString("forward"), 0, b.CreateVector(values), b.CreateVector(inputs, 1),
      b.CreateVector(outputs, 1), b.CreateVector(chains), b.CreateVector(ops),
      b.CreateVector(no_delegates), b.CreateVector(buffer_sizes, 2));
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {plan};
  b.Finish(fb::CreateProgram(b, 0, b.CreateVector(plans)), fb::ProgramIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

/// The add-chain program loaded from its own aligned copy (check `program.ok()` before use).
/// It holds the bytes its program points into, so it stays where it was made.
struct AddChainProgram {
  struct alignas(16) Block {
    uint8_t b[16];
  };

  AddChainProgram() : AddChainProgram(build_add_chain()) {}
  AddChainProgram(const AddChainProgram&) = delete;
  AddChainProgram& operator=(const AddChainProgram&) = delete;

  std::vector<Block> storage;
  BufferDataLoader loader;
  Result<Program> program;

 private:
  explicit AddChainProgram(const std::vector<uint8_t>& bytes)
      : storage(aligned_copy(bytes)),
        loader({reinterpret_cast<const uint8_t*>(storage.data()), bytes.size()}),
        program(Program::load(loader)) {}
  static std::vector<Block> aligned_copy(const std::vector<uint8_t>& bytes) {
    std::vector<Block> blocks((bytes.size() + 15) / 16);
    std::memcpy(blocks.data(), bytes.data(), bytes.size());
    return blocks;
  }
};

}  // namespace etkit::bench
