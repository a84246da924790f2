#include "etkit/inspect/table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "etkit/inspect/time_unit.h"
#include "json_table_writer.h"
#include "text_sink.h"

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

CellRef CellRef::of(const Cell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return integer(*i);
  if (const auto* d = std::get_if<double>(&cell)) return number(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) return string(*s);
  if (const auto* l = std::get_if<IntList>(&cell)) return list(*l);
  return {};
}

namespace {

// printf("%.*f", decimals, x) for a finite `x`, written at `p` (32 bytes suffice); returns the
// end, or nullptr when out of its range (more than 9 decimals, or |x| * 10^decimals >= 2^64).
// Exact: x is m * 2^e, so x * 10^decimals is m * 10^decimals * 2^e, an integer of at most 83
// bits shifted, rounded half to even as glibc's printf rounds in the default rounding mode.
// Several times faster than to_chars with a precision, which shows in every time cell.
char* fixed_chars(char* p, double x, int decimals) {
  static constexpr uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000};
  if (decimals < 0 || decimals > 9) return nullptr;
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0x7ff) return nullptr;
  uint64_t m = bits & ((uint64_t{1} << 52) - 1);
  int e = -1074;
  if (biased != 0) {
    m |= uint64_t{1} << 52;
    e = biased - 1075;
  }
  __extension__ typedef unsigned __int128 u128;
  const u128 product = static_cast<u128>(m) * kPow10[decimals];
  u128 q = 0;
  if (e >= 0) {
    if (e >= 64 || (product >> (64 - e)) != 0) return nullptr;
    q = product << e;
  } else if (-e < 128) {
    const int shift = -e;
    q = product >> shift;
    const u128 rest = product - (q << shift);
    const u128 half = static_cast<u128>(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  }  // else below 2^83 <= half an ulp of 2^-128: rounds to 0
  if ((q >> 64) != 0) return nullptr;
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, static_cast<uint64_t>(q));
  const auto n = static_cast<size_t>(end - digits);
  const auto d = static_cast<size_t>(decimals);
  if ((bits >> 63) != 0) *p++ = '-';
  if (d == 0) {
    std::memcpy(p, digits, n);
    return p + n;
  }
  if (n <= d) {
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', d - n);
    p += d - n;
    std::memcpy(p, digits, n);
    return p + n;
  }
  std::memcpy(p, digits, n - d);
  p += n - d;
  *p++ = '.';
  std::memcpy(p, digits + n - d, d);
  return p + d;
}

// The text of `cell` in `column`: a view of the cell's own text, of `buf` (at least 128 bytes)
// or of `big` (a huge value printed with many decimals).
std::string_view ref_text(const CellRef& cell, const Column& column, char* buf, std::string& big) {
  switch (cell.kind) {
    case CellRef::Kind::Empty:
      return {};
    case CellRef::Kind::Text:
    case CellRef::Kind::List:
      return cell.text;
    case CellRef::Kind::Int: {
      const auto [end, ec] = std::to_chars(buf, buf + 24, cell.i);
      return std::string_view(buf, static_cast<size_t>(end - buf));
    }
    case CellRef::Kind::Double:
      break;
  }
  const double d = cell.d;
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string_view text;
  if (column.decimals == kSignificantDigits) {
    std::snprintf(buf, 128, "%.6g", d);
    text = buf;
  } else if (char* end = fixed_chars(buf, d, column.decimals); end != nullptr) {
    text = std::string_view(buf, static_cast<size_t>(end - buf));
  } else {
    // What printf's "%.*f" prints (to_chars with a precision is specified as printf in the C
    // locale); a huge value that does not fit falls back to printf.
    const auto [end2, ec] =
        std::to_chars(buf, buf + 128, d, std::chars_format::fixed, column.decimals);
    if (ec == std::errc()) {
      text = std::string_view(buf, static_cast<size_t>(end2 - buf));
    } else {
      big.resize(512);
      std::snprintf(big.data(), big.size(), "%.*f", column.decimals, d);
      text = big.c_str();
    }
  }
  // "-0.000" reads as a negative value; print it as zero.
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string_view::npos) {
    text.remove_prefix(1);
  }
  return text;
}

// Appends the text of `cell` to `out`.
void append_cell_text(const Cell& cell, const Column& column, std::string& out) {
  char buf[128];
  std::string big;
  out += ref_text(CellRef::of(cell), column, buf, big);
}

std::string cell_text(const Cell& cell, const Column& column) {
  std::string s;
  append_cell_text(cell, column, s);
  return s;
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

// Appends `s` as a CSV (quoted when it holds a comma, quote or newline) or TSV field (tabs and
// newlines as spaces).
void append_field(std::string_view s, char sep, std::string& out) {
  if (sep == '\t') {
    const size_t at = out.size();
    out += s;
    for (size_t k = at; k < out.size(); ++k) {
      if (out[k] == '\t' || out[k] == '\n') out[k] = ' ';
    }
    return;
  }
  bool quote = false;
  for (char ch : s) quote = quote || ch == ',' || ch == '"' || ch == '\n';
  if (!quote) {
    out += s;
    return;
  }
  out += '"';
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

std::string csv_field(const std::string& s, char sep) {
  std::string r;
  append_field(s, sep, r);
  return r;
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

// A line of aligned text, as render_text emits it.
void emit_line(const std::vector<std::string>& line, const std::vector<size_t>& width,
               const std::vector<bool>& right, std::string& out) {
  const size_t n = line.size();
  const size_t start = out.size();
  for (size_t c = 0; c < n; ++c) {
    const size_t pad = width[c] - line[c].size();
    if (c > 0) out += "  ";
    if (right[c]) out.append(pad, ' ');
    out += line[c];
    if (!right[c] && c + 1 < n) out.append(pad, ' ');
  }
  while (out.size() > start && out.back() == ' ') out.pop_back();
  out += '\n';
}

// Pieces are handed to the writer in chunks of about this size.
constexpr size_t kChunk = 1 << 16;

}  // namespace

Error render_streamed(const Table& head, const std::function<void(const RowVisitor&)>& rows,
                      Format format, const RenderOptions& options,
                      const std::function<void(std::string_view)>& write) {
  std::vector<CellRef> refs;
  auto ref_rows = [&](const RowRefVisitor& visit) {
    rows([&](const std::vector<Cell>& row) {
      refs.clear();
      for (const Cell& cell : row) refs.push_back(CellRef::of(cell));
      visit(refs);
    });
  };
  return render_streamed_refs(head, ref_rows, format, options, write);
}

Error render_streamed_refs(const Table& head, const std::function<void(const RowRefVisitor&)>& rows,
                           Format format, const RenderOptions& options,
                           const std::function<void(std::string_view)>& write) {
  if (format == Format::Json) {
    detail::TextSink out(write);
    detail::json_report_open(out);
    detail::json_report_table(out, true, head, rows);
    detail::json_report_close(out, true, options.warnings);
    out.flush();
    return Error();
  }
  char buf[128];
  std::string big;
  const size_t n = head.columns.size();
  if (format != Format::Table) {
    std::string out;
    out.reserve(kChunk + 4096);
    const char sep = format == Format::Csv ? ',' : '\t';
    for (size_t c = 0; c < n; ++c) {
      if (c > 0) out += sep;
      out += csv_field(head.columns[c].name, sep);
    }
    out += '\n';
    rows([&](std::span<const CellRef> row) {
      for (size_t c = 0; c < n; ++c) {
        if (c > 0) out += sep;
        if (c < row.size()) append_field(ref_text(row[c], head.columns[c], buf, big), sep, out);
      }
      out += '\n';
      if (out.size() >= kChunk) {
        write(out);
        out.clear();
      }
    });
    if (!out.empty()) write(out);
    return Error();
  }

  // Aligned text. Automatic units as with_readable_units() picks them: the unit of a time
  // column is that of its lower median non-zero value; readable_time_unit() is a step function
  // of the value, so counting the values per unit finds the median's unit without keeping them.
  // The widest text of a time column is that of its largest or smallest value (formatting is
  // monotonic in the magnitude, and multiplying by a positive factor keeps the order).
  std::vector<Column> columns = head.columns;
  std::string unit = head.unit;
  Result<TimeUnit> from = parse_time_unit(head.unit);
  const bool auto_units = options.auto_time_units && from.ok();
  const double from_ns_per = from.ok() ? ns_per(*from) : 1;
  struct TimeColumn {
    bool active = false;
    uint64_t count[4] = {0, 0, 0, 0};  // non-zero finite values per unit (Ns, Us, Ms, S)
    bool any = false;                  // a finite value seen
    double max = 0, min = 0;
    double factor = 1;
  };
  std::vector<TimeColumn> times(n);
  std::vector<size_t> width(n);
  std::vector<bool> right(n, false);
  for (size_t c = 0; c < n; ++c) times[c].active = auto_units && columns[c].time;
  for (size_t c = 0; c < n; ++c) width[c] = columns[c].name.size();
  rows([&](std::span<const CellRef> row) {
    for (size_t c = 0; c < n && c < row.size(); ++c) {
      const CellRef& cell = row[c];
      switch (cell.kind) {
        case CellRef::Kind::Empty:
          continue;
        case CellRef::Kind::Text:
        case CellRef::Kind::List:
          width[c] = std::max(width[c], cell.text.size());
          continue;
        case CellRef::Kind::Int: {
          right[c] = true;
          // The length of the integer's text, without writing it.
          uint64_t v =
              cell.i < 0 ? 0 - static_cast<uint64_t>(cell.i) : static_cast<uint64_t>(cell.i);
          size_t len = cell.i < 0 ? 2 : 1;
          for (; v >= 10; v /= 10) ++len;
          width[c] = std::max(width[c], len);
          continue;
        }
        case CellRef::Kind::Double: {
          right[c] = true;
          TimeColumn& tc = times[c];
          const double d = cell.d;
          if (tc.active && std::isfinite(d)) {
            if (!tc.any || d > tc.max) tc.max = d;
            if (!tc.any || d < tc.min) tc.min = d;
            tc.any = true;
            if (d != 0)
              ++tc.count[static_cast<int>(readable_time_unit(std::fabs(d) * from_ns_per))];
            continue;
          }
          break;
        }
      }
      width[c] = std::max(width[c], ref_text(cell, columns[c], buf, big).size());
    }
  });
  if (auto_units) unit.clear();
  for (size_t c = 0; c < n; ++c) {
    TimeColumn& tc = times[c];
    if (!tc.active) continue;
    const uint64_t total = tc.count[0] + tc.count[1] + tc.count[2] + tc.count[3];
    TimeUnit to = TimeUnit::Ns;
    if (total > 0) {
      const uint64_t k = (total - 1) / 2;  // the lower median's rank
      uint64_t below = 0;
      for (int u = 0; u < 4; ++u) {
        below += tc.count[u];
        if (k < below) {
          to = static_cast<TimeUnit>(u);
          break;
        }
      }
    }
    tc.factor = from_ns_per / ns_per(to);
    columns[c].decimals = time_decimals(to);
    columns[c].name += std::string("[") + time_unit_name(to) + "]";
    width[c] = std::max(width[c], columns[c].name.size());
    if (tc.any) {
      width[c] = std::max(width[c], cell_text(Cell(tc.max * tc.factor), columns[c]).size());
      width[c] = std::max(width[c], cell_text(Cell(tc.min * tc.factor), columns[c]).size());
    }
  }
  std::string out;
  out.reserve(kChunk + 4096);
  out += "# " + head.title;
  if (!unit.empty()) out += " (times in " + unit + ")";
  out += '\n';
  {
    std::vector<std::string> line(n);
    for (size_t c = 0; c < n; ++c) line[c] = columns[c].name;
    emit_line(line, width, right, out);
  }
  // Rows are written straight into a buffer that always has room for the longest line: the
  // widths bound every cell (a cell wider than its column cannot occur, the first pass saw it).
  size_t longest = 1;
  for (size_t c = 0; c < n; ++c) longest += width[c] + 2;
  std::vector<char> chunk(std::max(out.size(), kChunk) + longest);
  std::memcpy(chunk.data(), out.data(), out.size());
  size_t used = out.size();
  rows([&](std::span<const CellRef> row) {
    char* const begin = chunk.data() + used;
    char* p = begin;
    for (size_t c = 0; c < n; ++c) {
      std::string_view text;
      if (c < row.size()) {
        const CellRef& cell = row[c];
        switch (cell.kind) {
          case CellRef::Kind::Empty:
            break;
          case CellRef::Kind::Text:
          case CellRef::Kind::List:
            text = cell.text;
            break;
          case CellRef::Kind::Int: {
            const auto [end, ec] = std::to_chars(buf, buf + 24, cell.i);
            text = std::string_view(buf, static_cast<size_t>(end - buf));
            break;
          }
          case CellRef::Kind::Double:
            text = times[c].active
                       ? ref_text(CellRef::number(cell.d * times[c].factor), columns[c], buf, big)
                       : ref_text(cell, columns[c], buf, big);
            break;
        }
      }
      // Never wider than measured, unless `rows` broke its promise to give the same rows.
      if (text.size() > width[c]) text = text.substr(0, width[c]);
      const size_t pad = width[c] - text.size();
      if (c > 0) {
        *p++ = ' ';
        *p++ = ' ';
      }
      if (right[c]) {
        std::memset(p, ' ', pad);
        p += pad;
      }
      if (!text.empty()) {  // an empty cell's view may have no data pointer at all
        std::memcpy(p, text.data(), text.size());
        p += text.size();
      }
      if (!right[c] && c + 1 < n) {
        std::memset(p, ' ', pad);
        p += pad;
      }
    }
    while (p > begin && p[-1] == ' ') --p;
    *p++ = '\n';
    used = static_cast<size_t>(p - chunk.data());
    if (used >= kChunk) {
      write(std::string_view(chunk.data(), used));
      used = 0;
    }
  });
  if (used > 0) write(std::string_view(chunk.data(), used));
  return Error();
}

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
