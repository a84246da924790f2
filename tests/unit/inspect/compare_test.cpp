#include "etkit/inspect/compare.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/data_sink.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/host/host_tensor.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/verdict.h"
#include "logged_values.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

using test::logged;
using test::Logged;
using test::Spot;


// fc1 (handle 1) -> hidden (2) -> y (3): three kernels in the portable map; one DelegateCall
// at instruction 0 in the delegated one, identifier 1 standing for {1, 2} and 3 for {3}.
DebugMap portable_map() {
  DebugMap map;
  MethodDebugMap& m = map.methods["forward"];
  for (int32_t i = 0; i < 3; ++i) {
    m.instructions.push_back({0, i, InstructionKind::Kernel, "aten::x.out",
                              {static_cast<uint32_t>(i + 1)}, {}});
  }
  m.nodes = {{1, {"fc1", "", "", ""}}, {2, {"hidden", "", "", ""}}, {3, {"y", "", "", ""}}};
  return map;
}

DebugMap delegated_map() {
  DebugMap map;
  MethodDebugMap& m = map.methods["forward"];
  m.instructions.push_back({0, 0, InstructionKind::Delegate, "EtkitFusedBackend", {1, 2, 3}, {}});
  DelegateEntry d;
  d.backend = "EtkitFusedBackend";
  d.identifiers[int64_t{1}] = {1, 2};
  d.identifiers[int64_t{3}] = {3};
  m.delegates.push_back(d);
  m.nodes = portable_map().methods["forward"].nodes;
  return map;
}

const std::string& text(const std::vector<Cell>& row, size_t column) {
  return std::get<std::string>(row[column]);
}

TEST_CASE("compare: metrics, tolerance and the first value past it") {
  const Logged a = logged({1, 2, 3});
  const Logged same = logged({1, 2, 3});
  CompareResult r = compare_values({&a.trace, &a.buffer}, {&same.trace, &same.buffer}, {});
  CHECK(r.matched == 1);
  CHECK_FALSE(r.failed());
  CHECK(std::isinf(std::get<double>(r.table.rows[0][14])));  // snr_db
  CHECK(std::get<double>(r.table.rows[0][15]) == doctest::Approx(1));

  const Logged b = logged({1, 2, 5});
  r = compare_values({&a.trace, &a.buffer}, {&b.trace, &b.buffer}, {});
  CHECK(r.failed());
  CHECK(r.past_tolerance == 1);
  CHECK(r.max_abs_error == 2);
  const std::vector<Cell>& row = r.table.rows[0];
  CHECK(std::get<double>(row[12]) == doctest::Approx(4.0 / 3));  // mse
  CHECK(std::get<double>(row[13]) == 2);                        // max abs error
  CHECK(std::get<double>(row[14]) == doctest::Approx(10 * std::log10(14.0 / 4)));
  CHECK(std::get<double>(row[15]) == doctest::Approx(20 / std::sqrt(14.0 * 30)));
  CHECK(text(row, 16) == "past_tolerance");
  CHECK(text(row, 17) == "*");
  Tolerance loose;
  loose.atol = 2;
  CHECK_FALSE(compare_values({&a.trace, &a.buffer}, {&b.trace, &b.buffer}, loose).failed());

  const Logged shorter = logged({1, 2});
  r = compare_values({&a.trace, &a.buffer}, {&shorter.trace, &shorter.buffer}, {});
  CHECK(r.unreadable == 1);
  CHECK(r.failed());
}

TEST_CASE("compare: by debug handle, a fused step meets the last operation it stands for") {
  // Portable: fc1, hidden, y at instructions 0..2. Delegated: the call logs its argument
  // (no delegate id), then step 1 (hidden's output) and step 3 (y's).
  const Logged portable = logged({{0, "", {1, 2}}, {1, "", {0.5f, 0.25f}}, {2, "", {7}}});
  const Logged fused = logged({{0, "", {9, 9}}, {0, "1", {0.5f, 0.25f}}, {0, "3", {7.5f}}});
  const DebugMap map_a = portable_map();
  const DebugMap map_b = delegated_map();

  // By place nothing lines up but the delegate call's argument with fc1 (both instruction 0).
  CompareResult r =
      compare_values({&portable.trace, &portable.buffer}, {&fused.trace, &fused.buffer}, {});
  CHECK(r.matched == 1);
  CHECK(r.unmatched == 4);

  r = compare_values({&portable.trace, &portable.buffer, &map_a},
                     {&fused.trace, &fused.buffer, &map_b}, {});
  const Table& t = r.table;
  REQUIRE(t.columns.size() == 23);
  CHECK(t.columns[3].name == "debug_handle");
  CHECK(t.columns[4].name == "node");
  CHECK(t.columns[8].name == "instruction_b");
  CHECK(r.matched == 2);
  CHECK(r.past_tolerance == 1);
  CHECK(r.unmatched == 2);  // fc1 only in A, the call's argument only in B
  CHECK(r.max_abs_error == 0.5);
  REQUIRE(t.rows.size() == 4);
  // fc1: handle 1, no fused step logs it.
  CHECK(std::get<int64_t>(t.rows[0][3]) == 1);
  CHECK(text(t.rows[0], 4) == "fc1");
  CHECK(text(t.rows[0], 21) == "only_a");
  // hidden (instruction 1) against step 1 of the call at instruction 0.
  CHECK(std::get<int64_t>(t.rows[1][3]) == 2);
  CHECK(text(t.rows[1], 4) == "hidden");
  CHECK(std::get<int64_t>(t.rows[1][5]) == 1);
  CHECK(std::get<int64_t>(t.rows[1][8]) == 0);
  CHECK(text(t.rows[1], 10) == "1");
  CHECK(std::get<double>(t.rows[1][18]) == 0);  // max abs error
  CHECK(text(t.rows[1], 21) == "ok");
  // y against step 3: 0.5 apart, the first past tolerance.
  CHECK(std::get<int64_t>(t.rows[2][3]) == 3);
  CHECK(std::get<double>(t.rows[2][18]) == 0.5);
  CHECK(text(t.rows[2], 21) == "past_tolerance");
  CHECK(text(t.rows[2], 22) == "*");
  // The call's argument has no handle to match by: only in B, by place.
  CHECK(std::holds_alternative<std::monostate>(t.rows[3][3]));
  CHECK(std::get<int64_t>(t.rows[3][8]) == 0);
  CHECK(text(t.rows[3], 21) == "only_b");

  // A map on one side only matches by place.
  CHECK(compare_values({&portable.trace, &portable.buffer, &map_a},
                       {&fused.trace, &fused.buffer}, {})
            .table.columns.size() == 18);
}

TEST_CASE("compare: by debug handle, repeated handles pair in order and string ids resolve") {
  DebugMap map_b = delegated_map();
  DelegateEntry& d = map_b.methods["forward"].delegates[0];
  d.identifier_kind = IdentifierKind::String;
  d.identifiers.clear();
  d.identifiers[std::string("fc1+hidden")] = {1, 2};
  d.identifiers[std::string("y")] = {3};
  const DebugMap map_a = portable_map();
  // Two iterations' worth of y in one block (a loop): the n-th meets the n-th.
  const Logged portable = logged({{2, "", {1}}, {2, "", {2}}});
  const Logged fused = logged({{0, "y", {1}}, {0, "y", {2}}, {0, "fc1+hidden", {3}}});
  const CompareResult r = compare_values({&portable.trace, &portable.buffer, &map_a},
                                         {&fused.trace, &fused.buffer, &map_b}, {});
  CHECK(r.matched == 2);
  CHECK(r.past_tolerance == 0);
  CHECK(r.unmatched == 1);
  CHECK(std::get<int64_t>(r.table.rows[1][13]) == 1);  // occurrence
  CHECK(text(r.table.rows[2], 4) == "hidden");
}

TEST_CASE("values: handles of logged values through a debug map") {
  const Logged fused = logged({{0, "", {9}}, {0, "1", {1}}, {0, "7", {1}}});
  const DebugMap map = delegated_map();
  CHECK(handles_text(value_debug_handles(fused.trace, fused.trace.values[0], map)) == "1,2,3");
  CHECK(handles_text(value_debug_handles(fused.trace, fused.trace.values[1], map)) == "1,2");
  CHECK(value_debug_handles(fused.trace, fused.trace.values[2], map).empty());  // unknown id
  const Table t = values_table(fused.trace, fused.buffer, {}, &map);
  REQUIRE(t.columns.size() == 23);
  CHECK(t.columns[9].name == "handles");
  // Handles are a list: "1,2" in text, [1, 2] in JSON; none is an empty cell (null).
  CHECK(std::get<IntList>(t.rows[1][9]).text == "1,2");
  CHECK(std::get<IntList>(t.rows[1][9]).items == std::vector<int64_t>{1, 2});
  CHECK(text(t.rows[1], 10) == "fc1,hidden");
  CHECK(std::holds_alternative<std::monostate>(t.rows[2][9]));
  // So is a shape.
  CHECK(std::get<IntList>(t.rows[1][14]).text == "[1]");
  CHECK(std::get<IntList>(t.rows[1][14]).items == std::vector<int64_t>{1});
}

const std::string& result_of(const Table& summary) {
  return std::get<std::string>(summary.rows[0].back());
}

TEST_CASE("compare: nothing logged is incomplete, never a pass") {
  const Logged none = logged(std::vector<Spot>{});
  const CompareResult r = compare_values({&none.trace, &none.buffer}, {&none.trace, &none.buffer}, {});
  CHECK(r.matched == 0);
  CHECK(r.unmatched == 0);
  CHECK_FALSE(r.failed());
  CHECK(r.verdict(false) == Verdict::Incomplete);
  CHECK(r.verdict(true) == Verdict::Incomplete);  // allowing unmatched values checks nothing
  CHECK(result_of(compare_summary_table(r, true)) == "incomplete");
  CHECK(compare_incomplete_text(r, none.trace, none.trace) ==
        "nothing was compared: v.etdump and v.etdump logged no values (trace-run logs them "
        "with --log intermediates or --log outputs)");
}

TEST_CASE("compare: unmatched values are incomplete unless allowed, and are listed") {
  const Logged a = logged({{0, "", {1}}, {1, "", {2}}});
  const Logged b = logged({{0, "", {1}}, {1, "", {2}}, {2, "", {3}}, {3, "", {4}}, {4, "", {5}}});
  const CompareResult r = compare_values({&a.trace, &a.buffer}, {&b.trace, &b.buffer}, {});
  CHECK(r.matched == 2);
  CHECK(r.unmatched == 3);
  CHECK(r.verdict(false) == Verdict::Incomplete);
  CHECK(r.verdict(true) == Verdict::Pass);
  CHECK(result_of(compare_summary_table(r)) == "incomplete");
  CHECK(result_of(compare_summary_table(r, true)) == "pass");
  REQUIRE(r.unmatched_values.size() == 3);
  CHECK(r.unmatched_values[0] == "b value 2 (forward, iteration 0, instruction 2)");
  // Bounded: the first `limit`, then how many more.
  CHECK(compare_incomplete_text(r, a.trace, b.trace, {}, 2) ==
        "3 of 7 values unmatched: b value 2 (forward, iteration 0, instruction 2), b value 3 "
        "(forward, iteration 0, instruction 3); and 1 more");
  // A value past tolerance fails whatever is unmatched.
  const Logged off = logged({{0, "", {1}}, {1, "", {9}}, {2, "", {3}}});
  CHECK(compare_values({&a.trace, &a.buffer}, {&off.trace, &off.buffer}, {}).verdict(false) ==
        Verdict::Fail);
}

TEST_CASE("compare: --method-map pairs ExecuTorch's Execute block with forward") {
  Logged et = logged({{0, "", {1, 2}}});
  et.trace.blocks[0].method = "Execute";
  const Logged ours = logged({{0, "", {1, 2}}});
  CompareResult r = compare_values({&et.trace, &et.buffer}, {&ours.trace, &ours.buffer}, {});
  CHECK(r.matched == 0);
  CHECK(r.unmatched == 2);
  CHECK(r.verdict(true) == Verdict::Incomplete);
  CHECK(compare_incomplete_text(r, et.trace, ours.trace) ==
        "nothing was compared: no method in common (methods of a: 'Execute'; of b: 'forward'); "
        "pair them with --method-map A=B");
  const MethodMap map = {{"Execute", "forward"}};
  r = compare_values({&et.trace, &et.buffer}, {&ours.trace, &ours.buffer}, {}, map);
  CHECK(r.matched == 1);
  CHECK(r.unmatched == 0);
  CHECK(r.verdict(false) == Verdict::Pass);
  CHECK(text(r.table.rows[0], 0) == "Execute");  // rows name the method as A does
  CHECK(compare_incomplete_text(r, et.trace, ours.trace, map).empty());
}

TEST_CASE("compare: errors print with significant digits, not six decimals") {
  const Logged a = logged(std::vector<float>{1.0f});
  const Logged b = logged(std::vector<float>{1.0f + 3 * 1.1920929e-7f});  // 3 ulps: 3.6e-7 apart
  Tolerance tight;
  tight.atol = 0;
  tight.rtol = 0;
  const CompareResult r = compare_values({&a.trace, &a.buffer}, {&b.trace, &b.buffer}, tight);
  CHECK(r.past_tolerance == 1);
  const double err = static_cast<double>(1.0f + 3 * 1.1920929e-7f) - 1.0;
  CHECK(r.max_abs_error == err);
  const std::string out = render({r.table, compare_summary_table(r)}, Format::Table);
  CAPTURE(out);
  CHECK(out.find("3.57628e-07") != std::string::npos);  // max_abs_error, row and summary
  CHECK(out.find("0.000000 ") == std::string::npos);
  const std::string csv = render({r.table}, Format::Csv);
  CHECK(csv.find(",3.57628e-07,") != std::string::npos);
}

// --- The streamed comparison (`write_compare`) against the joined one ---------------------

// How a generated run (`run_dump`) differs from the reference one.
struct Variant {
  float offset = 0;      // added to forward iteration 1's value at instruction 0
  bool reshape = false;  // encode iteration 1 logs [3, 2] at instruction 0, not [2, 3]
  bool drop = false;     // forward iteration 2 logs instruction 1 once, not twice
  bool extra = false;    // a value at instruction 9 in every forward block, and a 4th iteration
  std::string forward = "forward";  // the name of method forward
  bool big = false;  // forward's value at instruction 0 is [16, 20], past PassMemo's threshold
};

struct RunDump {
  std::vector<uint8_t> dump;
  DebugBuffer buffer;
};

// Two methods: forward (a load block logging a value, a warm-up execution, 3 iterations: a
// tensor, a place logged twice, a delegate's value, an int, a program output) and encode
// (2 iterations, interleaved with forward's: a tensor, a double, a list of two tensors).
RunDump run_dump(const Variant& v) {
  test::ValueLogWriter log_writer(1 << 16);
  ETDumpWriter& w = log_writer.writer;
  const std::vector<uint8_t>& payload = log_writer.payload;
  auto tensor = [](std::vector<int32_t> sizes, float base) {
    HostTensor t(ScalarType::Float, sizes);
    float* p = static_cast<float*>(t.data());
    for (size_t k = 0; k < t.nbytes() / sizeof(float); ++k) {
      p[k] = base + 0.5f * static_cast<float>(k);
    }
    return t;
  };
  auto log = [&](int32_t instruction, EValue value,
                 LoggedValueKind kind = LoggedValueKind::IntermediateOutput) {
    if (instruction >= 0) {
      w.set_chain_debug_handle(0, static_cast<DebugHandle>(instruction));
    } else {
      w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    }
    REQUIRE(*w.log_evalue(value, kind));
  };
  auto forward = [&](int it, bool warmup) {
    w.set_warmup(warmup);
    w.create_event_block(v.forward);
    HostTensor t0 = tensor(v.big ? std::vector<int32_t>{16, 20} : std::vector<int32_t>{2, 3},
                           static_cast<float>(it) + (it == 1 && !warmup ? v.offset : 0));
    log(0, EValue::from_tensor(&t0.tensor()));
    HostTensor t1 = tensor({4}, 10);
    HostTensor t1b = tensor({4}, 20);
    log(1, EValue::from_tensor(&t1.tensor()));
    if (!(v.drop && it == 2)) log(1, EValue::from_tensor(&t1b.tensor()));
    HostTensor d = tensor({2}, 30);
    w.set_chain_debug_handle(0, 2);
    REQUIRE(*w.log_intermediate_output_delegate("", 5, EValue::from_tensor(&d.tensor())));
    log(3, EValue::from_int(it));
    HostTensor x = tensor({1}, 40);
    if (v.extra) log(9, EValue::from_tensor(&x.tensor()));
    HostTensor out = tensor({2}, 50);
    log(-1, EValue::from_tensor(&out.tensor()), LoggedValueKind::ProgramOutput);
    w.set_warmup(false);
  };
  auto encode = [&](int it) {
    w.create_event_block("encode");
    HostTensor t0 = tensor(v.reshape && it == 1 ? std::vector<int32_t>{3, 2}
                                                : std::vector<int32_t>{2, 3},
                           1);
    log(0, EValue::from_tensor(&t0.tensor()));
    log(0, EValue::from_double(0.25));
    HostTensor l0 = tensor({2}, 60);
    HostTensor l1 = tensor({3}, 70);
    EValue e0 = EValue::from_tensor(&l0.tensor());
    EValue e1 = EValue::from_tensor(&l1.tensor());
    EValue* items[] = {&e0, &e1};
    log(1, EValue::from_tensor_list(TensorListRef(items, 2)));
  };
  w.create_event_block(v.forward + ":load");
  HostTensor loaded = tensor({2}, 5);
  log(0, EValue::from_tensor(&loaded.tensor()));
  forward(0, true);
  for (int it = 0; it < (v.extra ? 4 : 3); ++it) {
    forward(it, false);
    if (it < 2) encode(it);
  }
  REQUIRE(w.dropped_payloads() == 0);
  return {w.serialize(), DebugBuffer::from_bytes(payload)};
}

using OpenDump = std::function<Result<TraceReader>()>;

struct CompareCase {
  OpenDump open_a, open_b;
  const DebugBuffer* buffer_a = nullptr;
  const DebugBuffer* buffer_b = nullptr;
  MethodMap methods;
};

// The streamed comparison gives the joined one's text (`compare_values`, then `render` of its
// table and summary), counts and diagnostic, for every format, with automatic units or not.
void check_streamed_compare(const CompareCase& c, const EventSelection& selection,
                            const Tolerance& tolerance = {}) {
  Result<TraceReader> ra = c.open_a();
  Result<TraceReader> rb = c.open_b();
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  Trace ja = ra->join_all();
  Trace jb = rb->join_all();
  keep_selected_values(ja, selection);
  keep_selected_values(jb, selection);
  const CompareResult r =
      compare_values({&ja, c.buffer_a}, {&jb, c.buffer_b}, tolerance, c.methods);
  StreamedValueSource sa{&*ra, c.buffer_a, {}};
  StreamedValueSource sb{&*rb, c.buffer_b, {}};
  const Trace skeleton_a = ra->skeleton();
  const Trace skeleton_b = rb->skeleton();
  for (size_t i = 0; i < skeleton_a.blocks.size(); ++i) {
    sa.blocks.push_back(block_selected(skeleton_a, i, selection));
  }
  for (size_t j = 0; j < skeleton_b.blocks.size(); ++j) {
    sb.blocks.push_back(block_selected(skeleton_b, j, selection));
  }
  RenderOptions automatic;
  automatic.auto_time_units = true;
  RenderOptions warned;
  warned.warnings = {"a.etdump: a warning"};
  for (bool allow : {false, true}) {
    for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
      for (const RenderOptions& o : {RenderOptions{}, automatic, warned}) {
        CAPTURE(allow);
        CAPTURE(static_cast<int>(f));
        std::string streamed;
        Result<CompareCounts> counts = write_compare(
            sa, sb, tolerance, c.methods, allow, f, o, [&](std::string_view s) { streamed += s; });
        REQUIRE(counts.ok());
        CHECK(streamed == render({r.table, compare_summary_table(r, allow)}, f, o));
        CHECK(counts->matched == r.matched);
        CHECK(counts->past_tolerance == r.past_tolerance);
        CHECK(counts->unreadable == r.unreadable);
        CHECK(counts->unmatched == r.unmatched);
        CHECK(counts->values_a == r.values_a);
        CHECK(counts->values_b == r.values_b);
        CHECK((counts->max_abs_error == r.max_abs_error ||
               (std::isnan(counts->max_abs_error) && std::isnan(r.max_abs_error))));
        CHECK(counts->verdict(allow) == r.verdict(allow));
        const size_t listed = std::min(r.unmatched_values.size(), kUnmatchedListed);
        CHECK(counts->unmatched_values ==
              std::vector<std::string>(r.unmatched_values.begin(),
                                       r.unmatched_values.begin() + static_cast<long>(listed)));
        CHECK(compare_incomplete_text(*counts, skeleton_a, skeleton_b, c.methods) ==
              compare_incomplete_text(r, ja, jb, c.methods));
      }
    }
  }
}

std::vector<EventSelection> compare_selections() {
  EventSelection measured;  // warm-up left out, as compare does by default
  EventSelection warmup;
  warmup.include_warmup = true;
  EventSelection later;
  later.iterations = {1, UINT64_MAX};
  EventSelection one;
  one.block = 2;
  return {measured, warmup, later, one};
}

OpenDump over(const RunDump& d, const std::string& path) {
  return [&d, path] { return TraceReader::over(d.dump, path); };
}

TEST_CASE("compare: streamed rows and summary are the joined path's on generated runs") {
  const RunDump ref = run_dump({});
  Variant changed;
  changed.offset = 1e-3f;
  changed.reshape = true;
  changed.drop = true;
  changed.extra = true;
  const RunDump other = run_dump(changed);
  Variant renamed_variant;
  renamed_variant.forward = "fwd";
  const RunDump renamed = run_dump(renamed_variant);
  // Rows over a large tensor, whose gaps aligned text measures once for its two passes.
  Variant big_variant;
  big_variant.big = true;
  const RunDump big = run_dump(big_variant);
  changed.big = true;
  const RunDump big_other = run_dump(changed);
  // The generated runs have what the cases are about.
  {
    Result<TraceReader> reader = TraceReader::over(other.dump, "b.etdump");
    REQUIRE(reader.ok());
    Trace a = TraceReader::over(ref.dump, "a.etdump")->join_all();
    Trace b = reader->join_all();
    keep_selected_values(a, {});
    keep_selected_values(b, {});
    const CompareResult r = compare_values({&a, &ref.buffer}, {&b, &other.buffer}, {});
    CHECK(r.matched > 10);
    CHECK(r.past_tolerance == 1);
    CHECK(r.unreadable == 1);  // the reshaped tensor
    CHECK(r.unmatched > kUnmatchedListed);  // only in A (dropped), only in B (extra)
    bool only_a = false, only_b = false, repeated = false;
    for (const std::vector<Cell>& row : r.table.rows) {
      only_a = only_a || std::get<std::string>(row[16]) == "only_a";
      only_b = only_b || std::get<std::string>(row[16]) == "only_b";
      repeated = repeated || std::get<int64_t>(row[8]) == 1;  // occurrence
    }
    CHECK(only_a);
    CHECK(only_b);
    CHECK(repeated);
  }
  Tolerance loose;
  loose.atol = 1;
  const std::vector<CompareCase> cases = {
      {over(ref, "a.etdump"), over(ref, "a.etdump"), &ref.buffer, &ref.buffer, {}},
      {over(ref, "a.etdump"), over(other, "b.etdump"), &ref.buffer, &other.buffer, {}},
      {over(other, "b.etdump"), over(ref, "a.etdump"), &other.buffer, &ref.buffer, {}},
      // B's fwd is A's forward; without the map nothing of forward matches.
      {over(ref, "a.etdump"), over(renamed, "c.etdump"), &ref.buffer, &renamed.buffer,
       {{"forward", "fwd"}}},
      {over(ref, "a.etdump"), over(renamed, "c.etdump"), &ref.buffer, &renamed.buffer, {}},
      // Both of B's methods named as A's forward: their blocks of one iteration are one group.
      {over(ref, "a.etdump"), over(renamed, "c.etdump"), &ref.buffer, &renamed.buffer,
       {{"forward", "fwd"}, {"forward", "encode"}}},
      // No payloads: every tensor is unreadable.
      {over(ref, "a.etdump"), over(other, "b.etdump"), &ref.buffer, nullptr, {}},
      {over(big, "a.etdump"), over(big, "a.etdump"), &big.buffer, &big.buffer, {}},
      {over(big, "a.etdump"), over(big_other, "b.etdump"), &big.buffer, &big_other.buffer, {}},
      {over(big_other, "b.etdump"), over(big, "a.etdump"), &big_other.buffer, &big.buffer, {}},
      {over(big, "a.etdump"), over(big_other, "b.etdump"), &big.buffer, nullptr, {}},
  };
  const DebugBuffer none;
  for (size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    CompareCase c = cases[i];
    if (c.buffer_b == nullptr) c.buffer_b = &none;
    for (const EventSelection& selection : compare_selections()) {
      CAPTURE(selection.include_warmup);
      CAPTURE(selection.block);
      CAPTURE(selection.iterations.begin);
      check_streamed_compare(c, selection);
    }
    check_streamed_compare(c, {}, loose);
  }
}

TEST_CASE("compare: streamed rows and summary are the joined path's on the fixture pairs") {
  std::vector<std::string> dumps;
  for (const std::string& path : test::fixture_dumps()) {
    Result<TraceReader> reader = TraceReader::open(path);
    REQUIRE(reader.ok());
    if (reader->has_values()) dumps.push_back(path);
  }
  REQUIRE(dumps.size() >= 3);
  std::vector<DebugBuffer> buffers(dumps.size());
  for (size_t i = 0; i < dumps.size(); ++i) {
    if (!std::filesystem::exists(debug_buffer_path_for(dumps[i]))) continue;
    Result<DebugBuffer> opened = DebugBuffer::open(debug_buffer_path_for(dumps[i]));
    REQUIRE(opened.ok());
    buffers[i] = std::move(opened).get();
  }
  for (const auto& [i, j] : test::fixture_pairs(dumps)) {
    CAPTURE(dumps[i]);
    CAPTURE(dumps[j]);
    const std::string a = dumps[i], b = dumps[j];
    CompareCase c{[a] { return TraceReader::open(a); }, [b] { return TraceReader::open(b); },
                  &buffers[i], &buffers[j], {}};
    check_streamed_compare(c, {});
    // ExecuTorch's Execute against etkit's forward, when one side has each.
    Result<TraceReader> ra = TraceReader::open(a);
    Result<TraceReader> rb = TraceReader::open(b);
    REQUIRE(ra.ok());
    REQUIRE(rb.ok());
    c.methods = {{"forward", "Execute"}};
    if (check_method_map(c.methods, ra->skeleton(), rb->skeleton()).ok()) {
      check_streamed_compare(c, {});
    }
  }
}

}  // namespace
}  // namespace etkit::inspect
