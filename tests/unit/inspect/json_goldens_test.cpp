// The JSON that etdump-inspect prints, as the golden cases record it: every expected output that
// is a JSON document parses, each table's rows have one set of fields in one order, and every
// field name is documented on the man page (so a renamed or undocumented field fails here).

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
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

// Every \fBword\fR of the man page.
std::set<std::string> documented_fields() {
  const std::string man = read_text(fs::path(ETKIT_SOURCE_DIR) / "man/etdump-inspect.1");
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

TEST_CASE("json goldens: etdump-inspect's JSON parses and its field names are documented") {
  const std::set<std::string> documented = documented_fields();
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
          }
        }
      }
    }
  }
  CHECK(documents >= 10);
}

}  // namespace
}  // namespace etkit::inspect
