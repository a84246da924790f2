#include "etkit/host/bundled_program.h"

#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <string>
#include <vector>

#include "host_test_util.h"

namespace etkit {
namespace {

using test::AlignedBytes;
using test::contains;

constexpr const char* kBundle = "real/bpte/et-bundled-add-mul.bpte";

// BundledProgram keeps pointers into the bytes (not into the loader): tests keep `bytes` alive.
Result<BundledProgram> load_bytes(const AlignedBytes& bytes) {
  BufferDataLoader loader(bytes.span());
  return BundledProgram::load(loader);
}

Error load_error(const std::vector<uint8_t>& bytes) {
  AlignedBytes aligned(bytes);
  Result<BundledProgram> r = load_bytes(aligned);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

std::vector<int32_t> ints(const BundledValue& v) {
  std::vector<int32_t> out(v.data.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), v.data.size());
  return out;
}

// --- Building bundles for the error cases (field ids as in formats.md section 4). ---

using TableOffset = flatbuffers::Offset<flatbuffers::Table>;
flatbuffers::voffset_t slot(int id) { return static_cast<flatbuffers::voffset_t>(4 + 2 * id); }

struct TensorSpec {
  int8_t dtype = 3;  // INT
  std::vector<int32_t> sizes;
  std::vector<uint8_t> data;
  std::vector<uint8_t> dim_order;
};

// One suite "forward" with one case holding `inputs` (a Value with val_type `type`); tensors
// come from `tensor`, Int from `int_value`.
std::vector<uint8_t> make_bundle(uint8_t type, const TensorSpec& tensor, int64_t int_value,
                                 bool with_program = true, bool with_val = true) {
  flatbuffers::FlatBufferBuilder b;
  TableOffset val;
  if (type == 1) {
    const auto sizes = b.CreateVector(tensor.sizes);
    b.ForceVectorAlignment(tensor.data.size(), 1, 16);
    const auto data = b.CreateVector(tensor.data);
    const auto order = b.CreateVector(tensor.dim_order);
    const auto start = b.StartTable();
    b.AddOffset(slot(1), sizes);
    b.AddOffset(slot(2), data);
    b.AddOffset(slot(3), order);
    b.AddElement<int8_t>(slot(0), tensor.dtype, -1);
    val = TableOffset(b.EndTable(start));
  } else {
    const auto start = b.StartTable();
    b.AddElement<int64_t>(slot(0), int_value, 1);
    val = TableOffset(b.EndTable(start));
  }
  auto start = b.StartTable();
  if (with_val) b.AddOffset(slot(1), val);
  b.AddElement<uint8_t>(slot(0), type, 0);
  const TableOffset value(b.EndTable(start));
  const auto inputs = b.CreateVector(std::vector<TableOffset>{value});
  start = b.StartTable();
  b.AddOffset(slot(0), inputs);
  const TableOffset test_case(b.EndTable(start));
  const auto cases = b.CreateVector(std::vector<TableOffset>{test_case});
  const auto name = b.CreateString("forward");
  start = b.StartTable();
  b.AddOffset(slot(0), name);
  b.AddOffset(slot(1), cases);
  const TableOffset suite(b.EndTable(start));
  const auto suites = b.CreateVector(std::vector<TableOffset>{suite});
  const std::vector<uint8_t> program = {1, 2, 3, 4, 'E', 'T', '1', '2'};
  b.ForceVectorAlignment(program.size(), 1, 32);
  const auto program_vec = b.CreateVector(program);
  start = b.StartTable();
  b.AddOffset(slot(1), suites);
  if (with_program) b.AddOffset(slot(2), program_vec);
  b.AddElement<uint32_t>(slot(0), 2, 0);
  b.Finish(TableOffset(b.EndTable(start)), "BP08");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// --- The real file. ---

TEST_CASE("bundled_program: fixture et-bundled-add-mul.bpte") {
  AlignedBytes bytes(test::read_fixture(kBundle));
  CHECK(BundledProgram::is_bundled_program(bytes.span()));
  Result<BundledProgram> bundle = load_bytes(bytes);
  REQUIRE_MESSAGE(bundle.ok(), bundle.error().message());

  // The embedded program: 1696 bytes at file offset 64, a root offset then ET12.
  const std::span<const uint8_t> program = bundle->program_data();
  CHECK(program.data() - bytes.span().data() == 64);
  CHECK(program.size() == 1696);
  CHECK(std::memcmp(program.data() + 4, "ET12", 4) == 0);
  CHECK(std::memcmp(program.data() + 8, "eh00", 4) == 0);

  REQUIRE(bundle->num_suites() == 1);
  CHECK(bundle->suite_method(0) == "forward");
  REQUIRE(bundle->num_cases(0) == 10);
  for (size_t c = 0; c < 10; ++c) {
    CAPTURE(c);
    REQUIRE(bundle->num_inputs(0, c) == 2);
    REQUIRE(bundle->num_expected_outputs(0, c) == 1);
    Result<BundledValue> x = bundle->input(0, c, 0);
    Result<BundledValue> y = bundle->input(0, c, 1);
    Result<BundledValue> out = bundle->expected_output(0, c, 0);
    REQUIRE(x.ok());
    REQUIRE(y.ok());
    REQUIRE(out.ok());
    for (const BundledValue* v : {&*x, &*y, &*out}) {
      CHECK(v->tag == Tag::Tensor);
      CHECK(v->dtype == ScalarType::Int);
      CHECK(std::vector<int32_t>(v->sizes.begin(), v->sizes.end()) == std::vector<int32_t>{2, 2});
      CHECK(std::vector<uint8_t>(v->dim_order.begin(), v->dim_order.end()) ==
            std::vector<uint8_t>{0, 1});
      CHECK(v->data.size() == 16);
    }
    // Every case of this fixture has all-zero inputs and expects all 2s. The program computes
    // 3 * x + 2 + y (formats.md / PROVENANCE), which the stored values satisfy.
    CHECK(ints(*x) == std::vector<int32_t>{0, 0, 0, 0});
    CHECK(ints(*y) == std::vector<int32_t>{0, 0, 0, 0});
    CHECK(ints(*out) == std::vector<int32_t>{2, 2, 2, 2});
    for (size_t i = 0; i < 4; ++i) CHECK(ints(*out)[i] == 3 * ints(*x)[i] + 2 + ints(*y)[i]);
  }
}

TEST_CASE("bundled_program: to_host_tensor and check_output on the fixture") {
  AlignedBytes bytes(test::read_fixture(kBundle));
  Result<BundledProgram> bundle = load_bytes(bytes);
  REQUIRE(bundle.ok());
  Result<BundledValue> expected = bundle->expected_output(0, 0, 0);
  REQUIRE(expected.ok());

  HostTensor actual = to_host_tensor(*expected);
  CHECK(actual.tensor().dtype() == ScalarType::Int);
  CHECK(actual.tensor().dim() == 2);
  CHECK(actual.nbytes() == 16);
  CHECK(read_element_as_double(actual.tensor(), 3) == 2);

  const EValue value = EValue::from_tensor(&actual.tensor());
  OutputCheck same = check_output(value, *expected);
  CHECK(same.ok);
  CHECK(same.detail.empty());

  write_element_from_double(actual.tensor(), 3, 5);
  OutputCheck differs = check_output(value, *expected);
  CHECK_FALSE(differs.ok);
  CHECK(differs.detail == "element 3: 5 != 2");
}

// --- check_output semantics on hand-made values. ---

BundledValue float_value(ScalarType dtype, const std::vector<int32_t>& sizes,
                         const std::vector<uint8_t>& dim_order, const HostTensor& storage) {
  BundledValue v;
  v.tag = Tag::Tensor;
  v.dtype = dtype;
  v.sizes = sizes;
  v.dim_order = dim_order;
  v.data = {static_cast<const uint8_t*>(storage.data()), storage.nbytes()};
  return v;
}

TEST_CASE("bundled_program: check_output compares floats with tolerances") {
  const std::vector<int32_t> sizes = {4};
  const std::vector<uint8_t> order = {0};
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HostTensor want = HostTensor::from<float>(ScalarType::Float, sizes, {1.0f, 100.0f, nan, inf});
  const BundledValue expected = float_value(ScalarType::Float, sizes, order, want);

  SUBCASE("within atol + rtol * |expected|, NaN == NaN, same-sign infinities") {
    HostTensor got = HostTensor::from<float>(ScalarType::Float, sizes, {1.0f, 100.0009f, nan, inf});
    CHECK(check_output(EValue::from_tensor(&got.tensor()), expected).ok);
  }
  SUBCASE("outside the tolerance") {
    HostTensor got = HostTensor::from<float>(ScalarType::Float, sizes, {1.0f, 100.01f, nan, inf});
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()), expected);
    CHECK_FALSE(r.ok);
    CHECK_MESSAGE(contains(r.detail.c_str(), "element 1: 100.01 != 100 (atol 1e-08, rtol 1e-05)"),
                  r.detail);
  }
  SUBCASE("custom tolerances") {
    HostTensor got = HostTensor::from<float>(ScalarType::Float, sizes, {1.5f, 100.0f, nan, inf});
    CHECK_FALSE(check_output(EValue::from_tensor(&got.tensor()), expected).ok);
    CHECK(check_output(EValue::from_tensor(&got.tensor()), expected, 0, 0.5).ok);
  }
  SUBCASE("exact when both tolerances are zero") {
    HostTensor got = HostTensor::from<float>(ScalarType::Float, sizes, {1.0f, 100.0f, nan, inf});
    CHECK(check_output(EValue::from_tensor(&got.tensor()), expected, 0, 0).ok);
    write_element_from_double(got.tensor(), 0, std::nextafter(1.0f, 2.0f));
    CHECK_FALSE(check_output(EValue::from_tensor(&got.tensor()), expected, 0, 0).ok);
  }
  SUBCASE("opposite infinities and NaN against a number differ") {
    HostTensor got = HostTensor::from<float>(ScalarType::Float, sizes, {1.0f, 100.0f, nan, -inf});
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()), expected);
    CHECK_FALSE(r.ok);
    CHECK(contains(r.detail.c_str(), "element 3"));
    HostTensor got2 = HostTensor::from<float>(ScalarType::Float, sizes, {nan, 100.0f, nan, inf});
    CHECK(contains(check_output(EValue::from_tensor(&got2.tensor()), expected).detail.c_str(),
                   "element 0"));
  }
}

TEST_CASE("bundled_program: check_output on double and half tensors") {
  const std::vector<int32_t> sizes = {2};
  const std::vector<uint8_t> order = {0};
  HostTensor want_d = HostTensor::from<double>(ScalarType::Double, sizes, {0.1, -3});
  HostTensor got_d = HostTensor::from<double>(ScalarType::Double, sizes, {0.1 + 1e-9, -3});
  CHECK(check_output(EValue::from_tensor(&got_d.tensor()),
                     float_value(ScalarType::Double, sizes, order, want_d))
            .ok);
  HostTensor want_h = HostTensor::from<double>(ScalarType::Half, sizes, {0.5, 2});
  HostTensor got_h = HostTensor::from<double>(ScalarType::Half, sizes, {0.5, 2.001953125});
  const OutputCheck r = check_output(EValue::from_tensor(&got_h.tensor()),
                                     float_value(ScalarType::Half, sizes, order, want_h));
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(contains(r.detail.c_str(), "element 1: 2.00195 != 2"), r.detail);
}

TEST_CASE("bundled_program: check_output requires equal dtype, sizes and strides") {
  const std::vector<int32_t> sizes = {2, 3};
  const std::vector<uint8_t> order = {0, 1};
  HostTensor want(ScalarType::Float, sizes);
  const BundledValue expected = float_value(ScalarType::Float, sizes, order, want);

  SUBCASE("dtype") {
    HostTensor got(ScalarType::Int, sizes);
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()), expected);
    CHECK_FALSE(r.ok);
    CHECK(r.detail == "dtype int32 != float32");
  }
  SUBCASE("sizes") {
    const int32_t other[] = {3, 2};
    HostTensor got(ScalarType::Float, other);
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()), expected);
    CHECK(r.detail == "sizes [3, 2] != [2, 3]");
  }
  SUBCASE("rank") {
    const int32_t other[] = {6};
    HostTensor got(ScalarType::Float, other);
    CHECK(check_output(EValue::from_tensor(&got.tensor()), expected).detail == "sizes [6] != [2, 3]");
  }
  SUBCASE("strides from a different dim order") {
    const uint8_t transposed[] = {1, 0};
    HostTensor got(ScalarType::Float, sizes, transposed);
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()), expected);
    CHECK(r.detail == "strides [1, 2] != [3, 1]");
  }
  SUBCASE("not a tensor") {
    const OutputCheck r = check_output(EValue::from_int(3), expected);
    CHECK(r.detail == "expected a tensor, got int");
  }
  SUBCASE("expected data of the wrong size") {
    BundledValue short_value = expected;
    short_value.data = short_value.data.first(8);
    HostTensor got(ScalarType::Float, sizes);
    CHECK(contains(check_output(EValue::from_tensor(&got.tensor()), short_value).detail.c_str(),
                   "expected data has 8 bytes, the output 24"));
  }
}

TEST_CASE("bundled_program: check_output compares other dtypes bytewise") {
  const std::vector<int32_t> sizes = {3};
  const std::vector<uint8_t> order = {0};
  SUBCASE("bool") {
    HostTensor want = HostTensor::from<int>(ScalarType::Bool, sizes, {1, 0, 1});
    HostTensor got = HostTensor::from<int>(ScalarType::Bool, sizes, {1, 1, 1});
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()),
                                       float_value(ScalarType::Bool, sizes, order, want));
    CHECK(r.detail == "element 1: 1 != 0");
  }
  SUBCASE("bfloat16 is not given a tolerance") {
    HostTensor want = HostTensor::from<double>(ScalarType::BFloat16, sizes, {1, 2, 3});
    HostTensor got = HostTensor::from<double>(ScalarType::BFloat16, sizes, {1, 2, 3.015625});
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()),
                                       float_value(ScalarType::BFloat16, sizes, order, want),
                                       1.0, 1.0);
    CHECK_FALSE(r.ok);
    CHECK(contains(r.detail.c_str(), "element 2"));
  }
  SUBCASE("long values print exactly") {
    HostTensor want = HostTensor::from<double>(ScalarType::Long, sizes, {1, 2, 1e15});
    HostTensor got = HostTensor::from<double>(ScalarType::Long, sizes, {1, 2, 1e15 + 1});
    const OutputCheck r = check_output(EValue::from_tensor(&got.tensor()),
                                       float_value(ScalarType::Long, sizes, order, want));
    CHECK(r.detail == "element 2: 1000000000000001 != 1000000000000000");
  }
  SUBCASE("zero-byte tensors compare equal") {
    const std::vector<int32_t> empty = {0, 4};
    const std::vector<uint8_t> order2 = {0, 1};
    HostTensor want(ScalarType::Int, empty);
    HostTensor got(ScalarType::Int, empty);
    CHECK(check_output(EValue::from_tensor(&got.tensor()),
                       float_value(ScalarType::Int, empty, order2, want))
              .ok);
  }
}

TEST_CASE("bundled_program: check_output on scalars") {
  BundledValue i;
  i.tag = Tag::Int;
  i.int_value = 7;
  CHECK(check_output(EValue::from_int(7), i).ok);
  CHECK(check_output(EValue::from_int(8), i).detail == "int 8 != 7");
  CHECK(check_output(EValue::from_double(7), i).detail == "expected an int, got double");

  BundledValue b;
  b.tag = Tag::Bool;
  b.bool_value = true;
  CHECK(check_output(EValue::from_bool(true), b).ok);
  CHECK(check_output(EValue::from_bool(false), b).detail == "bool false != true");

  BundledValue d;
  d.tag = Tag::Double;
  d.double_value = 0.5;
  CHECK(check_output(EValue::from_double(0.5), d).ok);
  // Scalars compare exactly: no tolerance.
  CHECK_FALSE(check_output(EValue::from_double(0.5 + 1e-12), d).ok);
  CHECK(check_output(EValue::from_int(1), d).detail == "expected a double, got int");
}

TEST_CASE("bundled_program: to_host_tensor of scalars is a rank-0 tensor") {
  BundledValue i;
  i.tag = Tag::Int;
  i.int_value = -9;
  HostTensor t = to_host_tensor(i);
  CHECK(t.tensor().dtype() == ScalarType::Long);
  CHECK(t.tensor().dim() == 0);
  CHECK(read_element_as_double(t.tensor(), 0) == -9);
  BundledValue d;
  d.tag = Tag::Double;
  d.double_value = 1.25;
  CHECK(read_element_as_double(to_host_tensor(d).tensor(), 0) == 1.25);
  BundledValue b;
  b.tag = Tag::Bool;
  b.bool_value = true;
  CHECK(read_element_as_double(to_host_tensor(b).tensor(), 0) == 1);
}

// --- Load errors. ---

TEST_CASE("bundled_program: identifier, truncation and verification errors") {
  const std::vector<uint8_t> good = test::read_fixture(kBundle);
  SUBCASE("a .pte is not a bundle") {
    const std::vector<uint8_t> pte = test::read_fixture("real/pte/et-add.pte");
    CHECK_FALSE(BundledProgram::is_bundled_program(pte));
    const Error e = load_error(pte);
    CHECK(e.code() == ErrorCode::InvalidProgram);
    CHECK(contains(e.message(), "identifier at bytes 4..7 is 'ET12', expected 'BP08'"));
  }
  SUBCASE("too short for an identifier") {
    CHECK_FALSE(BundledProgram::is_bundled_program({good.data(), 7}));
    CHECK(contains(load_error({good.begin(), good.begin() + 7}).message(), "file is 7 bytes"));
    CHECK(contains(load_error({}).message(), "file is 0 bytes"));
  }
  SUBCASE("truncated") {
    for (size_t n : {size_t{8}, size_t{40}, size_t{1000}, good.size() - 1}) {
      CAPTURE(n);
      const Error e = load_error({good.begin(), good.begin() + static_cast<long>(n)});
      CHECK(e.code() == ErrorCode::InvalidProgram);
      CHECK(contains(e.message(), "does not verify"));
    }
  }
  SUBCASE("root offset out of range") {
    auto b = good;
    test::put_u32(b, 0, 0xfffffff0u);
    CHECK(contains(load_error(b).message(), "does not verify"));
  }
  SUBCASE("no embedded program") {
    const Error e = load_error(make_bundle(2, {}, 1, /*with_program=*/false));
    CHECK(contains(e.message(), "has no embedded program"));
  }
}

TEST_CASE("bundled_program: malformed values and index errors") {
  SUBCASE("a well-formed built bundle") {
    AlignedBytes bytes(make_bundle(1, {3, {2}, {1, 0, 0, 0, 2, 0, 0, 0}, {0}}, 0));
    Result<BundledProgram> bundle = load_bytes(bytes);
    REQUIRE_MESSAGE(bundle.ok(), bundle.error().message());
    CHECK(bundle->program_data().size() == 8);
    CHECK((bundle->program_data().data() - bytes.span().data()) % 32 == 0);
    Result<BundledValue> v = bundle->input(0, 0, 0);
    REQUIRE(v.ok());
    CHECK(ints(*v) == std::vector<int32_t>{1, 2});

    SUBCASE("indices out of range") {
      for (auto [s, c, i] : {std::tuple{1, 0, 0}, std::tuple{0, 1, 0}, std::tuple{0, 0, 1}}) {
        Result<BundledValue> r = bundle->input(static_cast<size_t>(s), static_cast<size_t>(c),
                                               static_cast<size_t>(i));
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code() == ErrorCode::InvalidArgument);
      }
      Result<BundledValue> r = bundle->expected_output(0, 0, 0);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code() == ErrorCode::InvalidArgument);
      CHECK(contains(r.error().message(), "no expected output 0 in test case 0 of suite 0"));
      CHECK(bundle->suite_method(3).empty());
      CHECK(bundle->num_cases(3) == 0);
      CHECK(bundle->num_inputs(0, 5) == 0);
    }
  }
  SUBCASE("an Int value") {
    AlignedBytes bytes(make_bundle(2, {}, -42));
    Result<BundledProgram> bundle = load_bytes(bytes);
    REQUIRE(bundle.ok());
    Result<BundledValue> v = bundle->input(0, 0, 0);
    REQUIRE(v.ok());
    CHECK(v->tag == Tag::Int);
    CHECK(v->int_value == -42);
  }
  struct Bad {
    const char* name;
    uint8_t type;
    TensorSpec tensor;
    const char* expect;
  };
  const std::vector<Bad> bad = {
      {"unknown union tag", 9, {}, "value type 9 is not a Tensor, Int, Bool or Double"},
      {"union NONE", 0, {}, "value type 0"},
      {"data too short", 1, {3, {2, 2}, {0, 0, 0, 0}, {0, 1}},
       "tensor data is 4 bytes, expected 16"},
      {"invalid dtype", 1, {42, {1}, {0, 0, 0, 0}, {0}}, "invalid scalar_type 42"},
      {"dim order length", 1, {3, {1, 1}, {0, 0, 0, 0}, {0, 1, 2}}, "dim_order has 3 entries"},
      {"dim order not a permutation", 1, {3, {1, 1}, {0, 0, 0, 0}, {1, 1}}, "not a permutation"},
      {"negative size", 1, {3, {-1}, {}, {0}}, "negative size -1"},
      {"empty but strides overflow", 1, {3, {0, 65536, 65536}, {}, {0, 1, 2}},
       "sizes whose strides exceed 2^31-1"},
  };
  for (const Bad& c : bad) {
    CAPTURE(c.name);
    AlignedBytes bytes(make_bundle(c.type, c.tensor, 0));
    Result<BundledProgram> bundle = load_bytes(bytes);
    REQUIRE_MESSAGE(bundle.ok(), bundle.error().message());
    Result<BundledValue> v = bundle->input(0, 0, 0);
    REQUIRE_FALSE(v.ok());
    CHECK(v.error().code() == ErrorCode::InvalidProgram);
    CHECK_MESSAGE(contains(v.error().message(), c.expect), v.error().message());
    CHECK(contains(v.error().message(), "suite 0 case 0 input 0"));
  }
  SUBCASE("a union type without its table") {
    AlignedBytes bytes(make_bundle(2, {}, 5, /*with_program=*/true, /*with_val=*/false));
    Result<BundledProgram> bundle = load_bytes(bytes);
    REQUIRE(bundle.ok());
    Result<BundledValue> v = bundle->input(0, 0, 0);
    REQUIRE_FALSE(v.ok());
    CHECK(contains(v.error().message(), "suite 0 case 0 input 0: value of type 2 has no table"));
  }
  SUBCASE("a missing dim order means contiguous") {
    AlignedBytes bytes(make_bundle(1, {3, {2, 1}, {1, 0, 0, 0, 2, 0, 0, 0}, {}}, 0));
    Result<BundledProgram> bundle = load_bytes(bytes);
    REQUIRE(bundle.ok());
    Result<BundledValue> v = bundle->input(0, 0, 0);
    REQUIRE_MESSAGE(v.ok(), v.error().message());
    CHECK(std::vector<uint8_t>(v->dim_order.begin(), v->dim_order.end()) ==
          std::vector<uint8_t>{0, 1});
  }
}

}  // namespace
}  // namespace etkit
