#include "etkit/host/npy.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "host_test_util.h"

namespace etkit {
namespace {

using test::contains;

// Builds a .npy file: magic, version, header length (2 or 4 bytes), header text, data. The header
// is used verbatim (tests control whitespace and padding).
std::vector<uint8_t> make_npy(const std::string& header, const std::vector<uint8_t>& data,
                              int major = 1, int minor = 0) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major),
                              static_cast<uint8_t>(minor)};
  const size_t n = header.size();
  out.push_back(static_cast<uint8_t>(n & 0xff));
  out.push_back(static_cast<uint8_t>((n >> 8) & 0xff));
  if (major >= 2) {
    out.push_back(static_cast<uint8_t>((n >> 16) & 0xff));
    out.push_back(static_cast<uint8_t>((n >> 24) & 0xff));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T>
std::vector<uint8_t> bytes_of(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

std::string dict(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
}

Error parse_error(const std::vector<uint8_t>& bytes) {
  Result<HostTensor> r = parse_npy(bytes);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

TEST_CASE("npy: reads every supported dtype") {
  struct Case {
    const char* descr;
    ScalarType type;
    std::vector<uint8_t> data;
    double second;  // value of element 1
  };
  const std::vector<Case> cases = {
      {"|b1", ScalarType::Bool, {1, 0, 1}, 0},
      {"|i1", ScalarType::Char, bytes_of<int8_t>({-1, -128, 127}), -128},
      {"<i1", ScalarType::Char, bytes_of<int8_t>({-1, -128, 127}), -128},
      {"|u1", ScalarType::Byte, bytes_of<uint8_t>({0, 255, 7}), 255},
      {"<i2", ScalarType::Short, bytes_of<int16_t>({1, -300, 3}), -300},
      {"<u2", ScalarType::UInt16, bytes_of<uint16_t>({1, 65535, 3}), 65535},
      {"<i4", ScalarType::Int, bytes_of<int32_t>({1, -70000, 3}), -70000},
      {"=i4", ScalarType::Int, bytes_of<int32_t>({1, -70000, 3}), -70000},
      {"<u4", ScalarType::UInt32, bytes_of<uint32_t>({1, 4000000000u, 3}), 4000000000.0},
      {"<i8", ScalarType::Long, bytes_of<int64_t>({1, -5000000000LL, 3}), -5000000000.0},
      {"<u8", ScalarType::UInt64, bytes_of<uint64_t>({1, 5000000000ULL, 3}), 5000000000.0},
      {"<f2", ScalarType::Half, bytes_of<uint16_t>({0x3c00, 0xc100, 0}), -2.5},
      {"<f4", ScalarType::Float, bytes_of<float>({1.5f, -0.25f, 3}), -0.25},
      {"<f8", ScalarType::Double, bytes_of<double>({1.5, 1e300, 3}), 1e300},
  };
  for (const Case& c : cases) {
    CAPTURE(c.descr);
    Result<HostTensor> r = parse_npy(make_npy(dict(c.descr, "(3,)"), c.data));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().dtype() == c.type);
    REQUIRE(r->tensor().dim() == 1);
    CHECK(r->tensor().size(0) == 3);
    CHECK(read_element_as_double(r->tensor(), 1) == c.second);
    CHECK(std::memcmp(r->data(), c.data.data(), c.data.size()) == 0);
  }
}

TEST_CASE("npy: header versions 1.0, 2.0 and 3.0") {
  const auto data = bytes_of<int32_t>({1, 2, 3, 4, 5, 6});
  for (int major : {1, 2, 3}) {
    CAPTURE(major);
    Result<HostTensor> r = parse_npy(make_npy(dict("<i4", "(2, 3)"), data, major));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    REQUIRE(r->tensor().dim() == 2);
    CHECK(r->tensor().size(0) == 2);
    CHECK(r->tensor().size(1) == 3);
    CHECK(read_element_as_double(r->tensor(), 5) == 6);
  }
}

TEST_CASE("npy: header dict parsing is tolerant of spelling") {
  const auto data = bytes_of<float>({1, 2, 3, 4});
  const std::vector<std::string> headers = {
      // What NumPy writes, padded with spaces.
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }                    \n",
      // No trailing comma, no spaces, keys in another order.
      "{'shape':(2,2),'fortran_order':False,'descr':'<f4'}",
      // Double quotes, tabs and newlines, a trailing comma inside the tuple.
      "{\n\t\"descr\" : \"<f4\" ,\n\t\"fortran_order\" : False ,\n\t\"shape\" : ( 2 , 2 , ) ,\n}\n",
      // Python 2 long suffixes.
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 2L), }\n",
  };
  for (const std::string& h : headers) {
    CAPTURE(h);
    Result<HostTensor> r = parse_npy(make_npy(h, data));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().dim() == 2);
    CHECK(r->tensor().numel() == 4);
  }
}

TEST_CASE("npy: rank 0, rank 1 and empty shapes") {
  SUBCASE("() is a scalar") {
    Result<HostTensor> r = parse_npy(make_npy(dict("<f8", "()"), bytes_of<double>({42.5})));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().dim() == 0);
    CHECK(r->tensor().numel() == 1);
    CHECK(read_element_as_double(r->tensor(), 0) == 42.5);
  }
  SUBCASE("(3,) is rank 1") {
    Result<HostTensor> r = parse_npy(make_npy(dict("<i8", "(3,)"), bytes_of<int64_t>({7, 8, 9})));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().dim() == 1);
    CHECK(read_element_as_double(r->tensor(), 2) == 9);
  }
  SUBCASE("a zero-size dimension needs no data") {
    Result<HostTensor> r = parse_npy(make_npy(dict("<f4", "(0, 5)"), {}));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().numel() == 0);
    CHECK(r->tensor().size(1) == 5);
  }
}

TEST_CASE("npy: bool bytes are normalized to 0 and 1") {
  Result<HostTensor> r = parse_npy(make_npy(dict("|b1", "(2,)"), {0, 7}));
  REQUIRE(r.ok());
  CHECK(static_cast<const uint8_t*>(r->data())[1] == 1);
}

TEST_CASE("npy: bad magic, version and truncated preamble") {
  SUBCASE("bad magic") {
    auto b = make_npy(dict("<f4", "(1,)"), bytes_of<float>({1}));
    b[1] = 'X';
    const Error e = parse_error(b);
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(contains(e.message(), "magic"));
  }
  SUBCASE("empty input") {
    const Error e = parse_error({});
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(contains(e.message(), "not a .npy file"));
  }
  SUBCASE("unsupported version") {
    const Error e = parse_error(make_npy(dict("<f4", "(1,)"), bytes_of<float>({1}), 4));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(contains(e.message(), "version 4.0"));
    const Error e2 = parse_error(make_npy(dict("<f4", "(1,)"), bytes_of<float>({1}), 1, 1));
    CHECK(contains(e2.message(), "version 1.1"));
  }
  SUBCASE("truncated header length of a 2.0 file") {
    const std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 10, 0};
    const Error e = parse_error(b);
    CHECK(contains(e.message(), "too short"));
  }
  SUBCASE("header longer than the file") {
    auto b = make_npy(dict("<f4", "(1,)"), {});
    b.resize(b.size() - 5);
    const Error e = parse_error(b);
    CHECK(contains(e.message(), "extends past the end of the file"));
  }
}

TEST_CASE("npy: malformed headers name the problem") {
  struct Case {
    std::string header;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"'descr': '<f4'}", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"},
      {"{'descr': '<f4', 'shape': (1,)}", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unexpected key"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "duplicate key"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", "expected '('"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3000000000,)}", "exceeds"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (1,)}", "in quotes"},
      {"{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}", "expected ':'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", "after the closing"},
      {"{'descr': '<f4", "unterminated"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
       "more than 16"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.header);
    const Error e = parse_error(make_npy(c.header, bytes_of<float>({1})));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK_MESSAGE(contains(e.message(), c.expect), e.message());
  }
}

TEST_CASE("npy: fortran order and unsupported dtypes are refused") {
  SUBCASE("fortran_order True") {
    const Error e = parse_error(make_npy(
        "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", bytes_of<float>({1, 2, 3, 4})));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(contains(e.message(), "fortran_order True"));
  }
  SUBCASE("big-endian multi-byte types") {
    const Error e = parse_error(make_npy(dict(">f4", "(1,)"), bytes_of<float>({1})));
    CHECK(contains(e.message(), "big-endian dtype '>f4'"));
    const Error e2 = parse_error(make_npy(dict(">i8", "(1,)"), bytes_of<int64_t>({1})));
    CHECK(contains(e2.message(), "'>i8'"));
  }
  SUBCASE("big-endian single bytes are fine") {
    Result<HostTensor> r = parse_npy(make_npy(dict(">u1", "(1,)"), {9}));
    REQUIRE(r.ok());
    CHECK(r->tensor().dtype() == ScalarType::Byte);
  }
  SUBCASE("no byte order on a multi-byte type") {
    const Error e = parse_error(make_npy(dict("|f4", "(1,)"), bytes_of<float>({1})));
    CHECK(contains(e.message(), "no byte order"));
  }
  SUBCASE("unknown dtypes name themselves") {
    for (const char* descr : {"<c8", "<U10", "|O", "<M8[ns]", "<f16", "<x4", "<f"}) {
      CAPTURE(descr);
      const Error e = parse_error(make_npy(dict(descr, "(1,)"), bytes_of<float>({1})));
      CHECK(e.code() == ErrorCode::InvalidData);
      CHECK(contains(e.message(), (std::string("unsupported dtype '") + descr + "'").c_str()));
    }
  }
  SUBCASE("structured dtypes") {
    const Error e = parse_error(make_npy(
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", bytes_of<float>({1})));
    CHECK(contains(e.message(), "structured"));
  }
}

TEST_CASE("npy: data size must match the shape exactly") {
  SUBCASE("short data says expected vs actual") {
    const Error e = parse_error(make_npy(dict("<i4", "(2, 3)"), bytes_of<int32_t>({1, 2, 3})));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK_MESSAGE(contains(e.message(), "data is 12 bytes but shape (2, 3) of '<i4' needs 24 bytes"),
                  e.message());
  }
  SUBCASE("an absurd shape does not overflow") {
    const Error e = parse_error(make_npy(
        dict("<f8", "(2147483647, 2147483647, 2147483647, 2147483647)"), bytes_of<double>({1})));
    CHECK_MESSAGE(contains(e.message(), "needs at least"), e.message());
  }
  SUBCASE("an empty array whose other dimensions overflow the strides is refused") {
    // A fuzzer's find: no elements, so no data, but the strides would pass 2^31.
    const Error e = parse_error(make_npy(dict("<f4", "(0, 65536, 65536)"), {}));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK_MESSAGE(contains(e.message(), "shape (0, 65536, 65536) has a stride beyond 2^31-1"),
                  e.message());
    Result<HostTensor> r = parse_npy(make_npy(dict("<f4", "(0, 32767, 65536)"), {}));
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    CHECK(r->tensor().numel() == 0);
  }
  SUBCASE("extra bytes after the data") {
    const Error e = parse_error(make_npy(dict("<i4", "(2,)"), bytes_of<int32_t>({1, 2, 3})));
    CHECK_MESSAGE(contains(e.message(), "4 extra bytes after the data"), e.message());
  }
}

TEST_CASE("npy: encode writes NumPy's header layout") {
  const int32_t sizes[] = {2, 3};
  HostTensor t = HostTensor::from<float>(ScalarType::Float, sizes, {1, 2, 3, 4, 5, 6});
  Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
  REQUIRE(r.ok());
  const std::vector<uint8_t>& b = *r;
  const size_t header_len = static_cast<size_t>(b[8] | (b[9] << 8));
  CHECK(b[6] == 1);
  CHECK(b[7] == 0);
  CHECK((10 + header_len) % 64 == 0);
  CHECK(b.size() == 10 + header_len + 24);
  const std::string header(b.begin() + 10, b.begin() + 10 + static_cast<long>(header_len));
  CHECK(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(header.back() == '\n');
  // NumPy >= 1.24 leaves room for the first dimension to grow to 21 digits.
  CHECK(header_len == 118);

  Result<HostTensor> back = parse_npy(b);
  REQUIRE(back.ok());
  CHECK(back->tensor().dtype() == ScalarType::Float);
  CHECK(std::memcmp(back->data(), t.data(), 24) == 0);
}

TEST_CASE("npy: encode shapes () and (3,)") {
  SUBCASE("rank 0") {
    HostTensor t = HostTensor::from<double>(ScalarType::Double, {}, {2.5});
    Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
    REQUIRE(r.ok());
    const std::string text(r->begin(), r->end());
    CHECK(text.find("'shape': (), }") != std::string::npos);
    Result<HostTensor> back = parse_npy(*r);
    REQUIRE(back.ok());
    CHECK(back->tensor().dim() == 0);
    CHECK(read_element_as_double(back->tensor(), 0) == 2.5);
  }
  SUBCASE("rank 1") {
    const int32_t sizes[] = {3};
    HostTensor t = HostTensor::from<int>(ScalarType::Long, sizes, {1, 2, 3});
    Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
    REQUIRE(r.ok());
    const std::string text(r->begin(), r->end());
    CHECK(text.find("'descr': '<i8'") != std::string::npos);
    CHECK(text.find("'shape': (3,), }") != std::string::npos);
  }
}

TEST_CASE("npy: encode round-trips every dtype") {
  const ScalarType types[] = {ScalarType::Bool,   ScalarType::Char,   ScalarType::Byte,
                              ScalarType::Short,  ScalarType::Int,    ScalarType::Long,
                              ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64,
                              ScalarType::Half,   ScalarType::Float,  ScalarType::Double};
  const int32_t sizes[] = {2, 2};
  for (ScalarType type : types) {
    CAPTURE(scalar_type_name(type));
    HostTensor t = HostTensor::from<int>(type, sizes, {0, 1, 1, 0});
    Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
    REQUIRE(r.ok());
    Result<HostTensor> back = parse_npy(*r);
    REQUIRE_MESSAGE(back.ok(), back.error().message());
    CHECK(back->tensor().dtype() == type);
    CHECK(back->nbytes() == t.nbytes());
    CHECK(std::memcmp(back->data(), t.data(), t.nbytes()) == 0);
  }
}

TEST_CASE("npy: encode writes C order for any dim order") {
  // Logical [[1, 2, 3], [4, 5, 6]] stored column-major (dim order [1, 0]).
  const int32_t sizes[] = {2, 3};
  const uint8_t dim_order[] = {1, 0};
  HostTensor t(ScalarType::Int, sizes, dim_order);
  REQUIRE(t.tensor().strides()[0] == 1);
  REQUIRE(t.tensor().strides()[1] == 2);
  const int32_t memory[] = {1, 4, 2, 5, 3, 6};
  std::memcpy(t.data(), memory, sizeof(memory));
  Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
  REQUIRE(r.ok());
  Result<HostTensor> back = parse_npy(*r);
  REQUIRE(back.ok());
  CHECK(back->tensor().is_contiguous());
  for (int i = 0; i < 6; ++i) CHECK(read_element_as_double(back->tensor(), i) == i + 1);
}

TEST_CASE("npy: encode refuses dtypes NumPy cannot name") {
  const int32_t sizes[] = {2};
  HostTensor t(ScalarType::BFloat16, sizes);
  Result<std::vector<uint8_t>> r = encode_npy(t.tensor());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::NotSupported);
  CHECK(contains(r.error().message(), "bfloat16"));
}

TEST_CASE("npy: write_npy and read_npy through a file") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("etkit-npy-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "x.npy").string();
  const int32_t sizes[] = {3};
  HostTensor t = HostTensor::from<float>(ScalarType::Float, sizes, {0.5f, -1, 8});

  REQUIRE(write_npy(path, t.tensor()).ok());
  // The temporary file was renamed into place.
  CHECK_FALSE(std::filesystem::exists(path + ".tmp-" + std::to_string(::getpid())));
  Result<HostTensor> back = read_npy(path);
  REQUIRE_MESSAGE(back.ok(), back.error().message());
  CHECK(read_element_as_double(back->tensor(), 2) == 8);

  SUBCASE("read errors name the file") {
    const std::string bad = (dir / "bad.npy").string();
    std::FILE* f = std::fopen(bad.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs("not numpy", f);
    std::fclose(f);
    Result<HostTensor> r = read_npy(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == ErrorCode::InvalidData);
    CHECK(contains(r.error().message(), "bad.npy: not a .npy file"));
  }
  SUBCASE("missing file") {
    Result<HostTensor> r = read_npy((dir / "missing.npy").string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == ErrorCode::AccessFailed);
    CHECK(contains(r.error().message(), "missing.npy"));
  }
  SUBCASE("unwritable destination") {
    const Error e = write_npy((dir / "no-such-dir" / "y.npy").string(), t.tensor());
    CHECK(e.code() == ErrorCode::AccessFailed);
    CHECK(contains(e.message(), "no-such-dir/y.npy: cannot write"));
  }
  SUBCASE("write propagates encode errors") {
    HostTensor bf(ScalarType::BFloat16, sizes);
    CHECK(write_npy(path, bf.tensor()).code() == ErrorCode::NotSupported);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etkit
