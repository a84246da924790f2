#include "etkit/inspect/delegate_metadata.h"

#include <cstdint>
#include <cstring>
#include <set>

namespace etkit::inspect {

namespace {

struct TypeName {
  const char* name;
  MetadataType type;
};
constexpr TypeName kTypes[] = {
    {"u8", MetadataType::U8},   {"u16", MetadataType::U16}, {"u32", MetadataType::U32},
    {"u64", MetadataType::U64}, {"i8", MetadataType::I8},   {"i16", MetadataType::I16},
    {"i32", MetadataType::I32}, {"i64", MetadataType::I64}, {"f32", MetadataType::F32},
    {"f64", MetadataType::F64}};

bool valid_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

// Little-endian unsigned value of `n` bytes at `p`.
uint64_t load_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

bool valid_utf8(std::span<const uint8_t> s) {
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = s[i];
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size() || (s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

}  // namespace

size_t metadata_type_size(MetadataType type) {
  switch (type) {
    case MetadataType::U8:
    case MetadataType::I8: return 1;
    case MetadataType::U16:
    case MetadataType::I16: return 2;
    case MetadataType::U32:
    case MetadataType::I32:
    case MetadataType::F32: return 4;
    case MetadataType::U64:
    case MetadataType::I64:
    case MetadataType::F64: return 8;
  }
  return 1;
}

std::vector<std::string> MetadataLayout::columns() const {
  if (kind != Kind::Fields) return {"metadata"};
  std::vector<std::string> out;
  for (const MetadataField& f : fields) out.push_back(f.name);
  return out;
}

size_t MetadataLayout::size() const {
  size_t n = 0;
  for (const MetadataField& f : fields) n += metadata_type_size(f.type);
  return n;
}

Result<MetadataLayout> parse_metadata_layout(std::string_view text) {
  const std::string quoted(text);
  auto bad = [&](size_t field, const std::string& what) {
    const std::string where = field == 0 ? "" : "field " + std::to_string(field) + ": ";
    return Error(ErrorCode::InvalidArgument, "bad metadata layout '%s': %s%s", quoted.c_str(),
                 where.c_str(), what.c_str());
  };
  MetadataLayout layout;
  if (text == "hex") {
    layout.kind = MetadataLayout::Kind::Hex;
    return layout;
  }
  if (text == "utf8") {
    layout.kind = MetadataLayout::Kind::Utf8;
    return layout;
  }
  if (text.empty()) return bad(0, "empty (expected hex, utf8 or TYPE:NAME,...)");
  std::set<std::string> names;
  size_t number = 0;
  size_t pos = 0;
  while (true) {
    ++number;
    const size_t comma = text.find(',', pos);
    const std::string_view field =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (field.empty()) return bad(number, "empty field (expected TYPE:NAME)");
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos) {
      return bad(number, "'" + std::string(field) + "' is not TYPE:NAME");
    }
    const std::string_view type = field.substr(0, colon);
    const std::string_view name = field.substr(colon + 1);
    MetadataField f;
    bool known = false;
    for (const TypeName& t : kTypes) {
      if (type == t.name) {
        f.type = t.type;
        known = true;
      }
    }
    if (!known) {
      return bad(number, "unknown type '" + std::string(type) +
                             "' (expected u8, u16, u32, u64, i8, i16, i32, i64, f32 or f64)");
    }
    if (!valid_name(name)) {
      return bad(number, "bad name '" + std::string(name) +
                             "' (letters, digits and _, not starting with a digit)");
    }
    if (!names.insert(std::string(name)).second) {
      return bad(number, "name '" + std::string(name) + "' is repeated");
    }
    f.name = std::string(name);
    layout.fields.push_back(std::move(f));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return layout;
}

std::vector<Cell> decode_metadata(const MetadataLayout& layout, std::span<const uint8_t> bytes) {
  std::vector<Cell> out;
  if (layout.kind != MetadataLayout::Kind::Fields) {
    if (bytes.empty()) {
      out.emplace_back(std::monostate{});
    } else if (layout.kind == MetadataLayout::Kind::Hex) {
      static const char kDigits[] = "0123456789abcdef";
      std::string hex;
      for (uint8_t b : bytes) {
        hex += kDigits[b >> 4];
        hex += kDigits[b & 15];
      }
      out.emplace_back(std::move(hex));
    } else if (valid_utf8(bytes)) {
      out.emplace_back(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    } else {
      out.emplace_back(std::string("<not utf-8>"));
    }
    return out;
  }
  size_t at = 0;
  for (const MetadataField& f : layout.fields) {
    const size_t n = metadata_type_size(f.type);
    if (bytes.empty()) {
      out.emplace_back(std::monostate{});
      continue;
    }
    if (at + n > bytes.size()) {
      out.emplace_back(std::string("<short>"));
      at += n;
      continue;
    }
    const uint64_t v = load_le(bytes.data() + at, n);
    at += n;
    switch (f.type) {
      case MetadataType::U8:
      case MetadataType::U16:
      case MetadataType::U32: out.emplace_back(static_cast<int64_t>(v)); break;
      case MetadataType::U64:
        if (v > static_cast<uint64_t>(INT64_MAX)) {
          out.emplace_back(std::to_string(v));
        } else {
          out.emplace_back(static_cast<int64_t>(v));
        }
        break;
      case MetadataType::I8: out.emplace_back(static_cast<int64_t>(static_cast<int8_t>(v))); break;
      case MetadataType::I16:
        out.emplace_back(static_cast<int64_t>(static_cast<int16_t>(v)));
        break;
      case MetadataType::I32:
        out.emplace_back(static_cast<int64_t>(static_cast<int32_t>(v)));
        break;
      case MetadataType::I64: out.emplace_back(static_cast<int64_t>(v)); break;
      case MetadataType::F32: {
        const auto bits = static_cast<uint32_t>(v);
        float x;
        std::memcpy(&x, &bits, sizeof(x));
        out.emplace_back(static_cast<double>(x));
        break;
      }
      case MetadataType::F64: {
        double x;
        std::memcpy(&x, &v, sizeof(x));
        out.emplace_back(x);
        break;
      }
    }
  }
  return out;
}

}  // namespace etkit::inspect
