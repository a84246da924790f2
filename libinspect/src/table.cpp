#include "etkit/inspect/table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

#include "etkit/inspect/time_unit.h"
#include "decimal_digits.h"
#include "json_table_writer.h"
#include "row_cache.h"
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

Cell CellRef::to_cell() const {
  switch (kind) {
    case Kind::Empty: return std::monostate{};
    case Kind::Int: return i;
    case Kind::Double: return d;
    case Kind::Text: return std::string(text);
    case Kind::List: return IntList{{items.begin(), items.end()}, std::string(text)};
  }
  return std::monostate{};
}

namespace {

using detail::digit_count;
using detail::digits_before;
using detail::copy_text;
using detail::same_text;
using detail::kDigitPairs;
using detail::magnitude;
using detail::whole_nanoseconds;

// The size of fixed_digits' text of q, of `digits` decimal digits (digit_count(q)).
inline size_t fixed_size(bool negative, size_t digits, int decimals) {
  const auto d = static_cast<size_t>(decimals);
  return (negative ? 1 : 0) + (digits > d ? digits : d + 1) + (d > 0 ? 1 : 0);
}

// The text of q / 10^decimals with exactly `decimals` decimals (0 to 9), after a '-' when
// `negative`, written at `p` (32 bytes suffice); returns the end. `digits` is digit_count(q),
// which a caller that placed the text has already counted. The digits go straight to their
// places, right to left, two at a time: formatting into a scratch buffer and copying had been
// 88 instructions of each time cell.
char* fixed_digits(char* p, bool negative, uint64_t q, int decimals, size_t digits) {
  const auto d = static_cast<size_t>(decimals);
  if (negative) *p++ = '-';
  char* const end = p + fixed_size(false, digits, decimals);
  char* w = end;
  size_t k = 0;  // decimals written
  for (; k + 2 <= d; k += 2) {
    w -= 2;
    std::memcpy(w, kDigitPairs + 2 * (q % 100), 2);
    q /= 100;
  }
  if (k < d) {
    *--w = static_cast<char>('0' + q % 10);
    q /= 10;
  }
  if (d > 0) *--w = '.';
  digits_before(w, q);  // the whole part: at least one digit
  return end;
}

char* fixed_digits(char* p, bool negative, uint64_t q, int decimals) {
  return fixed_digits(p, negative, q, decimals, digit_count(q));
}

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
  // Most values: y = x * 10^decimals in double is within 1/8 of the exact product when
  // |y| < 2^50, so a whole number within 1/4 of y is the exact product's rounding (no tie).
  {
    const double y = std::fabs(x) * static_cast<double>(kPow10[decimals]);
    if (y < 0x1p50) {
      const auto whole = static_cast<uint64_t>(y + 0.5);
      if (std::fabs(y - static_cast<double>(whole)) <= 0.25) {
        return fixed_digits(p, (bits >> 63) != 0, whole, decimals);
      }
    }
  }
  __extension__ typedef unsigned __int128 u128;
  const u128 product = static_cast<u128>(m) * kPow10[decimals];
  // v / 2^shift rounded half to even, in the width of v.
  auto round_shift = [](auto v, int shift) {
    using U = decltype(v);
    U q = v >> shift;
    const U rest = v - (q << shift);
    const U half = static_cast<U>(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1) != 0)) ++q;
    return q;
  };
  u128 q = 0;
  if (e >= 0) {
    if (e >= 64 || (product >> (64 - e)) != 0) return nullptr;
    q = product << e;
  } else if (-e < 64 && (product >> 64) == 0) {
    // In 64 bits when it fits (always without decimals: m < 2^53), three times fewer
    // instructions than in 128, in every time cell.
    q = round_shift(static_cast<uint64_t>(product), -e);
  } else if (-e < 128) {
    q = round_shift(product, -e);
  }  // else below 2^83 <= half an ulp of 2^-128: rounds to 0
  if ((q >> 64) != 0) return nullptr;
  return fixed_digits(p, (bits >> 63) != 0, static_cast<uint64_t>(q), decimals);
}

// printf("%.6g", x) for x with 1e-4 <= |x| < 999999.5 (the fixed notation of %.6g) and for
// whole numbers below 10^6 (0 and -0 as "0"), written at `p` (32 bytes suffice); returns the
// end, or nullptr for other values. The six significant digits are x * 10^(5 - X) rounded, X
// the decimal exponent: 10^(5 - X) is exact (X in -4..5) and the product is within 1e-10 of
// the exact one, so a whole number within 1/4 of it is the exact product's rounding (no tie);
// then trailing zeros go, and the point with the last.
// Several times faster than to_chars with a precision, in every statistic of `values`.
char* general6_chars(char* p, double x) {
  static constexpr double kPow10[] = {1,   10,   100,   1000,   10000,
                                      1e5, 1e6,  1e7,   1e8,    1e9};
  const double a = std::fabs(x);
  // Whole numbers below 10^6 (counts, small integer tensors, a std of 0) are their digits, at
  // most six; zero of either sign is "0", as the caller prints printf's "-0".
  if (a < 1e6) {
    const auto whole = static_cast<int64_t>(x);
    if (static_cast<double>(whole) == x) return detail::put_integer(p, whole);
  }
  if (!(a >= 1e-4 && a < 999999.5)) return nullptr;
  // X by comparison, then corrected by the rounded digits' count.
  int e = 5;  // 5 - X
  while (e < 9 && a * kPow10[e] < 1e5) ++e;
  while (e > 0 && a * kPow10[e] >= 1e6) --e;
  for (int tries = 0; tries < 2; ++tries) {
    const double y = a * kPow10[e];
    const auto q = static_cast<uint64_t>(y + 0.5);
    if (std::fabs(y - static_cast<double>(q)) > 0.25) return nullptr;
    if (q >= 1000000) {  // rounded up to 10^6: one more digit before the point
      if (e == 0) return nullptr;
      --e;
      continue;
    }
    if (q < 100000) return nullptr;  // cannot happen for a >= 1e-4 found above; be safe
    // The six digits, two per lookup (to_chars was a call through the PLT, a third of this).
    char digits[8];
    std::memcpy(digits, kDigitPairs + 2 * (q / 10000), 2);
    std::memcpy(digits + 2, kDigitPairs + 2 * (q / 100 % 100), 2);
    std::memcpy(digits + 4, kDigitPairs + 2 * (q % 100), 2);
    // Trailing zeros of the fraction (the last e digits) go.
    int decimals = e;
    while (decimals > 0 && digits[5 - (e - decimals)] == '0') --decimals;
    if (x < 0) *p++ = '-';
    const int whole = 6 - e;  // digits before the point; <= 0 below 1
    if (whole > 0) {
      std::memcpy(p, digits, static_cast<size_t>(whole));
      p += whole;
      if (decimals > 0) {
        *p++ = '.';
        std::memcpy(p, digits + whole, static_cast<size_t>(decimals));
        p += decimals;
      }
      return p;
    }
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', static_cast<size_t>(-whole));
    p += -whole;
    const int kept = 6 - (e - decimals);  // significant digits kept
    std::memcpy(p, digits, static_cast<size_t>(kept));
    return p + kept;
  }
  return nullptr;
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
    // printf's "%.6g" (to_chars with a precision is specified as printf in the C locale),
    // without printf's multi-precision arithmetic: several times faster, in every statistic.
    if (const char* end = general6_chars(buf, d); end != nullptr) {
      text = std::string_view(buf, static_cast<size_t>(end - buf));
    } else {
      const auto [end2, ec] = std::to_chars(buf, buf + 128, d, std::chars_format::general, 6);
      text = std::string_view(buf, static_cast<size_t>(end2 - buf));
    }
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

// A CSV field (RFC 4180: quoted when it holds a comma, quote or newline, quotes doubled) or a
// TSV field (tabs and newlines as spaces) of `s`, written at `p`, which has room for
// 2 * s.size() + 2 bytes; returns the end.
char* field_chars(char* p, std::string_view s, char sep) {
  const size_t size = s.size();
  if (size == 0) return p;  // an empty view may have no data pointer at all
  const char* in = s.data();
  if (sep == '\t') {
    for (size_t k = 0; k < size; ++k) p[k] = in[k] == '\t' || in[k] == '\n' ? ' ' : in[k];
    return p + size;
  }
  bool quote = false;
  // Without short-circuits, so the loop has no branch per character.
  for (size_t k = 0; k < size; ++k) quote |= (in[k] == ',') | (in[k] == '"') | (in[k] == '\n');
  if (!quote) {
    copy_text(p, in, size);
    return p + size;
  }
  *p++ = '"';
  for (size_t k = 0; k < size; ++k) {
    if (in[k] == '"') *p++ = '"';
    *p++ = in[k];
  }
  *p++ = '"';
  return p;
}

// A line of aligned text: cells padded to their column's width, two spaces apart, text left and
// numbers right, without trailing spaces.
void emit_line(const std::vector<std::string>& line, const std::vector<size_t>& width,
               const std::vector<char>& right, std::string& out) {
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

// A cell of a written line of aligned text, without its views: a text's bytes are in the line.
struct LeadCell {
  CellRef::Kind kind = CellRef::Kind::Empty;
  int64_t i = 0;
  double d = 0;
  size_t size = 0;  // of a text or list cell's text
};

// Pieces are handed to the writer in chunks of about this size.
constexpr size_t kChunk = 1 << 16;

}  // namespace

void visit_rows(const Table& t, const RowRefVisitor& visit) {
  std::vector<CellRef> refs;
  for (const std::vector<Cell>& row : t.rows) {
    refs.resize(row.size());
    for (size_t c = 0; c < row.size(); ++c) refs[c] = CellRef::of(row[c]);
    visit(refs);
  }
}

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

RowMemory row_memory_for(size_t input_bytes, size_t expected_rows) {
  return {input_bytes / 2, expected_rows};
}

Error render_streamed_refs(const Table& head, const std::function<void(const RowRefVisitor&)>& rows,
                           Format format, const RenderOptions& options,
                           const std::function<void(std::string_view)>& write,
                           RowMemory memory) {
  if (format == Format::Json) {
    detail::TextSink out(write);
    detail::json_report_open(out, options.compact_json);
    detail::json_report_table(out, options.compact_json, true, head, rows);
    detail::json_report_close(out, options.compact_json, true, options.warnings);
    out.flush();
    return Error();
  }
  char buf[128];
  std::string big;
  const size_t n = head.columns.size();
  if (format != Format::Table) {
    detail::TextSink sink(write);
    const char sep = format == Format::Csv ? ',' : '\t';
    {
      std::string line;
      for (size_t c = 0; c < n; ++c) {
        const std::string& name = head.columns[c].name;
        if (c > 0) line += sep;
        const size_t at = line.size();
        line.resize(at + 2 * name.size() + 2);
        line.resize(static_cast<size_t>(field_chars(line.data() + at, name, sep) - line.data()));
      }
      line += '\n';
      sink.put(line);
    }
    // Each row is written into one reserve: a separator and up to kNumberRoom bytes per column
    // (ref_text's room), which a short text fits quoted; a longer text, or a number printed
    // longer than that, reserves again. A time column of whole nanoseconds over the table's unit,
    // with as many decimals as the unit has digits below ns (show's start, duration and self),
    // is printed by moving n's point (`fixed_digits`), exactly what ref_text prints for it (see
    // TimeColumn::point_shift below).
    constexpr size_t kNumberRoom = 128;
    constexpr size_t kShortText = (kNumberRoom - 2) / 2;
    const size_t row_room = n * (1 + kNumberRoom) + 1;
    const Result<TimeUnit> unit = parse_time_unit(head.unit);
    const double unit_ns = unit.ok() ? ns_per(*unit) : 0;
    std::vector<int> shift(n, -1);  // the decimals of a point-shifted time column, or -1
    for (size_t c = 0; c < n; ++c) {
      const Column& column = head.columns[c];
      if (column.time && unit.ok() && column.decimals >= 0 && column.decimals <= 9 &&
          unit_ns == std::pow(10.0, column.decimals)) {
        shift[c] = column.decimals;
      }
    }
    rows([&](std::span<const CellRef> row) {
      // Locals, not the closure's references (writes through char pointers may alias them).
      const size_t column_count = n;
      const size_t filled = std::min(n, row.size());
      const int* const shifts = shift.data();
      const double per = unit_ns;
      char* p = sink.reserve(row_room);
      for (size_t c = 0; c < column_count; ++c) {
        if (c > 0) *p++ = sep;
        if (c >= filled) continue;
        const CellRef& cell = row[c];
        switch (cell.kind) {
          case CellRef::Kind::Empty:
            break;
          case CellRef::Kind::Text:
          case CellRef::Kind::List:
            if (cell.text.size() > kShortText) {
              sink.commit(p);
              p = sink.reserve(2 * cell.text.size() + 2 + row_room);
            }
            p = field_chars(p, cell.text, sep);
            break;
          case CellRef::Kind::Int:
            p = detail::put_integer(p, cell.i);
            break;
          case CellRef::Kind::Double: {
            const double v = cell.d;
            int64_t whole = 0;
            if (shifts[c] >= 0 && whole_nanoseconds(v, per, whole)) {
              p = fixed_digits(p, whole < 0, magnitude(whole), shifts[c]);
              break;
            }
            // A number holds no separator, quote or newline.
            const std::string_view t = ref_text(cell, head.columns[c], p, big);
            if (t.data() == p) {
              p += t.size();
            } else if (t.size() <= kNumberRoom) {
              std::memmove(p, t.data(), t.size());
              p += t.size();
            } else {  // a huge value with many decimals, in `big`
              sink.commit(p);
              sink.put(t);
              p = sink.reserve(row_room);
            }
            break;
          }
        }
      }
      *p++ = '\n';
      sink.commit(p);
    });
    sink.flush();
    return Error();
  }

  // Aligned text. Automatic units (table.h): the unit of a time
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
    // The shown unit is 10^decimals ns (ns, us, ms and s all are): a value v that is a whole
    // number n of nanoseconds over the table's unit (v == n / from_ns_per, |n| < 2^50) then
    // prints as n's digits with the point put in. That is exactly what fixed_chars prints for
    // v * factor: the product is within 3.5e-16 * |n| of n / 10^decimals, far from a tie.
    // Without fixed_chars' arithmetic: `show`'s start, duration and self of integer ticks.
    bool point_shift = false;
  };
  std::vector<TimeColumn> times(n);
  std::vector<size_t> width(n);
  // Not vector<bool>: its bit arithmetic, read for every cell written, had been 7% of `show`.
  std::vector<char> right(n, false);
  struct IntRange {
    bool any = false;
    int64_t min = 0, max = 0;
  };
  std::vector<IntRange> ints(n);
  for (size_t c = 0; c < n; ++c) times[c].active = auto_units && columns[c].time;
  for (size_t c = 0; c < n; ++c) width[c] = columns[c].name.size();
  detail::RowCache cache(memory);
  rows([&](std::span<const CellRef> row) {
    cache.add(row);
    // Locals, not the closure's references: `right` is written through a char, which may alias
    // the vectors' pointers and n (so the write pass below does the same).
    const size_t filled = std::min(n, row.size());
    size_t* const widths = width.data();
    char* const rights = right.data();
    IntRange* const ranges = ints.data();
    TimeColumn* const time_columns = times.data();
    for (size_t c = 0; c < filled; ++c) {
      const CellRef& cell = row[c];
      switch (cell.kind) {
        case CellRef::Kind::Empty:
          continue;
        case CellRef::Kind::Text:
        case CellRef::Kind::List:
          widths[c] = std::max(widths[c], cell.text.size());
          continue;
        case CellRef::Kind::Int: {
          // The widest integer is the largest or the smallest: their texts are measured once
          // the pass is over (digits per cell had been a tenth of this pass).
          IntRange& r = ranges[c];
          if (!r.any || cell.i > r.max) r.max = cell.i;
          if (!r.any || cell.i < r.min) r.min = cell.i;
          r.any = true;
          continue;
        }
        case CellRef::Kind::Double: {
          rights[c] = true;
          TimeColumn& tc = time_columns[c];
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
      widths[c] = std::max(widths[c], ref_text(cell, columns[c], buf, big).size());
    }
  });
  auto int_width = [](int64_t i) {
    return digit_count(magnitude(i)) + (i < 0 ? 1 : 0);
  };
  for (size_t c = 0; c < n; ++c) {
    if (!ints[c].any) continue;
    right[c] = true;
    width[c] = std::max({width[c], int_width(ints[c].min), int_width(ints[c].max)});
  }
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
    double pow10 = 1;
    for (int k = 0; k < columns[c].decimals; ++k) pow10 *= 10;
    tc.point_shift = columns[c].decimals <= 9 && ns_per(to) == pow10;
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
  // 16 bytes more: padding of up to 16 spaces is written 16 at a time.
  std::vector<char> chunk(std::max(out.size(), kChunk) + longest + 16);
  auto pad_spaces = [](char* at, size_t count) {
    if (count <= 16) {
      std::memcpy(at, "                ", 16);
    } else {
      std::memset(at, ' ', count);
    }
    return at + count;
  };
  std::memcpy(chunk.data(), out.data(), out.size());
  size_t used = out.size();
  // Consecutive rows often begin with the same cells (`show`'s rows of a block: block, method,
  // kind, iteration), and equal cells print equal text in columns of fixed widths, so that text
  // is copied from the line before instead of formatted again. `lead` describes the first
  // `tracked` cells of the line before, which starts at `previous` (still in `chunk` after a
  // flush: nothing is written over it until that copy); it holds no view, since a row's views
  // may die with it. It grows by a cell per row, so a block's rows share their prefix from the
  // fourth on.
  std::vector<LeadCell> lead(n);
  size_t tracked = 0;
  const char* previous = nullptr;
  // lead_bytes[k]: the bytes of the first k columns of a line, k < n (padded: none is last).
  std::vector<size_t> lead_bytes(n + 1, 0);
  for (size_t k = 1; k <= n; ++k) {
    lead_bytes[k] = lead_bytes[k - 1] + (k > 1 ? 2 : 0) + width[k - 1];
  }
  auto write_row = [&](std::span<const CellRef> row) {
    // The writes below go through char pointers, which may alias anything: what the loops read
    // is held in locals first, or every cell would load the vectors' pointers (and n) again
    // through the closure.
    const size_t column_count = n;
    const size_t* const widths = width.data();
    const char* const rights = right.data();
    const size_t* const lead_at = lead_bytes.data();
    const LeadCell* const leads = lead.data();
    char* const begin = chunk.data() + used;
    // Never the last column: it is not padded.
    const size_t most = std::min({tracked, row.size(), column_count - 1});
    size_t k = 0;
    while (k < most) {
      const CellRef& cell = row[k];
      const LeadCell& was = leads[k];
      bool same = cell.kind == was.kind;
      if (same && (cell.kind == CellRef::Kind::Text || cell.kind == CellRef::Kind::List)) {
        const size_t at = lead_at[k] + (k > 0 ? 2 : 0) + (rights[k] ? widths[k] - was.size : 0);
        // An empty view may hold no pointer at all, which same_text never reads.
        same = cell.text.size() == was.size && was.size <= widths[k] &&
               same_text(previous + at, cell.text.data(), was.size);
      } else if (same) {
        same = cell.i == was.i && std::memcmp(&cell.d, &was.d, sizeof cell.d) == 0;
      }
      if (!same) break;
      ++k;
    }
    char* p = begin;
    if (k > 0) {
      std::memmove(p, previous, lead_at[k]);
      p += lead_at[k];
    }
    for (size_t c = k; c < column_count; ++c) {
      if (c > 0) {
        *p++ = ' ';
        *p++ = ' ';
      }
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
            // Right-aligned in a column as wide as its widest integer (the first pass): the
            // digits go straight to their place.
            const uint64_t m = magnitude(cell.i);
            const size_t size = digit_count(m) + (cell.i < 0 ? 1 : 0);
            if (rights[c] && size <= widths[c]) {
              p = pad_spaces(p, widths[c] - size);
              if (cell.i < 0) *p = '-';
              p += size;
              digits_before(p, m);
              continue;
            }
            const auto [end, ec] = std::to_chars(buf, buf + 24, cell.i);
            text = std::string_view(buf, static_cast<size_t>(end - buf));
            break;
          }
          case CellRef::Kind::Double: {
            const TimeColumn& tc = times[c];
            const double v = cell.d;
            int64_t whole = 0;
            if (tc.point_shift && whole_nanoseconds(v, from_ns_per, whole)) {
              const uint64_t m = magnitude(whole);
              // In place too, as wide as fixed_digits writes it.
              const int decimals = columns[c].decimals;
              const size_t digits = digit_count(m);
              const size_t size = fixed_size(whole < 0, digits, decimals);
              if (rights[c] && size <= widths[c]) {
                p = fixed_digits(pad_spaces(p, widths[c] - size), whole < 0, m, decimals,
                                 digits);
                continue;
              }
              const char* end = fixed_digits(buf, whole < 0, m, columns[c].decimals);
              text = std::string_view(buf, static_cast<size_t>(end - buf));
              break;
            }
            if (tc.active) {
              text = ref_text(CellRef::number(v * tc.factor), columns[c], buf, big);
            } else {
              text = ref_text(cell, columns[c], buf, big);
            }
            break;
          }
        }
      }
      // Never wider than measured, unless `rows` broke its promise to give the same rows.
      if (text.size() > widths[c]) text = text.substr(0, widths[c]);
      const size_t pad = widths[c] - text.size();
      if (rights[c]) p = pad_spaces(p, pad);
      copy_text(p, text.data(), text.size());  // copies nothing for an empty view
      p += text.size();
      if (!rights[c] && c + 1 < column_count) p = pad_spaces(p, pad);
    }
    while (p > begin && p[-1] == ' ') --p;
    previous = begin;
    tracked = k;
    if (k < row.size() && k + 1 < column_count) {
      const CellRef& cell = row[k];
      lead[k] = {cell.kind, cell.i, cell.d, cell.text.size()};
      tracked = k + 1;
    }
    // A trimmed line may end inside the prefix: only what it still holds can be copied.
    while (tracked > 0 && lead_at[tracked] > static_cast<size_t>(p - begin)) --tracked;
    *p++ = '\n';
    used = static_cast<size_t>(p - chunk.data());
    if (used >= kChunk) {
      write(std::string_view(chunk.data(), used));
      used = 0;
    }
  };
  if (cache.on()) {
    cache.replay(write_row);
  } else {
    rows(write_row);
  }
  if (used > 0) write(std::string_view(chunk.data(), used));
  return Error();
}

void render(const std::vector<Table>& tables, Format format, const RenderOptions& options,
            const std::function<void(std::string_view)>& write) {
  // Every format goes through the streamed writers, row by row from the tables: one printer
  // per format, and no copy of a table, of its cells' texts or of a JSON document.
  auto rows_of = [](const Table& t) {
    return [&t](const RowRefVisitor& visit) { visit_rows(t, visit); };
  };
  if (format == Format::Json) {
    detail::TextSink out(write);
    detail::json_report_open(out, options.compact_json);
    for (size_t i = 0; i < tables.size(); ++i) {
      detail::json_report_table(out, options.compact_json, i == 0, tables[i], rows_of(tables[i]));
    }
    detail::json_report_close(out, options.compact_json, !tables.empty(), options.warnings);
    out.flush();
    return;
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) write("\n");
    // Not JSON: it cannot fail.
    (void)render_streamed_refs(tables[i], rows_of(tables[i]), format, options, write);
  }
}

std::string render(const std::vector<Table>& tables, Format format,
                   const RenderOptions& options) {
  std::string out;
  render(tables, format, options, [&](std::string_view s) { out += s; });
  return out;
}

}  // namespace etkit::inspect
