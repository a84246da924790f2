#pragma once

// The JSON of a report as nlohmann::json writes it (an ordered document, pretty-printed with an
// indent of 2, invalid UTF-8 replaced): the reference that the hand-written JSON writers
// (`render`, `render_streamed_refs`, `ReportStream`) must match byte for byte. It is the code
// `render` ran before the writers were streamed, kept here as the tests' independent oracle.

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "etkit/inspect/table.h"

namespace etkit::inspect::test {

inline nlohmann::ordered_json reference_json_cell(const Cell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return *i;
  if (const auto* d = std::get_if<double>(&cell)) {
    if (!std::isfinite(*d)) return nullptr;
    return *d;
  }
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* l = std::get_if<IntList>(&cell)) return l->items;
  return nullptr;
}

inline std::string reference_json(const std::vector<Table>& tables,
                                  const RenderOptions& options = {}) {
  nlohmann::ordered_json doc;
  doc["tables"] = nlohmann::ordered_json::array();
  for (const Table& t : tables) {
    nlohmann::ordered_json jt;
    jt["name"] = t.name;
    jt["title"] = t.title;
    jt["unit"] = t.unit.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.unit);
    jt["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : t.rows) {
      nlohmann::ordered_json jr = nlohmann::ordered_json::object();
      for (size_t c = 0; c < t.columns.size(); ++c) {
        jr[t.columns[c].name] = c < row.size() ? reference_json_cell(row[c]) : nullptr;
      }
      jt["rows"].push_back(std::move(jr));
    }
    doc["tables"].push_back(std::move(jt));
  }
  if (!options.warnings.empty()) doc["warnings"] = options.warnings;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace etkit::inspect::test
