// The JSON that etdump-inspect prints, as the golden cases record it: every expected output that
// is a JSON document parses, each table's rows have one set of fields in one order, and every
// field name is documented on the man page (so a renamed or undocumented field fails here).

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path.string());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every \fBword\fR of a man page.
std::set<std::string> documented_fields(const char* page = "man/etdump-inspect.1") {
  const std::string man = read_text(fs::path(ETKIT_SOURCE_DIR) / page);
  std::set<std::string> names;
  const std::regex bold(R"(\\fB([a-z_0-9]+)\\f[RIP])");
  for (auto it = std::sregex_iterator(man.begin(), man.end(), bold); it != std::sregex_iterator();
       ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

// The column names a case's `--delegate-metadata TYPE:NAME,...` layout adds.
std::set<std::string> layout_fields(const std::string& cmd) {
  std::set<std::string> names;
  const std::regex layout(R"(--delegate-metadata ([^ ]+))");
  std::smatch m;
  if (!std::regex_search(cmd, m, layout)) return names;
  const std::string text = m[1].str();
  const std::regex field(R"([a-z0-9]+:([A-Za-z_0-9]+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), field);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  if (text == "hex" || text == "utf8") names.insert("metadata");
  return names;
}

// Fields that hold lists of integers, and fields that hold integers.
const std::set<std::string> kListFields = {"shape", "handles", "values", "debug_handles"};
const std::set<std::string> kIntegerFields = {
    "block",       "iteration",     "instruction",  "instruction_b", "depth",
    "count",       "count_a",       "count_b",      "calls",         "events",
    "value",       "list_index",    "numel",        "nan",           "inf",
    "output",      "occurrence",    "value_a",      "value_b",       "debug_handle",
    "matched",     "past_tolerance", "not_comparable", "unmatched",   "judged",
    "regressions", "improvements",  "op_changed",   "only_a",        "only_b",
    "few_samples"};
// Numbers that are null where they are not known (work per second, FLOP shares).
const std::set<std::string> kNumberFields = {"flops", "bytes", "gflop_per_s", "gb_per_s", "per_iteration",
                                             "flops_percent", "share", "percent"};
// Text fields that are legitimately empty strings (an event without operator, delegate id,
// status or mark).
const std::set<std::string> kTextMayBeEmpty = {"op",   "op_b",   "delegate", "delegate_b",
                                               "name", "status", "first",    "ops",
                                               "node", "metadata"};

TEST_CASE("json goldens: etdump-inspect's JSON parses and its field names are documented") {
  const std::set<std::string> documented = documented_fields();
  std::map<std::string, size_t> checked;
  REQUIRE(documented.count("max_abs_error") == 1);  // the man page was read
  size_t documents = 0;
  for (const char* dir : {"tests/cli/etdump-inspect", "tests/cli/e2e-delegate"}) {
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(ETKIT_SOURCE_DIR) / dir)) {
      if (e.path().extension() != ".stdout") continue;
      const std::string text = read_text(e.path());
      if (text.rfind("{\n  \"tables\"", 0) != 0) continue;  // not a JSON document
      CAPTURE(e.path().string());
      fs::path cmd_path = e.path();
      cmd_path.replace_extension(".cmd");
      const std::set<std::string> extra = layout_fields(read_text(cmd_path));
      const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
      REQUIRE_FALSE(doc.is_discarded());
      ++documents;
      REQUIRE(doc["tables"].is_array());
      for (const nlohmann::json& table : doc["tables"]) {
        CAPTURE(table["title"].get<std::string>());
        // A table says what it is by name, not only by a title holding a path.
        REQUIRE(table.contains("name"));
        REQUIRE(table["name"].is_string());
        CHECK(documented.count(table["name"].get<std::string>()) == 1);
        REQUIRE(table.contains("unit"));
        REQUIRE(table["rows"].is_array());
        std::vector<std::string> first;
        for (const nlohmann::json& row : table["rows"]) {
          std::vector<std::string> keys;
          for (auto it = row.begin(); it != row.end(); ++it) keys.push_back(it.key());
          if (first.empty()) first = keys;
          CHECK(keys == first);
          for (const std::string& k : keys) {
            CAPTURE(k);
            CHECK((documented.count(k) == 1 || extra.count(k) == 1));
            const nlohmann::json& v = row[k];
            CAPTURE(v.dump());
            if (kListFields.count(k) == 1) {
              // Lists are arrays of integers (or null), never text such as "[1, 8]".
              CHECK((v.is_null() || v.is_array()));
              if (v.is_array()) {
                for (const nlohmann::json& item : v) CHECK(item.is_number_integer());
              }
            } else if (kNumberFields.count(k) == 1) {
              // Rates and shares are numbers, or null where unknown.
              CHECK((v.is_null() || v.is_number()));
            } else if (kIntegerFields.count(k) == 1 && table["name"] != "dump") {
              // (info's `dump` table pairs each field with its text as `value`.)
              CHECK((v.is_null() || v.is_number_integer()));
            }
            // Empty cells are null, not "".
            if (v.is_string() && kTextMayBeEmpty.count(k) == 0) {
              CHECK_FALSE(v.get<std::string>().empty());
            }
            ++checked[k];
          }
        }
      }
    }
  }
  CHECK(documents >= 10);
  // The typed fields were seen, so the checks above ran on them.
  for (const std::string k : {"shape", "handles", "values", "debug_handles", "count", "instruction",
                              "shapes", "input_shapes", "gflop_per_s", "gb_per_s", "per_iteration",
                              "flops_percent"}) {
    CAPTURE(k);
    CHECK(checked[k] > 0);
  }
}

// Every integer tensor trace-run prints as JSON has integer values, min and max (3, not 3.0),
// and every shape is an array of integers.
void check_trace_run_values(const nlohmann::json& j, size_t& integer_tensors) {
  if (j.is_array()) {
    for (const nlohmann::json& item : j) check_trace_run_values(item, integer_tensors);
    return;
  }
  if (!j.is_object()) return;
  if (j.contains("shape")) {
    CHECK(j["shape"].is_array());
    for (const nlohmann::json& d : j["shape"]) CHECK(d.is_number_integer());
  }
  if (j.contains("dtype") && j["dtype"].is_string()) {
    const std::string dtype = j["dtype"].get<std::string>();
    if ((dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0) && j.contains("values")) {
      ++integer_tensors;
      CAPTURE(j.dump());
      for (const nlohmann::json& v : j["values"]) CHECK(v.is_number_integer());
      for (const char* k : {"min", "max"}) CHECK((j[k].is_null() || j[k].is_number_integer()));
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) check_trace_run_values(*it, integer_tensors);
}

TEST_CASE("json goldens: trace-run's JSON values keep their types") {
  size_t integer_tensors = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(ETKIT_SOURCE_DIR) / "tests/cli/trace-run")) {
    if (e.path().extension() != ".stdout") continue;
    // Cases blank out timings as `T` (`"min_ms": T`): put a number back so that they parse.
    const std::string text =
        std::regex_replace(read_text(e.path()), std::regex(R"(": T(,?)\n)"), "\": 0$1\n");
    if (text.rfind("{", 0) != 0) continue;
    CAPTURE(e.path().string());
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) continue;  // a case that prints more than one document
    check_trace_run_values(doc, integer_tensors);
  }
  CHECK(integer_tensors >= 1);
}

// Every key under `j` (objects inside arrays too), into `keys`.
void collect_keys(const nlohmann::json& j, std::set<std::string>& keys) {
  if (j.is_array()) {
    for (const nlohmann::json& item : j) collect_keys(item, keys);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys.insert(it.key());
      collect_keys(*it, keys);
    }
  }
}

TEST_CASE("json goldens: trace-run's timings and memory fields are numbers, and documented") {
  const std::set<std::string> documented = documented_fields("man/trace-run.1");
  REQUIRE(documented.count("median_ms") == 1);  // the man page was read
  std::set<std::string> seen;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(ETKIT_SOURCE_DIR) / "tests/cli/trace-run")) {
    if (e.path().extension() != ".stdout") continue;
    const std::string text =
        std::regex_replace(read_text(e.path()), std::regex(R"(": T(,?)\n)"), "\": 0$1\n");
    if (text.rfind("{", 0) != 0) continue;
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) continue;
    CAPTURE(e.path().string());
    for (const char* section : {"timings", "memory"}) {
      if (!doc.contains(section)) continue;
      std::set<std::string> keys;
      collect_keys(doc[section], keys);
      for (const std::string& k : keys) {
        CAPTURE(k);
        CHECK(documented.count(k) == 1);
        seen.insert(k);
      }
    }
    if (doc.contains("memory")) {
      for (const nlohmann::json& m : doc["memory"]["methods"]) {
        for (const char* k : {"planned_bytes", "method_allocator_used", "delegate_init_bytes",
                              "temp_peak", "shared_bytes"}) {
          CAPTURE(k);
          CHECK(m[k].is_number_unsigned());
        }
      }
    }
  }
  // The goldens show the new fields, so the checks above ran on them.
  for (const char* k : {"p99_ms", "std_ms", "first_ms", "method_init_ms", "program_load_ms",
                        "sequence", "delegate_init_bytes", "shared_bytes", "peak_rss_bytes"}) {
    CAPTURE(k);
    CHECK(seen.count(k) == 1);
  }
}

}  // namespace
}  // namespace etkit::inspect
