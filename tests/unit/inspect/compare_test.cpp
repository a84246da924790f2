#include "etkit/inspect/compare.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "etkit/inspect/event_table.h"
#include "etkit/inspect/values.h"
#include "etkit/inspect/verdict.h"
#include "logged_values.h"

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

}  // namespace
}  // namespace etkit::inspect
