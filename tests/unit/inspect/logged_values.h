#pragma once

// Small dumps of logged values for the libinspect tests: one execution block of method `forward`
// logging float32 tensors, with the debug buffer holding their payloads.

#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/data_sink.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect::test {

// A value logged at an instruction (by a delegate when `delegate_id` is set), float32 [n].
struct Spot {
  int32_t instruction = 0;
  std::string delegate_id;  // a canonical integer is logged as an int id
  std::vector<float> values;
};

struct Logged {
  Trace trace;
  DebugBuffer buffer;
};

// A dump with one execution block of method forward logging `spots` in order, their payloads
// one after the other in the debug buffer.
inline Logged logged(const std::vector<Spot>& spots) {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  std::vector<uint8_t> bytes;
  for (const Spot& s : spots) {
    Event e;
    e.kind = Event::Kind::Debug;
    e.debug.chain_index = 0;
    e.debug.instruction_id = s.instruction;
    if (std::optional<int64_t> n = parse_canonical_int(s.delegate_id)) {
      e.debug.delegate_debug_id_int = static_cast<int32_t>(*n);
    } else {
      e.debug.delegate_debug_id_str = s.delegate_id;
    }
    e.debug.value.kind = LoggedValue::Kind::Tensor;
    TensorMeta t;
    t.dtype = ScalarType::Float;
    t.sizes = {static_cast<int64_t>(s.values.size())};
    t.offset = static_cast<int64_t>(bytes.size());
    e.debug.value.tensors = {t};
    b.events.push_back(e);
    const size_t at = bytes.size();
    bytes.resize(at + s.values.size() * sizeof(float));
    if (!s.values.empty()) std::memcpy(bytes.data() + at, s.values.data(), s.values.size() * 4);
  }
  dump.blocks = {b};
  Result<Trace> trace = build_trace(dump, "v.etdump");
  REQUIRE(trace.ok());
  return {std::move(trace).get(), DebugBuffer::from_bytes(bytes)};
}

inline Logged logged(const std::vector<float>& values) { return logged({Spot{2, "", values}}); }

// The runtime's writer logging intermediate outputs, their payloads into `payload`: dumps as
// trace-run writes them, for the streamed readers (`TraceReader::over(writer.serialize())`).
struct ValueLogWriter {
  explicit ValueLogWriter(size_t payload_bytes) : payload(payload_bytes), writer(memory, clock) {
    Result<BufferDataSink> created = BufferDataSink::create(payload);
    REQUIRE(created.ok());
    sink.emplace(std::move(created).get());
    writer.set_data_sink(&*sink);
    writer.set_debug_level(DebugLevel::IntermediateOutputs);
  }
  ValueLogWriter(const ValueLogWriter&) = delete;
  ValueLogWriter& operator=(const ValueLogWriter&) = delete;

  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20);
  std::vector<uint8_t> payload;
  FakeClock clock;
  ETDumpWriter writer;
  std::optional<BufferDataSink> sink;
};

}  // namespace etkit::inspect::test
