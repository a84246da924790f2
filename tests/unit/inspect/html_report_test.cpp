#include "etkit/inspect/html_report.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace etkit::inspect {
namespace {

TEST_CASE("html report: the data island cannot be closed by a dump's strings") {
  const std::string data = R"({"name": "</script><script>alert(1)</script>"})";
  const std::string escaped = escape_script_json(data);
  CHECK(escaped.find('<') == std::string::npos);
  // Still the same JSON.
  CHECK(nlohmann::json::parse(escaped) == nlohmann::json::parse(data));
}

TEST_CASE("html report: one offline page holding the island, the title escaped") {
  const std::string page = html_report_page("a<b & \"c\"", R"({"etkit_report": 1})");
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("<title>a&lt;b &amp; &quot;c&quot;</title>") != std::string::npos);
  const std::string island = "<script type=\"application/json\" id=\"etkit-data\">\n"
                             "{\"etkit_report\": 1}\n</script>";
  CHECK(page.find(island) != std::string::npos);
  // No URL: nothing to fetch, no network.
  CHECK(page.find("http:") == std::string::npos);
  CHECK(page.find("https:") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
}

TEST_CASE("html report: the page written in pieces is the page") {
  const std::string data = R"({"a": "<b>", "c": ["<", "<<x<"], "d": "</script>"})";
  std::string page = html_report_head("t<");
  // The island cut at every place: the escape never depends on the pieces.
  for (size_t k = 0; k < data.size(); ++k) {
    write_script_json(std::string_view(data).substr(k, 1),
                      [&](std::string_view piece) { page += piece; });
  }
  page += html_report_tail();
  CHECK(page == html_report_page("t<", data));
  CHECK(escape_script_json(data).find('<') == std::string::npos);
}

}  // namespace
}  // namespace etkit::inspect
