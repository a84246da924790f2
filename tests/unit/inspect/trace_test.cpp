#include "etkit/inspect/trace.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "inspect_test_util.h"

namespace etkit::inspect {
namespace {

Event profile(std::string name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
  Event e;
  e.kind = Event::Kind::Profile;
  e.profile.name = std::move(name);
  e.profile.chain_index = chain;
  e.profile.instruction_id = instruction;
  e.profile.start_time = start;
  e.profile.end_time = end;
  return e;
}

// One execution of a two-instruction method as etkit's tracer writes it (nested events first).
RunBlock execution(const std::string& name, uint64_t t0) {
  RunBlock b;
  b.name = name;
  b.events.push_back(profile("native_call_add.out", 0, 0, t0 + 2, t0 + 3));
  b.events.push_back(profile("OPERATOR_CALL", 0, 0, t0 + 1, t0 + 4));
  Event alloc;
  alloc.kind = Event::Kind::Allocation;
  b.events.push_back(alloc);
  b.events.push_back(profile("OPERATOR_CALL", 0, 1, t0 + 5, t0 + 9));
  b.events.push_back(profile("Method::execute", -1, 0, t0, t0 + 10));
  return b;
}

Trace build_ok(const ETDump& dump) {
  Result<Trace> r = build_trace(dump, "x.etdump");
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  return std::move(r).get();
}

TEST_CASE("trace: blocks, methods, iterations and the load flag") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile("Program::load_method", -1, 0, 0, 5));
  dump.blocks = {load, execution("forward", 10), execution("forward", 30), execution("Execute", 50)};
  RunBlock et_load;
  et_load.name = "Default";
  dump.blocks.push_back(et_load);
  const Trace t = build_ok(dump);
  REQUIRE(t.blocks.size() == 5);
  CHECK(t.blocks[0].method == "forward");
  CHECK(t.blocks[0].load);
  CHECK(t.blocks[1].iteration == 0);
  CHECK(t.blocks[2].iteration == 1);
  CHECK_FALSE(t.blocks[2].load);
  CHECK(t.blocks[3].method == "Execute");
  CHECK(t.blocks[4].method == "Execute");
  CHECK(t.blocks[4].load);
  CHECK(t.blocks[1].num_events == 4);  // the allocation event is not a profile event
  CHECK_FALSE(t.ticks_recorded);
  CHECK(t.ticks_per_second == 1e9);
}

TEST_CASE("trace: nesting, self time and operators") {
  ETDump dump;
  dump.blocks = {execution("forward", 100)};
  dump.metadata["ticks_per_second"] = "1000000";  // ticks are microseconds
  const Trace t = build_ok(dump);
  REQUIRE(t.events.size() == 4);
  // Start order: Method::execute, OPERATOR_CALL 0, native_call, OPERATOR_CALL 1.
  CHECK(t.events[0].name == "Method::execute");
  CHECK(t.events[0].parent == -1);
  CHECK(t.events[0].duration_ns == 10000);
  CHECK(t.events[0].self_ns == 10000 - 3000 - 4000);
  CHECK(t.events[0].op.empty());
  CHECK(t.events[0].instruction == -1);
  CHECK(t.events[1].name == "OPERATOR_CALL");
  CHECK(t.events[1].parent == 0);
  CHECK(t.events[1].depth == 1);
  CHECK(t.events[1].op == "add.out");
  CHECK(t.events[1].self_ns == 2000);
  CHECK(t.events[1].start_ns == 1000);
  CHECK(t.events[2].name == "native_call_add.out");
  CHECK(t.events[2].parent == 1);
  CHECK(t.events[2].depth == 2);
  CHECK(t.events[2].index == 0);
  CHECK(t.events[3].op.empty());  // no native_call event for instruction 1
  CHECK(t.events[3].index == 3);
}

TEST_CASE("trace: joining a dump by move gives the same trace and frees its events") {
  ETDump dump;
  dump.blocks = {execution("forward", 100), execution("forward", 200)};
  const Trace copy = build_ok(dump);
  Result<Trace> moved = build_trace(std::move(dump), "x.etdump");
  REQUIRE(moved.ok());
  REQUIRE(moved->events.size() == copy.events.size());
  for (size_t i = 0; i < copy.events.size(); ++i) {
    CHECK(moved->events[i].name == copy.events[i].name);
    CHECK(moved->events[i].self_ns == copy.events[i].self_ns);
    CHECK(moved->events[i].parent == copy.events[i].parent);
  }
  CHECK(dump.blocks[1].events.empty());  // NOLINT(bugprone-use-after-move): documented state
}

TEST_CASE("trace: equal intervals nest the earlier-written event in the later one") {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  b.events.push_back(profile("inner", 0, 0, 10, 20));
  b.events.push_back(profile("outer", 0, 0, 10, 20));
  dump.blocks = {b};
  const Trace t = build_ok(dump);
  CHECK(t.events[0].name == "outer");
  CHECK(t.events[1].parent == 0);
  CHECK(t.events[0].self_ns == 0);
}

TEST_CASE("trace: delegate events, wrapped counters and bad times") {
  ETDump dump;
  RunBlock b;
  b.name = "Execute";
  Event d = profile("", 0, 3, 4294967000u, 100);  // a 32-bit counter that wrapped
  d.profile.delegate_debug_id_int = 7;
  b.events.push_back(d);
  dump.blocks = {b};
  Trace t = build_ok(dump);
  CHECK(t.events[0].name == "7");
  CHECK(t.events[0].delegate);
  CHECK(t.events[0].op == "delegate");
  CHECK(t.events[0].duration_ns == (4294967295.0 - 4294967000.0) + 100);

  dump.blocks[0].events[0].profile.start_time = uint64_t{1} << 40;
  Result<Trace> r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(r.error().message()) ==
        "x.etdump: run 0 event 0: end time 100 is before start time 1099511627776");

  dump.blocks[0].events[0].profile.start_time = 10;
  dump.metadata["ticks_per_second"] = "fast";
  r = build_trace(dump, "x.etdump");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) ==
        "x.etdump: metadata ticks_per_second 'fast' is not a positive integer");
}

TEST_CASE("trace: profiler device events are flagged and stay out of the host's nesting") {
  ETDump dump;
  RunBlock b = execution("forward", 100);
  Event dev = profile("", 0, 0, 101, 104);  // within OPERATOR_CALL 0's interval
  dev.profile.delegate_debug_id_str = "prof:sim:OPERATOR_CALL";
  b.events.push_back(dev);
  Event odd = profile("", 0, 1, 106, 107);  // no second colon: the device is the rest
  odd.profile.delegate_debug_id_str = "prof:npu";
  b.events.push_back(odd);
  Event other = profile("", 0, 1, 106, 108);  // a delegate's own event, not a profiler's
  other.profile.delegate_debug_id_str = "profile:step";
  b.events.push_back(other);
  dump.blocks = {b};
  const Trace t = build_ok(dump);
  const TraceEvent* sim = nullptr;
  const TraceEvent* npu = nullptr;
  const TraceEvent* own = nullptr;
  for (const TraceEvent& e : t.events) {
    if (e.name == "prof:sim:OPERATOR_CALL") sim = &e;
    if (e.name == "prof:npu") npu = &e;
    if (e.name == "profile:step") own = &e;
    if (!e.device) CHECK(event_device(e).empty());
  }
  REQUIRE(sim != nullptr);
  REQUIRE(npu != nullptr);
  REQUIRE(own != nullptr);
  CHECK(sim->device);
  CHECK(event_device(*sim) == "sim");
  CHECK(event_device(*npu) == "npu");
  CHECK(sim->parent == -1);
  CHECK(sim->depth == 0);
  CHECK(sim->self_ns == sim->duration_ns);
  CHECK(sim->op == "delegate");  // the operator stays as for every delegate event
  CHECK_FALSE(own->device);
  CHECK(own->parent >= 0);  // a delegate's own event nests in its instruction
  // The host events keep their self time: the device event does not shorten OPERATOR_CALL 0.
  for (const TraceEvent& e : t.events) {
    if (e.name == "OPERATOR_CALL" && e.instruction == 0) CHECK(e.self_ns == 2);
  }
}

TEST_CASE("trace: selection by method, block and name") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile("Method::init", -1, 0, 0, 5));
  dump.blocks = {load, execution("forward", 10), execution("other", 30)};
  const Trace t = build_ok(dump);
  EventSelection s;
  CHECK(select_events(t, s)->size() == 9);
  s.include_load = false;
  CHECK(select_events(t, s)->size() == 8);
  s.method = "other";
  CHECK(select_events(t, s)->size() == 4);
  s.method.clear();
  s.block = 1;
  CHECK(*select_events(t, s) == std::vector<size_t>{1, 2, 3, 4});
  s.block = -1;
  s.name_regex = "OPERATOR_.*";
  CHECK(select_events(t, s)->size() == 4);
  s.name_regex = "OPERATOR";  // full match only
  CHECK(select_events(t, s)->empty());
  s.name_regex = "(";
  Result<std::vector<size_t>> r = select_events(t, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(r.error().message()).rfind("bad --name regex '(': ", 0) == 0);
}

TEST_CASE("trace: load_trace reads the tutorial dump and rejects damaged copies cleanly") {
  const std::string path = test::fixture_path("real/etdump/et-tutorial-cnn.etdp");
  Result<Trace> r = load_trace(path);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  CHECK(r->blocks.size() == 2);
  CHECK(r->blocks[1].name == "Execute");
  size_t convolutions = 0;
  for (const TraceEvent& e : r->events) convolutions += e.op == "convolution.out" ? 1 : 0;
  CHECK(convolutions == 4);  // OPERATOR_CALL and native_call of two instructions

  const std::vector<uint8_t> bytes = test::read_fixture("real/etdump/et-tutorial-cnn.etdp");
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  auto write = [&](const std::string& name, const std::vector<uint8_t>& data) {
    const std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    return p;
  };
  const std::string truncated =
      write("etkit_trace_test_truncated.etdp",
            std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2)));
  r = load_trace(truncated);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(r.error().message()).rfind(truncated + ": ", 0) == 0);
  // Flip bits all over the file: every copy is read or refused, never crashes.
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::vector<uint8_t> flipped = bytes;
    flipped[i] ^= 0x5a;
    const std::string p = write("etkit_trace_test_flipped.etdp", flipped);
    Result<Trace> f = load_trace(p);
    if (!f.ok()) CHECK(std::string(f.error().message()).rfind(p + ": ", 0) == 0);
  }
  std::filesystem::remove(truncated);
  std::filesystem::remove(dir / "etkit_trace_test_flipped.etdp");
  r = load_trace((dir / "etkit_no_such.etdp").string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::AccessFailed);
}

// TraceReader joins straight from the flatbuffer; read_etdump + build_trace go through the owning
// model. Both must give the same trace, or the same error, on every dump and damaged copy.
void check_same(const Trace& a, const Trace& b) {
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    CHECK(a.blocks[i].name == b.blocks[i].name);
    CHECK(a.blocks[i].method == b.blocks[i].method);
    CHECK(a.blocks[i].load == b.blocks[i].load);
    CHECK(a.blocks[i].iteration == b.blocks[i].iteration);
    CHECK(a.blocks[i].first_event == b.blocks[i].first_event);
    CHECK(a.blocks[i].num_events == b.blocks[i].num_events);
  }
  CHECK(a.ticks_per_second == b.ticks_per_second);
  CHECK(a.ticks_recorded == b.ticks_recorded);
  REQUIRE(a.events.size() == b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    const TraceEvent& x = a.events[i];
    const TraceEvent& y = b.events[i];
    CHECK(x.name == y.name);
    CHECK(x.op == y.op);
    CHECK(x.delegate_id == y.delegate_id);
    CHECK(x.start_ns == y.start_ns);
    CHECK(x.duration_ns == y.duration_ns);
    CHECK(x.self_ns == y.self_ns);
    CHECK(x.block == y.block);
    CHECK(x.index == y.index);
    CHECK(x.chain == y.chain);
    CHECK(x.instruction == y.instruction);
    CHECK(x.parent == y.parent);
    CHECK(x.depth == y.depth);
    CHECK(x.delegate == y.delegate);
  }
  REQUIRE(a.values.size() == b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const TraceValue& x = a.values[i];
    const TraceValue& y = b.values[i];
    CHECK(x.block == y.block);
    CHECK(x.index == y.index);
    CHECK(x.list_index == y.list_index);
    CHECK(x.instruction == y.instruction);
    CHECK(x.op == y.op);
    CHECK(x.delegate_id == y.delegate_id);
    CHECK(x.name == y.name);
    CHECK(x.is_output == y.is_output);
    CHECK(x.kind == y.kind);
    CHECK(x.scalar == y.scalar);
    CHECK(x.tensor.dtype == y.tensor.dtype);
    CHECK(x.tensor.sizes == y.tensor.sizes);
    CHECK(x.tensor.strides == y.tensor.strides);
    CHECK(x.tensor.offset == y.tensor.offset);
  }
}

// Joins `bytes` both ways; returns whether they read.
bool compare_paths(std::span<const uint8_t> bytes) {
  Result<Trace> model = Error(ErrorCode::Internal, "unset");
  Result<ETDump> dump = read_etdump(bytes);
  model = dump.ok() ? build_trace(std::move(*dump), "d.etdump")
                    : Result<Trace>(dump.error().with_context("d.etdump"));
  Result<TraceReader> reader = TraceReader::over(bytes, "d.etdump");
  REQUIRE(model.ok() == reader.ok());
  if (!model.ok()) {
    CHECK(std::string(model.error().message()) == reader.error().message());
    CHECK(model.error().code() == reader.error().code());
    return false;
  }
  const Trace direct = reader->join_all();
  check_same(*model, direct);
  // Joined block by block into a trace cleared between blocks, as `stats` does.
  Trace one = reader->skeleton();
  for (size_t b = 0; b < one.blocks.size(); ++b) {
    one.events.clear();
    one.values.clear();
    reader->join_block(b, one);
    CHECK(one.blocks[b].first_event == 0);
    CHECK(one.blocks[b].num_events == direct.blocks[b].num_events);
    for (size_t i = 0; i < one.events.size(); ++i) {
      const TraceEvent& x = one.events[i];
      const TraceEvent& y = direct.events[direct.blocks[b].first_event + i];
      CHECK(x.name == y.name);
      CHECK(x.self_ns == y.self_ns);
      CHECK(x.parent == (y.parent < 0 ? -1
                                      : y.parent - static_cast<int32_t>(
                                                       direct.blocks[b].first_event)));
    }
  }
  return true;
}

TEST_CASE("trace: TraceReader joins as read_etdump + build_trace do, errors included") {
  const char* const fixtures[] = {
      "real/etdump/et-tutorial-cnn.etdp",
      "real/generated/et-add.intermediate.etdump",
      "real/generated/et-bundled-add-mul.bundled_x3.intermediate.etdump",
      "real/generated/bench_profile_1k.etdump",
      "real/generated/bench_log_tensor_1k.etdump",
      "real/generated/np-const-methods.intermediate.etdump",
      "real/generated/rs-datamap-external.x3.intermediate.etdump",
  };
  uint64_t state = 0x2545f4914f6cdd1dull;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  size_t cases = 0;
  size_t read = 0;
  for (const char* name : fixtures) {
    const std::vector<uint8_t> bytes = test::read_fixture(name);
    CHECK(compare_paths(bytes));
    // Both framings, truncation at every 1/16, and flipped bytes.
    compare_paths(std::span<const uint8_t>(bytes).subspan(4));
    for (size_t k = 1; k < 16; ++k) {
      ++cases;
      read += compare_paths(std::span<const uint8_t>(bytes).first(bytes.size() * k / 16)) ? 1 : 0;
    }
    for (int i = 0; i < 150; ++i) {
      std::vector<uint8_t> flipped = bytes;
      const uint32_t flips = 1 + next() % 3;
      for (uint32_t f = 0; f < flips; ++f) {
        flipped[12 + next() % (flipped.size() - 12)] = static_cast<uint8_t>(next() >> 8);
      }
      ++cases;
      read += compare_paths(flipped) ? 1 : 0;
    }
  }
  MESSAGE("damaged copies: " << cases << ", of which read: " << read);
  // A misaligned copy is read as well (copied to aligned storage).
  const std::vector<uint8_t> bytes = test::read_fixture("real/etdump/et-tutorial-cnn.etdp");
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  CHECK(compare_paths(std::span<const uint8_t>(shifted).subspan(1)));
}

TEST_CASE("trace: TraceReader reads a file and stdin bytes, and names the path in errors") {
  const std::string path = test::fixture_path("real/etdump/et-tutorial-cnn.etdp");
  Result<TraceReader> file = TraceReader::open(path);
  REQUIRE(file.ok());
  Result<TraceReader> memory =
      TraceReader::from_bytes(test::read_fixture("real/etdump/et-tutorial-cnn.etdp"), "-");
  REQUIRE(memory.ok());
  const Trace a = file->join_all();
  const Trace b = memory->join_all();
  check_same(a, b);
  CHECK(a.path == path);
  CHECK(b.path == "-");
  Result<TraceReader> bad = TraceReader::from_bytes({1, 2, 3}, "-");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.error().message()).rfind("-: file is 3 bytes", 0) == 0);
  // Names are interned: one stored copy per distinct string.
  size_t distinct = 0;
  for (const TraceEvent& e : a.events) {
    for (const TraceEvent& f : a.events) {
      if (e.name == f.name) CHECK(e.name.data() == f.name.data());
    }
  }
  distinct = a.strings->size();
  CHECK(distinct < a.events.size());
}

TEST_CASE("trace: operators named from the program (MethodMeta::instruction_name)") {
  Result<ProgramFile> file = ProgramFile::open(test::fixture_path("real/pte/et-add.pte"));
  REQUIRE_MESSAGE(file.ok(), std::string(file.error().message()));
  Result<MethodMeta> meta = file->program().method_meta("forward");
  REQUIRE(meta.ok());
  REQUIRE(meta->num_instructions() == 1);
  CHECK(meta->instruction_name(0) == "aten::add.out");
  CHECK(meta->instruction_name(1).empty());

  Result<Trace> t = load_trace(test::fixture_path("real/generated/et-add.intermediate.etdump"));
  REQUIRE(t.ok());
  REQUIRE(name_operators(*t, file->program()).ok());  // ExecuTorch's "Execute" is forward
  bool named = false;
  for (const TraceEvent& e : t->events) named = named || e.op == "aten::add.out";
  CHECK(named);
  CHECK(t->values[0].op == "aten::add.out");

  ETDump dump;
  RunBlock b;
  b.name = "forward";
  b.events.push_back(profile("OPERATOR_CALL", 0, 5, 0, 1));
  dump.blocks = {b};
  Trace wrong = build_ok(dump);
  Error e = name_operators(wrong, file->program());
  CHECK(e.code() == ErrorCode::InvalidData);
  dump.blocks[0].name = "encode";
  wrong = build_ok(dump);
  e = name_operators(wrong, file->program());
  CHECK(e.code() == ErrorCode::NotFound);
  CHECK(std::string(e.message()) ==
        "x.etdump: method 'encode' is not in the program (methods: 'forward')");
}

TEST_CASE("trace: time units") {
  CHECK(*parse_time_unit("us") == TimeUnit::Us);
  CHECK_FALSE(parse_time_unit("min").ok());
  CHECK(from_ns(1500, TimeUnit::Us) == 1.5);
  CHECK(from_ns(2e9, TimeUnit::S) == 2);
  CHECK(std::string(time_unit_name(TimeUnit::Ms)) == "ms");
}

}  // namespace
}  // namespace etkit::inspect
