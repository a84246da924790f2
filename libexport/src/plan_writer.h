#pragma once

// Private to libexport: writing one method of a model as an ExecuTorch execution plan.
//
// `PlanWriter::write` runs the steps in order: time positions and lifetimes of the method's
// tensors; the greedy plan of memory id 1; lowering of its delegate regions (before the value
// table, so a constant only blobs read gets no data); the value table; the instructions (a
// kernel call per unmarked op, one delegate call per region) with their debug-map records; and
// the plan itself.

#include <cstdint>
#include <string>
#include <vector>

#include "data_tables.h"
#include "delegate_region.h"
#include "etkit/export/exporter.h"
#include "etkit/export/memory_plan.h"
#include "etkit/export/model.h"
#include "etkit/runtime/result.h"
#include "program_layout.h"

namespace etkit::exporter::detail {

// What the program-wide parts give every method's writer.
struct PlanContext {
  const Model* model = nullptr;
  DataTables* tables = nullptr;
  const std::vector<BufferPlacement>* arena = nullptr;  // one per model buffer
  uint64_t arena_bytes = 0;
  const std::vector<uint32_t>* buffer_init_index = nullptr;  // mutable data index per buffer
  const DelegateLowering* lowering = nullptr;
  std::vector<std::vector<uint8_t>>* blobs = nullptr;  // delegate blobs, one segment each
  uint32_t first_blob_segment = 0;
};

// Writes one method; a writer is used for one method only.
class PlanWriter {
 public:
  PlanWriter(flatbuffers::FlatBufferBuilder& fbb, const PlanContext& context)
      : fbb_(fbb), ctx_(context), model_(*context.model) {}

  // Writes `m`, fills `report` and appends one record per instruction to `records`. Errors:
  // those of `lower_region_at`.
  Result<flatbuffers::Offset<fb::ExecutionPlan>> write(const Method& m, MethodReport* report,
                                                       std::vector<InstructionRecord>* records);

 private:
  // When each op runs, and when each value is last read.
  struct Timeline {
    std::vector<int32_t> pos;       // per op: the ops of a region share its first position
    std::vector<int32_t> last_use;  // per value; method outputs: the number of ops
  };
  // The plan of memory id 1 (inputs and op results).
  struct Activations {
    MemoryPlan plan;
    std::vector<int64_t> offsets;  // per value; -1 for values not planned in memory id 1
  };
  // The method's lowered regions, and which constants the blobs carry.
  struct Regions {
    std::vector<LoweredRegion> lowered;
    std::vector<bool> read_outside_blobs;  // per value: by a kernel, a call or an output
    std::vector<bool> embedded;            // per value: carried by a blob
  };
  // The instructions of chain 0, with the operators and delegates they use.
  struct Instructions {
    std::vector<std::string> op_names;  // de-duplicated by name and overload, first-use order
    std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
    std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  };

  static Timeline timeline(const Method& m);
  static Activations plan_activations(const Method& m, const Timeline& t, MethodReport* report);
  Result<Regions> lower_regions(const Method& m, const std::vector<int32_t>& last_use);
  void write_values(const Method& m, const Activations& act, const Regions& regions);
  void write_kernel_call(const Op& op, Instructions* out, std::vector<InstructionRecord>* records);
  void write_delegate_call(const Method& m, const LoweredRegion& lr, Instructions* out,
                           std::vector<InstructionRecord>* records);
  flatbuffers::Offset<fb::ExecutionPlan> finish(const Method& m, uint64_t planned_bytes,
                                                Instructions& ins);

  int32_t add_value(fb::KernelTypes type, flatbuffers::Offset<void> val);
  int32_t add_int(int64_t v);
  int32_t add_arg(const Arg& a);

  flatbuffers::FlatBufferBuilder& fbb_;
  const PlanContext& ctx_;
  const Model& model_;
  std::vector<flatbuffers::Offset<fb::EValue>> values_;
};

}  // namespace etkit::exporter::detail
