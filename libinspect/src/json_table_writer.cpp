#include "json_table_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "decimal_digits.h"
#include "etkit/inspect/json_number.h"
#include "etkit/inspect/time_unit.h"
#include "json_plain.h"

namespace etkit::inspect::detail {

namespace {

std::string escaped(std::string_view s) {
  return nlohmann::ordered_json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The text between tokens, pretty (nlohmann's indent of 2: tables 4 deep, a table's members 6,
// rows 8, a row's members 10 and a list's items 12) or compact (none, as dump(-1)). Each is
// written once here and read by every writer below.
struct JsonLayout {
  std::string_view open, table_first, table_next, title, unit, rows;
  std::string_view row_lead;       // before a row's '{' (after the ',' of the row before)
  std::string_view member_lead;    // before a member's name (after the ',' of the one before)
  std::string_view colon;          // between a member's name and its value
  std::string_view item_lead;      // before a list's item (after its ',')
  std::string_view list_close;     // before a non-empty list's ']'
  std::string_view rows_close;     // after the last row: the rows' ']' and the table's '}'
  std::string_view no_rows_close;  // the same after "rows": [ without a row
  std::string_view tables_close, no_tables_close, warnings_open, warning_lead, warnings_close;
  std::string_view end;
};
constexpr JsonLayout kPretty = {
    "{\n  \"tables\": [", "\n    {\n      \"name\": ", ",\n    {\n      \"name\": ",
    ",\n      \"title\": ", ",\n      \"unit\": ", ",\n      \"rows\": [",
    "\n        ", "\n          ", ": ", "\n            ", "\n          ",
    "\n      ]\n    }", "]\n    }", "\n  ]", "]", ",\n  \"warnings\": [", "\n    ", "\n  ]",
    "\n}\n"};
constexpr JsonLayout kCompact = {
    "{\"tables\":[", "{\"name\":", ",{\"name\":", ",\"title\":", ",\"unit\":", ",\"rows\":[",
    "", "", ":", "", "", "]}", "]}", "]", "]", ",\"warnings\":[", "", "]", "}"};

const JsonLayout& layout(bool compact) { return compact ? kCompact : kPretty; }

// Room for a number or "null" (json_number_chars needs 32 bytes), and for a list's item with
// its separator and lead.
constexpr size_t kNumberRoom = 32;
constexpr size_t kItemRoom = 1 + kPretty.item_lead.size() + 20;

}  // namespace

void put_json_string(TextSink& out, std::string_view s) {
  if (!json_plain(s)) {
    out.put(escaped(s));
    return;
  }
  char* p = out.reserve(s.size() + 2);
  *p++ = '"';
  p = put_chars(p, s);
  *p++ = '"';
  out.commit(p);
}

void json_report_open(TextSink& out, bool compact) { out.put(layout(compact).open); }

void json_report_table(TextSink& out, bool compact, bool first, const Table& head,
                       const std::function<void(const RowRefVisitor&)>& rows) {
  const JsonLayout& l = layout(compact);
  out.put(first ? l.table_first : l.table_next);
  put_json_string(out, head.name);
  out.put(l.title);
  put_json_string(out, head.title);
  out.put(l.unit);
  if (head.unit.empty()) {
    out.put("null");
  } else {
    put_json_string(out, head.unit);
  }
  out.put(l.rows);

  // A row is an object keyed by column name, as `render` builds it: a name that repeats keeps
  // its first place and takes the value of its last column. Each member is written as a
  // fragment (separator, lead, quoted name, colon) and its value.
  //
  // A fragment up to kShort bytes long is copied as kShort bytes from a padded copy (one
  // fixed-size move instead of a call to memcpy); the row has room for that.
  //
  // A time column of a table in us, ms or s holds whole nanoseconds over the unit (`show`'s
  // start, duration and self of integer ticks): those are printed from the nanoseconds'
  // digits (json_decimal_chars), byte for byte what json_number_chars prints for the value.
  const Result<TimeUnit> unit = parse_time_unit(head.unit);
  const double unit_ns = unit.ok() ? ns_per(*unit) : 0;
  const int unit_decimals = unit_ns == 1e3 ? 3 : unit_ns == 1e6 ? 6 : unit_ns == 1e9 ? 9 : 0;
  constexpr size_t kShort = 48;
  struct Member {
    std::string fragment;
    size_t column = 0;
    int time_decimals = 0;  // json_decimal_chars's k for the column's values, or 0
    char padded[kShort] = {};
  };
  std::vector<Member> members;
  {
    std::vector<std::string_view> names;
    for (size_t c = 0; c < head.columns.size(); ++c) {
      const Column& column = head.columns[c];
      const std::string& name = column.name;
      size_t k = 0;
      while (k < names.size() && names[k] != name) ++k;
      if (k < names.size()) {
        members[k].column = c;
        members[k].time_decimals = column.time ? unit_decimals : 0;
        continue;
      }
      names.push_back(name);
      std::string fragment(members.empty() ? "" : ",");
      fragment += l.member_lead;
      fragment += json_plain(name) ? "\"" + name + "\"" : escaped(name);
      fragment += l.colon;
      Member m;
      if (fragment.size() <= kShort) std::memcpy(m.padded, fragment.data(), fragment.size());
      m.fragment = std::move(fragment);
      m.column = c;
      m.time_decimals = column.time ? unit_decimals : 0;
      members.push_back(m);
    }
  }
  // A row's room: its fixed text, and kSmallText for each member's text or list. One reserve
  // per row; a longer text or list reserves again, room for itself and the rest of the row.
  constexpr size_t kSmallText = 64;
  size_t row_room = 2 * (l.row_lead.size() + 2);
  for (const Member& m : members) {
    row_room += std::max(m.fragment.size(), kShort) + kNumberRoom + kSmallText;
  }
  bool any_row = false;
  static constexpr CellRef kEmpty{};
  rows([&](std::span<const CellRef> row) {
    char* p = out.reserve(row_room);
    if (any_row) *p++ = ',';
    p = put_chars(p, l.row_lead);
    *p++ = '{';
    any_row = true;
    for (const Member& m : members) {
      const CellRef& cell = m.column < row.size() ? row[m.column] : kEmpty;
      if (m.fragment.size() <= kShort) {
        std::memcpy(p, m.padded, kShort);
        p += m.fragment.size();
      } else {
        p = put_chars(p, m.fragment);
      }
      switch (cell.kind) {
        case CellRef::Kind::Empty:
          p = put_chars(p, "null");
          break;
        case CellRef::Kind::Int:
          p = put_integer(p, cell.i);
          break;
        case CellRef::Kind::Double: {
          const double v = cell.d;
          int64_t n = 0;
          if (m.time_decimals != 0 && whole_nanoseconds(v, unit_ns, n) && n > 0) {
            p = json_decimal_chars(p, static_cast<uint64_t>(n), m.time_decimals);
            break;
          }
          p = std::isfinite(v) ? json_number_chars(p, v) : put_chars(p, "null");
          break;
        }
        case CellRef::Kind::Text:
          if (cell.text.size() > kSmallText) {
            out.commit(p);
            p = out.reserve(row_room + cell.text.size());
          }
          if (json_plain(cell.text)) {
            *p++ = '"';
            p = put_chars(p, cell.text);
            *p++ = '"';
          } else {
            // Rare: nlohmann escapes it, then the row goes on in a new reserve.
            out.commit(p);
            out.put(escaped(cell.text));
            p = out.reserve(row_room);
          }
          break;
        case CellRef::Kind::List:
          if (cell.items.empty()) {
            p = put_chars(p, "[]");
            break;
          }
          if (cell.items.size() * kItemRoom > kSmallText) {
            out.commit(p);
            p = out.reserve(row_room + cell.items.size() * kItemRoom);
          }
          *p++ = '[';
          for (size_t k = 0; k < cell.items.size(); ++k) {
            if (k > 0) *p++ = ',';
            p = put_chars(p, l.item_lead);
            p = put_integer(p, cell.items[k]);
          }
          p = put_chars(p, l.list_close);
          *p++ = ']';
          break;
      }
    }
    if (!members.empty()) p = put_chars(p, l.row_lead);
    *p++ = '}';
    out.commit(p);
  });
  out.put(any_row ? l.rows_close : l.no_rows_close);
}

void json_report_close(TextSink& out, bool compact, bool any_tables,
                       std::span<const std::string> warnings) {
  const JsonLayout& l = layout(compact);
  out.put(any_tables ? l.tables_close : l.no_tables_close);
  if (!warnings.empty()) {
    out.put(l.warnings_open);
    for (size_t i = 0; i < warnings.size(); ++i) {
      if (i > 0) out.put(",");
      out.put(l.warning_lead);
      put_json_string(out, warnings[i]);
    }
    out.put(l.warnings_close);
  }
  out.put(l.end);
}

}  // namespace etkit::inspect::detail
