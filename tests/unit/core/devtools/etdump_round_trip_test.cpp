// Dumps written by the tracer, read back with the reader etdump-inspect uses: every event and
// value is there, and logged intermediates are byte-equal to the same tensors of an untraced run.

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/host/trace_session.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/etdump.h"
#include "test_debug_backend.h"
#include "test_support.h"

namespace etkit {
namespace {

using inspect::Event;

struct Inputs {
  std::vector<InputValue> values;
  void set(Method& method, const std::string& spec) {
    values.resize(method.num_inputs());
    for (size_t i = 0; i < method.num_inputs(); ++i) {
      values[i] = std::move(make_input(*method.meta().input(i), *parse_input_spec(spec)).get());
      values[i].value = EValue::from_tensor(&values[i].tensor.tensor());
      REQUIRE(method.set_input(i, values[i].value).ok());
    }
  }
};

std::vector<uint8_t> tensor_bytes(const EValue& v) {
  const Tensor& t = v.to_tensor();
  const auto* p = static_cast<const uint8_t*>(t.data());
  return std::vector<uint8_t>(p, p + t.nbytes());
}

TEST_CASE("round trip: intermediates in the dump equal an untraced run, byte for byte") {
  Result<ProgramFile> file = ProgramFile::open(testing::test_data("mlp_probe.pte"));
  REQUIRE(file.ok());
  // Untraced: the probe program returns every intermediate as an output.
  std::vector<std::vector<uint8_t>> expected;
  {
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
    REQUIRE(m.ok());
    Inputs in;
    in.set(m->method(), "random:3");
    REQUIRE(m->method().execute().ok());
    for (size_t i = 0; i < 3; ++i) expected.push_back(tensor_bytes(m->method().output(i)));
  }
  // Traced, the dump written to disk and read back.
  const std::string dump_path = testing::test_data("round_trip.etdump");
  TraceOptions options;
  options.etdump_path = dump_path;
  options.debug_level = DebugLevel::IntermediateOutputs;
  options.clock = TraceClock::Fake;
  Result<TraceSession> session = TraceSession::create(options);
  REQUIRE(session.ok());
  {
    RunnerOptions runner;
    runner.tracer = &session->tracer();
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", runner);
    REQUIRE(m.ok());
    Inputs in;
    in.set(m->method(), "random:3");
    REQUIRE(m->method().execute().ok());
    REQUIRE(m->method().execute().ok());
    for (size_t i = 0; i < 3; ++i) CHECK(tensor_bytes(m->method().output(i)) == expected[i]);
  }
  Result<TraceSummary> summary = session->finish();
  REQUIRE(summary.ok());
  CHECK(summary->debug_path == testing::test_data("round_trip.debug.bin"));

  Result<inspect::ETDump> dump = inspect::read_etdump_file(dump_path);
  REQUIRE_MESSAGE(dump.ok(), std::string(dump.error().message()));
  Result<inspect::DebugBuffer> debug = inspect::DebugBuffer::open(summary->debug_path);
  REQUIRE(debug.ok());
  CHECK(dump->metadata.at("clock") == "fake");
  CHECK(dump->metadata.at("dropped_events") == "0");
  CHECK(dump->metadata.at("dropped_payloads") == "0");
  REQUIRE(dump->blocks.size() == 3);
  CHECK(dump->blocks[0].name == "forward:load");
  for (size_t b = 1; b < 3; ++b) {
    const inspect::RunBlock& run = dump->blocks[b];
    CHECK(run.name == "forward");
    std::map<std::string, int> profile_counts;
    std::vector<const inspect::DebugEvent*> intermediates;
    std::vector<const inspect::DebugEvent*> outputs;
    for (const Event& e : run.events) {
      if (e.kind == Event::Kind::Profile) ++profile_counts[e.profile.name];
      if (e.kind != Event::Kind::Debug) continue;
      (e.debug.value.is_output ? outputs : intermediates).push_back(&e.debug);
    }
    CHECK(profile_counts["OPERATOR_CALL"] == 3);
    CHECK(profile_counts["native_call_addmm.out"] == 2);
    CHECK(profile_counts["native_call_tanh.out"] == 1);
    CHECK(profile_counts["Method::execute"] == 1);
    REQUIRE(intermediates.size() == 3);
    REQUIRE(outputs.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      CAPTURE(i);
      CHECK(intermediates[i]->instruction_id == static_cast<int32_t>(i));
      CHECK(intermediates[i]->chain_index == 0);
      Result<std::span<const uint8_t>> bytes =
          debug->tensor_bytes(intermediates[i]->value.tensors.at(0));
      REQUIRE(bytes.ok());
      CHECK(std::vector<uint8_t>(bytes->begin(), bytes->end()) == expected[i]);
      Result<std::span<const uint8_t>> out = debug->tensor_bytes(outputs[i]->value.tensors.at(0));
      REQUIRE(out.ok());
      CHECK(std::vector<uint8_t>(out->begin(), out->end()) == expected[i]);
      CHECK(outputs[i]->chain_index == UINT64_MAX);
    }
  }
}

TEST_CASE("round trip: delegate events, identifiers, metadata and values come back") {
  Result<ProgramFile> file = ProgramFile::open(testing::test_data("test_delegate.pte"));
  REQUIRE(file.ok());
  testing::TestDebugBackend backend;
  BackendRegistry backends;
  REQUIRE(backends.add(&backend).ok());
  TraceOptions options;
  options.etdump_path = testing::test_data("round_trip_delegate.etdump");
  options.debug_level = DebugLevel::IntermediateOutputs;
  options.clock = TraceClock::Fake;
  options.drop_ranges = {{12, 13}};
  Result<TraceSession> session = TraceSession::create(options);
  REQUIRE(session.ok());
  {
    RunnerOptions runner;
    runner.backends = &backends;
    runner.tracer = &session->tracer();
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", runner);
    REQUIRE(m.ok());
    Inputs in;
    in.set(m->method(), "ones");
    REQUIRE(m->method().execute().ok());
  }
  Result<TraceSummary> summary = session->finish();
  REQUIRE(summary.ok());
  Result<inspect::ETDump> dump = inspect::read_etdump_file(options.etdump_path);
  REQUIRE(dump.ok());
  Result<inspect::DebugBuffer> debug = inspect::DebugBuffer::open(summary->debug_path);
  REQUIRE(debug.ok());
  const inspect::RunBlock& run = dump->blocks.at(1);
  const inspect::ProfileEvent* live = nullptr;
  const inspect::ProfileEvent* post = nullptr;
  std::map<std::string, const inspect::DebugEvent*> delegate_values;
  for (const Event& e : run.events) {
    if (e.kind == Event::Kind::Profile && e.profile.delegate_debug_id_str == "fused_add #0") live = &e.profile;
    if (e.kind == Event::Kind::Profile && e.profile.delegate_debug_id_int == 7) post = &e.profile;
    if (e.kind == Event::Kind::Debug) {
      const inspect::DebugEvent& d = e.debug;
      if (!d.delegate_debug_id_str.empty()) delegate_values[d.delegate_debug_id_str] = &d;
      if (d.delegate_debug_id_int != -1) delegate_values[std::to_string(d.delegate_debug_id_int)] = &d;
    }
  }
  REQUIRE(live != nullptr);
  REQUIRE(post != nullptr);
  CHECK(live->instruction_id == 1);
  CHECK(live->name.empty());
  CHECK(std::string(live->delegate_debug_metadata.begin(), live->delegate_debug_metadata.end()) == "live");
  CHECK(std::string(post->delegate_debug_metadata.begin(), post->delegate_debug_metadata.end()) == "post");
  CHECK(post->start_time < live->start_time);  // the after-the-fact event spans the live one
  CHECK(post->end_time > live->end_time);
  REQUIRE(delegate_values.count("fused_add #0") == 1);
  Result<std::span<const uint8_t>> sum =
      debug->tensor_bytes(delegate_values["fused_add #0"]->value.tensors.at(0));
  REQUIRE(sum.ok());
  float values[3];
  std::memcpy(values, sum->data(), 12);
  CHECK(values[0] == 2.f);  // ones + ones
  CHECK(delegate_values.at("7")->value.int_value == 42);
  CHECK(delegate_values.at("20")->value.bool_value);
  CHECK(delegate_values.count("12") == 0);  // dropped by the filter
  CHECK(delegate_values.at("3")->value.kind == inspect::LoggedValue::Kind::Tensor);
}

TEST_CASE("round trip: the reader reads ExecuTorch's tutorial dump") {
  Result<inspect::ETDump> dump =
      inspect::read_etdump_file(testing::fixture("etdump/et-tutorial-cnn.etdp"));
  REQUIRE(dump.ok());
  REQUIRE(dump->blocks.size() == 2);
  CHECK(dump->blocks[1].events.size() == 29);
}

}  // namespace
}  // namespace etkit
