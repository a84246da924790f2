#include "etkit/host/input_spec.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "etkit/host/npy.h"

namespace etkit {
namespace {

ValueInfo tensor_info(ScalarType dtype, const std::vector<int32_t>& sizes,
                      const std::vector<uint8_t>& order) {
  ValueInfo info;
  info.tag = Tag::Tensor;
  info.dtype = dtype;
  info.sizes = sizes;
  info.dim_order = order;
  return info;
}

std::string message(const Error& e) { return e.message(); }

TEST_CASE("input spec: parsing") {
  CHECK(parse_input_spec("ones")->kind == InputSpec::Kind::Ones);
  CHECK(parse_input_spec("zeros")->kind == InputSpec::Kind::Zeros);
  Result<InputSpec> r = parse_input_spec("random:42");
  REQUIRE(r.ok());
  CHECK(r->kind == InputSpec::Kind::Random);
  CHECK(r->seed == 42);
  CHECK(parse_input_spec("random")->seed == 0);
  CHECK(parse_input_spec("x.npy")->kind == InputSpec::Kind::File);
  CHECK(parse_input_spec("2.5")->kind == InputSpec::Kind::Literal);
  CHECK(message(parse_input_spec("random:-1").error()) ==
        "'random:-1': the seed must be a non-negative integer");
  CHECK(message(parse_input_spec("random:").error()) ==
        "'random:': the seed must be a non-negative integer");
}

TEST_CASE("input spec: random values are fixed by the seed and in range") {
  const std::vector<int32_t> sizes{4, 5};
  const std::vector<uint8_t> order{0, 1};
  ValueInfo f = tensor_info(ScalarType::Float, sizes, order);
  Result<InputValue> a = make_input(f, *parse_input_spec("random:9"));
  Result<InputValue> b = make_input(f, *parse_input_spec("random:9"));
  Result<InputValue> c = make_input(f, *parse_input_spec("random:10"));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(c.ok());
  bool differs = false;
  for (int64_t i = 0; i < 20; ++i) {
    const double va = read_element_as_double(a->tensor.tensor(), i);
    CHECK(va >= -1.0);
    CHECK(va < 1.0);
    CHECK(va == read_element_as_double(b->tensor.tensor(), i));
    differs = differs || va != read_element_as_double(c->tensor.tensor(), i);
  }
  CHECK(differs);
  ValueInfo l = tensor_info(ScalarType::Long, sizes, order);
  Result<InputValue> ints = make_input(l, *parse_input_spec("random:1"));
  REQUIRE(ints.ok());
  for (int64_t i = 0; i < 20; ++i) {
    const double v = read_element_as_double(ints->tensor.tensor(), i);
    CHECK(v >= -8);
    CHECK(v <= 8);
  }
}

TEST_CASE("input spec: tensors follow the input's dim order and sizes") {
  const std::vector<int32_t> sizes{1, 3, 2, 2};
  const std::vector<uint8_t> channels_last{0, 2, 3, 1};
  Result<InputValue> v = make_input(tensor_info(ScalarType::Int, sizes, channels_last),
                                    *parse_input_spec("ones"));
  REQUIRE(v.ok());
  const Tensor& t = v->tensor.tensor();
  CHECK(t.dtype() == ScalarType::Int);
  CHECK(std::vector<uint8_t>(t.dim_order().begin(), t.dim_order().end()) == channels_last);
  CHECK(t.numel() == 12);
  CHECK(read_element_as_double(t, 11) == 1);
}

TEST_CASE("input spec: .npy files are converted to the input's dim order") {
  const int32_t sizes[] = {2, 3};
  HostTensor src = HostTensor::from<int>(ScalarType::Int, sizes, {0, 1, 2, 3, 4, 5});
  const std::string path = std::string(ETKIT_TEST_DATA_DIR) + "/input_spec_test.npy";
  REQUIRE(write_npy(path, src.tensor()).ok());
  const std::vector<int32_t> s{2, 3};
  const std::vector<uint8_t> transposed{1, 0};
  Result<InputValue> v = make_input(tensor_info(ScalarType::Int, s, transposed),
                                    *parse_input_spec(path));
  REQUIRE_MESSAGE(v.ok(), std::string(v.error().message()));
  const auto* d = static_cast<const int32_t*>(v->tensor.data());
  CHECK(std::vector<int32_t>(d, d + 6) == std::vector<int32_t>{0, 3, 1, 4, 2, 5});
  Result<InputValue> wrong = make_input(tensor_info(ScalarType::Float, s, transposed),
                                        *parse_input_spec(path));
  CHECK(message(wrong.error()) == path + ": holds int32, the input is float32");
}

TEST_CASE("input spec: literals for primitive inputs") {
  ValueInfo i;
  i.tag = Tag::Int;
  CHECK(make_input(i, *parse_input_spec("3"))->value.to_int() == 3);
  CHECK(message(make_input(i, *parse_input_spec("3.5")).error()) == "'3.5' is not an integer");
  ValueInfo d;
  d.tag = Tag::Double;
  CHECK(make_input(d, *parse_input_spec("2.0"))->value.to_double() == 2.0);
  CHECK_FALSE(make_input(d, *parse_input_spec("two")).ok());
  ValueInfo b;
  b.tag = Tag::Bool;
  CHECK(make_input(b, *parse_input_spec("true"))->value.to_bool());
  CHECK_FALSE(make_input(b, *parse_input_spec("false"))->value.to_bool());
  CHECK(message(make_input(b, *parse_input_spec("yes")).error()) ==
        "'yes' is not a bool (true or false)");
  CHECK(message(make_input(i, *parse_input_spec("ones")).error()) ==
        "this input is an int: give a literal value, not ones, zeros, random or a file");
  const std::vector<int32_t> s{1};
  const std::vector<uint8_t> o{0};
  CHECK(message(make_input(tensor_info(ScalarType::Float, s, o), *parse_input_spec("7")).error()) ==
        "this input is a tensor: give FILE.npy, ones, zeros or random[:SEED], not '7'");
}

TEST_CASE("input spec: defaults are ones for tensors and the program's value otherwise") {
  ValueInfo i;
  i.tag = Tag::Int;
  i.int_value = 17;
  CHECK(default_input(i)->value.to_int() == 17);
  const std::vector<int32_t> s{2};
  const std::vector<uint8_t> o{0};
  Result<InputValue> t = default_input(tensor_info(ScalarType::Double, s, o));
  REQUIRE(t.ok());
  CHECK(read_element_as_double(t->tensor.tensor(), 1) == 1.0);
}

}  // namespace
}  // namespace etkit
