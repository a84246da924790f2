#include "etkit/runtime/tensor.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "etkit/host/host_tensor.h"

namespace etkit {
namespace {

std::vector<int32_t> strides_of(std::vector<int32_t> sizes, std::vector<uint8_t> order) {
  std::vector<int32_t> strides(sizes.size());
  REQUIRE(compute_strides(sizes, order, strides));
  return strides;
}

TEST_CASE("tensor: strides follow the dim order, innermost dimension last") {
  CHECK(strides_of({2, 3, 4}, {0, 1, 2}) == std::vector<int32_t>{12, 4, 1});
  // Channels last: N, H, W, C in memory.
  CHECK(strides_of({1, 3, 5, 7}, {0, 2, 3, 1}) == std::vector<int32_t>{105, 1, 21, 3});
  // The kws fixture's input layout.
  CHECK(strides_of({1, 1, 49, 10}, {0, 2, 1, 3}) == std::vector<int32_t>{490, 10, 10, 1});
  // A zero-size dimension does not scale the next stride (ExecuTorch's rule).
  CHECK(strides_of({2, 0, 3}, {0, 1, 2}) == std::vector<int32_t>{3, 3, 1});
  CHECK(strides_of({}, {}).empty());
}

TEST_CASE("tensor: invalid dim orders are refused") {
  std::vector<int32_t> strides(3);
  std::vector<int32_t> sizes{2, 3, 4};
  CHECK_FALSE(compute_strides(sizes, std::vector<uint8_t>{0, 0, 1}, strides));
  CHECK_FALSE(compute_strides(sizes, std::vector<uint8_t>{0, 1, 3}, strides));
  CHECK_FALSE(compute_strides(sizes, std::vector<uint8_t>{0, 1}, strides));
}

TEST_CASE("tensor: strides beyond int32 are refused, also with no elements") {
  std::vector<int32_t> strides(3);
  const std::vector<uint8_t> order{0, 1, 2};
  // Strides are 2^31 and 1: the first does not fit, though the tensor is empty.
  CHECK_FALSE(compute_strides(std::vector<int32_t>{0, 65536, 32768}, order, strides));
  CHECK_FALSE(compute_strides(std::vector<int32_t>{2, INT32_MAX, 2}, order, strides));
  // The product of the inner sizes may reach 2^62 and more without overflowing int64 first.
  CHECK_FALSE(compute_strides(std::vector<int32_t>{INT32_MAX, INT32_MAX, INT32_MAX}, order,
                              strides));
  // The outermost size never becomes a stride.
  REQUIRE(compute_strides(std::vector<int32_t>{INT32_MAX, 1, 1}, order, strides));
  CHECK(strides == std::vector<int32_t>{1, 1, 1});
  REQUIRE(compute_strides(std::vector<int32_t>{0, 32768, 65535}, order, strides));
  CHECK(strides[0] == 32768 * 65535);
}

TEST_CASE("tensor: numel is 0 with a zero-size dimension whatever the other sizes") {
  int32_t sizes[4] = {INT32_MAX, INT32_MAX, INT32_MAX, 0};
  uint8_t order[4] = {0, 1, 2, 3};
  int32_t strides[4];
  Tensor t(ScalarType::Float, sizes, order, strides, nullptr, ShapeDynamism::Static);
  CHECK(t.numel() == 0);
  CHECK(t.nbytes() == 0);
}

TEST_CASE("tensor: a resize to strides beyond int32 is refused and leaves the tensor as it was") {
  int32_t sizes[3] = {1, 1, 1};
  uint8_t order[3] = {0, 1, 2};
  int32_t strides[3];
  float data[1];
  Tensor t(ScalarType::Float, sizes, order, strides, data, ShapeDynamism::DynamicBound);
  const int32_t empty_but_wide[3] = {0, 65536, 65536};
  Error e = t.resize(empty_but_wide);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.message()) ==
        "cannot resize tensor [1, 1, 1] to [0, 65536, 65536]: a stride exceeds 2^31-1");
  CHECK(t.numel() == 1);
  CHECK(t.sizes()[1] == 1);
  CHECK(t.strides()[0] == 1);
  const int32_t empty[3] = {0, 4, 4};
  REQUIRE(t.resize(empty).ok());
  CHECK(t.numel() == 0);
  CHECK(t.strides()[0] == 16);
}

TEST_CASE("tensor: numel, nbytes and rank-0") {
  HostTensor scalar(ScalarType::Double, {});
  CHECK(scalar.tensor().dim() == 0);
  CHECK(scalar.tensor().numel() == 1);
  CHECK(scalar.tensor().nbytes() == 8);
  const int32_t sizes[] = {2, 0};
  HostTensor empty(ScalarType::Float, sizes);
  CHECK(empty.tensor().numel() == 0);
  CHECK(empty.tensor().nbytes() == 0);
}

TEST_CASE("tensor: static tensors keep their sizes; dynamic ones resize within capacity") {
  int32_t sizes[] = {8};
  uint8_t order[] = {0};
  int32_t strides[1];
  float data[8];
  Tensor st(ScalarType::Float, sizes, order, strides, data);
  const int32_t same[] = {8};
  const int32_t smaller[] = {3};
  CHECK(st.resize(same).ok());
  Error e = st.resize(smaller);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.message()) == "cannot resize static tensor [8] to [3]");

  Tensor dy(ScalarType::Float, sizes, order, strides, data, ShapeDynamism::DynamicBound);
  REQUIRE(dy.resize(smaller).ok());
  CHECK(dy.numel() == 3);
  CHECK(dy.size(0) == 3);
  const int32_t larger[] = {9};
  CHECK(dy.resize(larger).code() == ErrorCode::InvalidArgument);
  const int32_t wrong_rank[] = {2, 2};
  CHECK(dy.resize(wrong_rank).code() == ErrorCode::InvalidArgument);
  const int32_t negative[] = {-1};
  CHECK(dy.resize(negative).code() == ErrorCode::InvalidArgument);
}

TEST_CASE("tensor: a resize whose element count overflows is refused, not wrapped") {
  int32_t sizes[4] = {1, 1, 1, 1};
  uint8_t order[4] = {0, 1, 2, 3};
  int32_t strides[4];
  float data[1];
  Tensor t(ScalarType::Float, sizes, order, strides, data, ShapeDynamism::DynamicBound);
  const int32_t huge[4] = {INT32_MAX, INT32_MAX, INT32_MAX, 4};
  Error e = t.resize(huge);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.message()).find("more than 2^64") != std::string::npos);
  CHECK(t.numel() == 1);
}

TEST_CASE("tensor: copy_tensor_data moves elements between dim orders by logical index") {
  const int32_t sizes[] = {2, 3};
  const uint8_t transposed[] = {1, 0};
  HostTensor src = HostTensor::from<int>(ScalarType::Int, sizes, {0, 1, 2, 3, 4, 5});
  HostTensor dst(ScalarType::Int, sizes, transposed);
  copy_tensor_data(src.tensor(), dst.tensor());
  // In memory, dst holds column by column: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
  const auto* d = static_cast<const int32_t*>(dst.data());
  CHECK(std::vector<int32_t>(d, d + 6) == std::vector<int32_t>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("tensor: format_sizes") {
  char buf[32];
  const int32_t s[] = {1, 20, 3};
  CHECK(std::string(format_sizes(s, buf, sizeof(buf))) == "[1, 20, 3]");
  CHECK(std::string(format_sizes({}, buf, sizeof(buf))) == "[]");
  char tiny[4];
  CHECK(std::string(format_sizes(s, tiny, sizeof(tiny))).size() == 3);
}

TEST_CASE("host tensor: element conversion round trips, half and bfloat16 round to nearest") {
  const int32_t one[] = {1};
  HostTensor h(ScalarType::Half, one);
  write_element_from_double(h.tensor(), 0, 1.0 / 3.0);
  CHECK(read_element_as_double(h.tensor(), 0) == doctest::Approx(0.333251953125));
  HostTensor b(ScalarType::BFloat16, one);
  write_element_from_double(b.tensor(), 0, 1.0 / 3.0);
  CHECK(read_element_as_double(b.tensor(), 0) == doctest::Approx(0.333984375));
  HostTensor flag(ScalarType::Bool, one);
  write_element_from_double(flag.tensor(), 0, 5.0);
  CHECK(*static_cast<const uint8_t*>(flag.data()) == 1);
}

TEST_CASE("host tensor: copies own their data and keep their view valid") {
  const int32_t sizes[] = {3};
  HostTensor a = HostTensor::from<float>(ScalarType::Float, sizes, {1.f, 2.f, 3.f});
  HostTensor b = a;
  write_element_from_double(b.tensor(), 0, 9.0);
  CHECK(read_element_as_double(a.tensor(), 0) == 1.0);
  CHECK(read_element_as_double(b.tensor(), 0) == 9.0);
  HostTensor c = std::move(b);
  CHECK(c.tensor().data() == c.data());
  CHECK(read_element_as_double(c.tensor(), 0) == 9.0);
}

}  // namespace
}  // namespace etkit
