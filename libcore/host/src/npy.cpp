#include "etkit/host/npy.h"

#include "etkit/host/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "etkit/runtime/data_loader.h"
#include "etkit/host/file_data_loader.h"

namespace etkit {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMagicLen = sizeof(kMagic);
// NumPy aligns the start of the data to this many bytes (numpy.lib.format.ARRAY_ALIGN).
constexpr size_t kArrayAlign = 64;
// NumPy >= 1.24 leaves room for the first axis to grow to this many digits in place
// (numpy.lib.format.GROWTH_AXIS_MAX_DIGITS); we write the same header it does.
constexpr size_t kGrowthAxisMaxDigits = 21;

uint32_t read_le(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// The dtype description strings etkit reads and writes. '<' is the little-endian spelling NumPy
// writes for multi-byte types, '|' the "not applicable" one for single bytes.
struct DtypeName {
  char kind;
  size_t size;
  ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {'b', 1, ScalarType::Bool},   {'i', 1, ScalarType::Char},    {'u', 1, ScalarType::Byte},
    {'i', 2, ScalarType::Short},  {'i', 4, ScalarType::Int},     {'i', 8, ScalarType::Long},
    {'u', 2, ScalarType::UInt16}, {'u', 4, ScalarType::UInt32},  {'u', 8, ScalarType::UInt64},
    {'f', 2, ScalarType::Half},   {'f', 4, ScalarType::Float},   {'f', 8, ScalarType::Double},
};

// Maps a 'descr' string such as "<f4" or "|b1" to a scalar type, or explains why it cannot.
Result<ScalarType> dtype_from_descr(std::string_view descr) {
  std::string_view rest = descr;
  char order = '=';
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.size() < 2 || rest.size() > 3) {
    return Error(ErrorCode::InvalidData, "unsupported dtype '%.*s'",
                 static_cast<int>(descr.size()), descr.data());
  }
  size_t size = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') {
      return Error(ErrorCode::InvalidData, "unsupported dtype '%.*s'",
                   static_cast<int>(descr.size()), descr.data());
    }
    size = size * 10 + static_cast<size_t>(c - '0');
  }
  for (const DtypeName& d : kDtypes) {
    if (d.kind != rest[0] || d.size != size) continue;
    if (size > 1 && order == '>') {
      return Error(ErrorCode::InvalidData,
                   "big-endian dtype '%.*s' is not supported (expected little-endian '<')",
                   static_cast<int>(descr.size()), descr.data());
    }
    if (size > 1 && order == '|') {
      return Error(ErrorCode::InvalidData,
                   "dtype '%.*s' has no byte order but is %zu bytes wide",
                   static_cast<int>(descr.size()), descr.data(), size);
    }
    return d.type;
  }
  return Error(ErrorCode::InvalidData,
               "unsupported dtype '%.*s' (supported: b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8)",
               static_cast<int>(descr.size()), descr.data());
}

const char* descr_of(ScalarType type) {
  switch (type) {
    case ScalarType::Bool: return "|b1";
    case ScalarType::Char: return "|i1";
    case ScalarType::Byte: return "|u1";
    case ScalarType::Short: return "<i2";
    case ScalarType::Int: return "<i4";
    case ScalarType::Long: return "<i8";
    case ScalarType::UInt16: return "<u2";
    case ScalarType::UInt32: return "<u4";
    case ScalarType::UInt64: return "<u8";
    case ScalarType::Half: return "<f2";
    case ScalarType::Float: return "<f4";
    case ScalarType::Double: return "<f8";
    default: return nullptr;
  }
}

// The header is a Python dict literal written by `repr`. This reads the subset NumPy writes and
// what hand-written files plausibly contain: either quote style, any whitespace, trailing commas,
// `(3,)`, `()` and Python 2 long suffixes (`3L`).
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Error parse(std::string* descr, bool* fortran_order, std::vector<int32_t>* shape) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    if (!eat('{')) return fail("expected '{' at the start of the header");
    while (true) {
      skip_space();
      if (eat('}')) break;
      std::string key;
      ETKIT_TRY(parse_string(&key, "a key"));
      skip_space();
      if (!eat(':')) return fail("expected ':' after key '%s'", key.c_str());
      skip_space();
      if (key == "descr") {
        if (have_descr) return fail("duplicate key 'descr'");
        if (peek() == '[') {
          return Error(ErrorCode::InvalidData,
                       "unsupported dtype: structured arrays (descr is a list) are not supported");
        }
        ETKIT_TRY(parse_string(descr, "the 'descr' string"));
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return fail("duplicate key 'fortran_order'");
        if (eat_word("True")) {
          *fortran_order = true;
        } else if (eat_word("False")) {
          *fortran_order = false;
        } else {
          return fail("expected True or False for 'fortran_order'");
        }
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return fail("duplicate key 'shape'");
        ETKIT_TRY(parse_shape(shape));
        have_shape = true;
      } else {
        return fail("unexpected key '%s' (expected 'descr', 'fortran_order', 'shape')",
                    key.c_str());
      }
      skip_space();
      if (eat(',')) continue;
      if (eat('}')) break;
      return fail("expected ',' or '}' after the value of '%s'", key.c_str());
    }
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text after the closing '}'");
    if (!have_descr) return fail("missing key 'descr'");
    if (!have_order) return fail("missing key 'fortran_order'");
    if (!have_shape) return fail("missing key 'shape'");
    return Error();
  }

 private:
  Error fail(const char* format, ...) __attribute__((format(printf, 2, 3))) {
    char what[160];
    va_list args;
    va_start(args, format);
    std::vsnprintf(what, sizeof(what), format, args);
    va_end(args);
    return Error(ErrorCode::InvalidData, "malformed header at character %zu: %s", pos_, what);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool eat_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  Error parse_string(std::string* out, const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return fail("expected %s in quotes", what);
    ++pos_;
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return fail("unterminated string");
    out->assign(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return Error();
  }
  Error parse_shape(std::vector<int32_t>* shape) {
    shape->clear();
    if (!eat('(')) return fail("expected '(' to start 'shape'");
    while (true) {
      skip_space();
      if (eat(')')) return Error();
      if (peek() < '0' || peek() > '9') return fail("expected a non-negative integer in 'shape'");
      uint64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        value = value * 10 + static_cast<uint64_t>(peek() - '0');
        if (value > INT32_MAX) {
          return Error(ErrorCode::InvalidData,
                       "malformed header: dimension %zu of 'shape' exceeds %d", shape->size(),
                       INT32_MAX);
        }
        ++pos_;
      }
      eat('L');
      if (shape->size() == static_cast<size_t>(kMaxRank)) {
        return Error(ErrorCode::InvalidData, "malformed header: 'shape' has more than %d dims",
                     kMaxRank);
      }
      shape->push_back(static_cast<int32_t>(value));
      skip_space();
      if (eat(')')) return Error();
      if (!eat(',')) return fail("expected ',' or ')' in 'shape'");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string shape_repr(std::span<const int32_t> sizes) {
  // Python's repr of a tuple: (), (3,), (2, 3).
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) s += ",";
  s += ")";
  return s;
}

}  // namespace

Result<HostTensor> parse_npy(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    return Error(ErrorCode::InvalidData, "not a .npy file: missing the \\x93NUMPY magic at byte 0");
  }
  const uint8_t major = bytes[6];
  const uint8_t minor = bytes[7];
  size_t len_bytes = 0;
  if (major == 1 && minor == 0) {
    len_bytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    len_bytes = 4;
  } else {
    return Error(ErrorCode::InvalidData,
                 "unsupported .npy format version %u.%u (expected 1.0, 2.0 or 3.0)", major, minor);
  }
  const size_t prelude = kMagicLen + 2 + len_bytes;
  if (bytes.size() < prelude) {
    return Error(ErrorCode::InvalidData, "file is %zu bytes, too short for a version %u.0 preamble",
                 bytes.size(), major);
  }
  const size_t header_len = read_le(bytes.data() + kMagicLen + 2, len_bytes);
  if (header_len > bytes.size() - prelude) {
    return Error(ErrorCode::InvalidData,
                 "header of %zu bytes at offset %zu extends past the end of the file (%zu bytes)",
                 header_len, prelude, bytes.size());
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data() + prelude), header_len);

  std::string descr;
  bool fortran_order = false;
  std::vector<int32_t> shape;
  ETKIT_TRY(HeaderParser(header).parse(&descr, &fortran_order, &shape));
  if (fortran_order) {
    return Error(ErrorCode::InvalidData,
                 "fortran_order True is not supported (save a C-order array, e.g. with "
                 "np.ascontiguousarray)");
  }
  ETKIT_ASSIGN_OR_RETURN(const ScalarType dtype, dtype_from_descr(descr));

  // Dimensions are below 2^31 and at most 16 of them, so the product fits in 128 bits but not
  // always 64: stop as soon as it exceeds what the file can hold.
  const size_t data_offset = prelude + header_len;
  const uint64_t available = bytes.size() - data_offset;
  uint64_t expected = element_size(dtype);
  bool zero = false;
  for (int32_t d : shape) zero = zero || d == 0;
  if (zero) expected = 0;
  bool partial = false;
  for (int32_t d : shape) {
    if (expected > available) {
      partial = true;
      break;
    }
    expected *= static_cast<uint64_t>(d);
  }
  if (expected > available) {
    return Error(ErrorCode::InvalidData,
                 "data is %llu bytes but shape %s of '%s' needs %s%llu bytes",
                 static_cast<unsigned long long>(available), shape_repr(shape).c_str(),
                 descr.c_str(), partial ? "at least " : "",
                 static_cast<unsigned long long>(expected));
  }
  if (expected < available) {
    return Error(ErrorCode::InvalidData,
                 "%llu extra bytes after the data (shape %s of '%s' needs %llu bytes)",
                 static_cast<unsigned long long>(available - expected), shape_repr(shape).c_str(),
                 descr.c_str(), static_cast<unsigned long long>(expected));
  }

  int32_t strides[kMaxRank];
  if (!compute_strides(shape, {kIdentityDimOrder, shape.size()}, {strides, shape.size()})) {
    return Error(ErrorCode::InvalidData, "shape %s has a stride beyond 2^31-1",
                 shape_repr(shape).c_str());
  }
  HostTensor out(dtype, shape);
  if (expected > 0) std::memcpy(out.data(), bytes.data() + data_offset, expected);
  if (dtype == ScalarType::Bool) {
    // NumPy writes 0/1; kernels rely on that, so normalize anything else.
    auto* p = static_cast<uint8_t*>(out.data());
    for (uint64_t i = 0; i < expected; ++i) p[i] = p[i] != 0 ? 1 : 0;
  }
  return out;
}

Result<HostTensor> read_npy(const std::string& path) {
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  Result<HostTensor> t = parse_npy(loader->data());
  if (!t.ok()) return t.error().with_context("%s", path.c_str());
  return t;
}

Result<std::vector<uint8_t>> encode_npy(const Tensor& t) {
  const char* descr = descr_of(t.dtype());
  if (descr == nullptr) {
    return Error(ErrorCode::NotSupported, "NumPy has no dtype for %s tensors",
                 scalar_type_name(t.dtype()));
  }
  if (t.data() == nullptr && t.nbytes() > 0) {
    return Error(ErrorCode::InvalidArgument, "tensor has no data");
  }

  std::string header = "{'descr': '";
  header += descr;
  header += "', 'fortran_order': False, 'shape': ";
  header += shape_repr(t.sizes());
  header += ", }";
  if (t.dim() > 0) {
    const size_t digits = std::to_string(t.sizes()[0]).size();
    header.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // As numpy.lib.format._wrap_header: pad with spaces and a final newline so the data starts on
  // a 64-byte boundary (a whole extra block when it is already aligned).
  const size_t hlen = header.size() + 1;
  const size_t pad = kArrayAlign - (kMagicLen + 2 + 2 + hlen) % kArrayAlign;
  header.append(pad, ' ');
  header += '\n';
  if (header.size() > UINT16_MAX) {
    return Error(ErrorCode::Internal, "npy header of %zu bytes does not fit version 1.0",
                 header.size());
  }

  const size_t elem = t.element_size();
  std::vector<uint8_t> out;
  out.reserve(kMagicLen + 4 + header.size() + t.nbytes());
  out.insert(out.end(), kMagic, kMagic + kMagicLen);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());

  const auto* src = static_cast<const uint8_t*>(t.data());
  if (t.numel() == 0) return out;
  if (t.is_contiguous()) {
    out.insert(out.end(), src, src + t.nbytes());
    return out;
  }
  // Walk the logical indices in C order and fetch each element through the strides.
  const size_t rank = static_cast<size_t>(t.dim());
  int32_t index[kMaxRank] = {};
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += static_cast<int64_t>(index[d]) * t.strides()[d];
    const uint8_t* p = src + static_cast<size_t>(offset) * elem;
    out.insert(out.end(), p, p + elem);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Error write_npy(const std::string& path, const Tensor& t) {
  ETKIT_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, encode_npy(t));
  return write_file_atomic(path, bytes);
}

}  // namespace etkit
