#include "etkit/inspect/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "etkit/inspect/time_unit.h"

namespace etkit::inspect {

Result<Format> parse_format(std::string_view text) {
  if (text == "table") return Format::Table;
  if (text == "json") return Format::Json;
  if (text == "csv") return Format::Csv;
  if (text == "tsv") return Format::Tsv;
  return Error(ErrorCode::InvalidArgument,
               "unknown format '%.*s' (expected table, json, csv or tsv)",
               static_cast<int>(text.size()), text.data());
}

namespace {

std::string cell_text(const Cell& cell, const Column& column) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) {
    if (std::isnan(*d)) return "nan";
    if (std::isinf(*d)) return *d > 0 ? "inf" : "-inf";
    char buf[64];
    if (column.decimals == kSignificantDigits) {
      std::snprintf(buf, sizeof buf, "%.6g", *d);
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", column.decimals, *d);
    }
    // "-0.000" reads as a negative value; print it as zero.
    std::string s = buf;
    if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
  }
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* l = std::get_if<IntList>(&cell)) return l->text;
  return "";
}

// `t` with each time column converted to the unit its values read best in, the unit named in
// the column's header; the title names no unit.
Table with_readable_units(const Table& t) {
  Result<TimeUnit> from = parse_time_unit(t.unit);
  if (!from.ok()) return t;
  Table out = t;
  out.unit.clear();
  const double from_ns_per = ns_per(*from);
  for (size_t c = 0; c < out.columns.size(); ++c) {
    Column& column = out.columns[c];
    if (!column.time) continue;
    // The unit reads best for the column's typical time: the (lower) median of its non-zero
    // times, so one long event does not push every short one to "0.000030".
    std::vector<double> times;
    for (const auto& row : out.rows) {
      if (c >= row.size()) continue;
      if (const auto* d = std::get_if<double>(&row[c]);
          d != nullptr && std::isfinite(*d) && *d != 0) {
        times.push_back(std::fabs(*d) * from_ns_per);
      }
    }
    double typical = 0;
    if (!times.empty()) {
      const auto middle = times.begin() + static_cast<std::ptrdiff_t>((times.size() - 1) / 2);
      std::nth_element(times.begin(), middle, times.end());
      typical = *middle;
    }
    const TimeUnit to = readable_time_unit(typical);
    const double factor = from_ns_per / ns_per(to);
    for (auto& row : out.rows) {
      if (c >= row.size()) continue;
      if (auto* d = std::get_if<double>(&row[c])) *d *= factor;
    }
    column.decimals = time_decimals(to);
    column.name += std::string("[") + time_unit_name(to) + "]";
  }
  return out;
}

bool right_aligned(const Cell& cell) {
  return std::holds_alternative<int64_t>(cell) || std::holds_alternative<double>(cell);
}

void render_text(const Table& t, std::string& out) {
  out += "# " + t.title;
  if (!t.unit.empty()) out += " (times in " + t.unit + ")";
  out += '\n';
  const size_t n = t.columns.size();
  std::vector<std::vector<std::string>> texts;
  std::vector<size_t> width(n);
  std::vector<bool> right(n, false);
  for (size_t c = 0; c < n; ++c) width[c] = t.columns[c].name.size();
  for (const auto& row : t.rows) {
    std::vector<std::string> line(n);
    for (size_t c = 0; c < n && c < row.size(); ++c) {
      line[c] = cell_text(row[c], t.columns[c]);
      width[c] = std::max(width[c], line[c].size());
      if (right_aligned(row[c])) right[c] = true;
    }
    texts.push_back(std::move(line));
  }
  auto emit = [&](const std::vector<std::string>& line) {
    std::string s;
    for (size_t c = 0; c < n; ++c) {
      const size_t pad = width[c] - line[c].size();
      if (c > 0) s += "  ";
      if (right[c]) s.append(pad, ' ');
      s += line[c];
      if (!right[c] && c + 1 < n) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s;
    out += '\n';
  };
  std::vector<std::string> header(n);
  for (size_t c = 0; c < n; ++c) header[c] = t.columns[c].name;
  emit(header);
  for (const auto& line : texts) emit(line);
}

std::string csv_field(const std::string& s, char sep) {
  if (sep == '\t') {
    std::string r = s;
    std::replace(r.begin(), r.end(), '\t', ' ');
    std::replace(r.begin(), r.end(), '\n', ' ');
    return r;
  }
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"') r += '"';
    r += ch;
  }
  return r + "\"";
}

void render_separated(const Table& t, char sep, std::string& out) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (c > 0) out += sep;
    out += csv_field(t.columns[c].name, sep);
  }
  out += '\n';
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c > 0) out += sep;
      if (c < row.size()) out += csv_field(cell_text(row[c], t.columns[c]), sep);
    }
    out += '\n';
  }
}

nlohmann::ordered_json json_cell(const Cell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return *i;
  if (const auto* d = std::get_if<double>(&cell)) {
    if (!std::isfinite(*d)) return nullptr;
    return *d;
  }
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* l = std::get_if<IntList>(&cell)) return l->items;
  return nullptr;
}

}  // namespace

std::string render(const std::vector<Table>& tables, Format format,
                   const RenderOptions& options) {
  std::string out;
  if (format == Format::Json) {
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
          jr[t.columns[c].name] = c < row.size() ? json_cell(row[c]) : nullptr;
        }
        jt["rows"].push_back(std::move(jr));
      }
      doc["tables"].push_back(std::move(jt));
    }
    if (!options.warnings.empty()) doc["warnings"] = options.warnings;
    out = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
    return out;
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out += '\n';
    switch (format) {
      case Format::Table:
        render_text(options.auto_time_units ? with_readable_units(tables[i]) : tables[i], out);
        break;
      case Format::Csv: render_separated(tables[i], ',', out); break;
      case Format::Tsv: render_separated(tables[i], '\t', out); break;
      case Format::Json: break;
    }
  }
  return out;
}

}  // namespace etkit::inspect
