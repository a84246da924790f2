#include "etkit/inspect/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

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
    std::snprintf(buf, sizeof buf, "%.*f", column.decimals, *d);
    // "-0.000" reads as a negative value; print it as zero.
    std::string s = buf;
    if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
  }
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return "";
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
  return nullptr;
}

}  // namespace

std::string render(const std::vector<Table>& tables, Format format,
                   const std::vector<std::string>& warnings) {
  std::string out;
  if (format == Format::Json) {
    nlohmann::ordered_json doc;
    doc["tables"] = nlohmann::ordered_json::array();
    for (const Table& t : tables) {
      nlohmann::ordered_json jt;
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
    if (!warnings.empty()) doc["warnings"] = warnings;
    out = doc.dump(2);
    out += '\n';
    return out;
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out += '\n';
    switch (format) {
      case Format::Table: render_text(tables[i], out); break;
      case Format::Csv: render_separated(tables[i], ',', out); break;
      case Format::Tsv: render_separated(tables[i], '\t', out); break;
      case Format::Json: break;
    }
  }
  return out;
}

}  // namespace etkit::inspect
