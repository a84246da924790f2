#include "json_table_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "etkit/inspect/json_number.h"
#include "json_plain.h"

namespace etkit::inspect::detail {

namespace {

std::string escaped(std::string_view s) {
  return nlohmann::ordered_json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Row objects are at this indent in the document, their members two deeper, and a list's items
// two deeper again (nlohmann's pretty print: tables 4, a table's members 6, rows 8).
constexpr std::string_view kRowIndent = "        ";
constexpr std::string_view kMemberIndent = "          ";
constexpr std::string_view kItemIndent = "            ";
// Room for a number or "null" (json_number_chars needs 32 bytes), and for a list's item with
// its separator and indent.
constexpr size_t kNumberRoom = 32;
constexpr size_t kItemRoom = 2 + kItemIndent.size() + 20;

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

void json_report_open(TextSink& out) { out.put("{\n  \"tables\": ["); }

void json_report_table(TextSink& out, bool first, const Table& head,
                       const std::function<void(const RowRefVisitor&)>& rows) {
  out.put(first ? "\n    {\n      \"name\": " : ",\n    {\n      \"name\": ");
  put_json_string(out, head.name);
  out.put(",\n      \"title\": ");
  put_json_string(out, head.title);
  out.put(",\n      \"unit\": ");
  if (head.unit.empty()) {
    out.put("null");
  } else {
    put_json_string(out, head.unit);
  }
  out.put(",\n      \"rows\": [");

  // A row is an object keyed by column name, as `render` builds it: a name that repeats keeps
  // its first place and takes the value of its last column. Each member is written as a
  // fragment (separator, indent, quoted name, ": ") and its value.
  //
  // A fragment up to kShort bytes long is copied as kShort bytes from a padded copy (one
  // fixed-size move instead of a call to memcpy); the row has room for that.
  constexpr size_t kShort = 48;
  struct Member {
    std::string fragment;
    size_t column = 0;
    char padded[kShort] = {};
  };
  std::vector<Member> members;
  {
    std::vector<std::string_view> names;
    for (size_t c = 0; c < head.columns.size(); ++c) {
      const std::string& name = head.columns[c].name;
      size_t k = 0;
      while (k < names.size() && names[k] != name) ++k;
      if (k < names.size()) {
        members[k].column = c;
        continue;
      }
      names.push_back(name);
      std::string fragment(members.empty() ? "\n" : ",\n");
      fragment += kMemberIndent;
      fragment += json_plain(name) ? "\"" + name + "\"" : escaped(name);
      fragment += ": ";
      Member m;
      if (fragment.size() <= kShort) std::memcpy(m.padded, fragment.data(), fragment.size());
      m.fragment = std::move(fragment);
      m.column = c;
      members.push_back(m);
    }
  }
  bool any_row = false;
  static constexpr CellRef kEmpty{};
  rows([&](std::span<const CellRef> row) {
    {
      char* p = out.reserve(kRowIndent.size() + 4);
      if (any_row) *p++ = ',';
      *p++ = '\n';
      p = put_chars(p, kRowIndent);
      *p++ = '{';
      out.commit(p);
    }
    any_row = true;
    for (const Member& m : members) {
      const CellRef& cell = m.column < row.size() ? row[m.column] : kEmpty;
      size_t room = std::max(m.fragment.size(), kShort) + kNumberRoom;
      if (cell.kind == CellRef::Kind::Text) room += cell.text.size();
      // A list's brackets fit in kNumberRoom.
      if (cell.kind == CellRef::Kind::List) room += cell.items.size() * kItemRoom;
      char* p = out.reserve(room);
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
          p = std::to_chars(p, p + kNumberRoom, cell.i).ptr;
          break;
        case CellRef::Kind::Double:
          p = std::isfinite(cell.d) ? json_number_chars(p, cell.d) : put_chars(p, "null");
          break;
        case CellRef::Kind::Text:
          if (json_plain(cell.text)) {
            *p++ = '"';
            p = put_chars(p, cell.text);
            *p++ = '"';
          } else {
            out.commit(p);
            out.put(escaped(cell.text));
            continue;
          }
          break;
        case CellRef::Kind::List:
          if (cell.items.empty()) {
            p = put_chars(p, "[]");
            break;
          }
          *p++ = '[';
          for (size_t k = 0; k < cell.items.size(); ++k) {
            if (k > 0) *p++ = ',';
            *p++ = '\n';
            p = put_chars(p, kItemIndent);
            p = std::to_chars(p, p + kNumberRoom, cell.items[k]).ptr;
          }
          *p++ = '\n';
          p = put_chars(p, kMemberIndent);
          *p++ = ']';
          break;
      }
      out.commit(p);
    }
    char* p = out.reserve(kRowIndent.size() + 2);
    if (!members.empty()) {
      *p++ = '\n';
      p = put_chars(p, kRowIndent);
    }
    *p++ = '}';
    out.commit(p);
  });
  out.put(any_row ? "\n      ]\n    }" : "]\n    }");
}

void json_report_close(TextSink& out, bool any_tables, std::span<const std::string> warnings) {
  out.put(any_tables ? "\n  ]" : "]");
  if (!warnings.empty()) {
    out.put(",\n  \"warnings\": [");
    for (size_t i = 0; i < warnings.size(); ++i) {
      out.put(i == 0 ? "\n    " : ",\n    ");
      put_json_string(out, warnings[i]);
    }
    out.put("\n  ]");
  }
  out.put("\n}\n");
}

}  // namespace etkit::inspect::detail
