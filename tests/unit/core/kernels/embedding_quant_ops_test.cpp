// quantized_decomposed::embedding_byte, embedding_4bit and embedding_2bit (.out and
// .dtype_out). Expected values by hand: out[i, j] = (q[index_i, j] - zero_point) * scale, with
// 4-bit values unpacked high nibble first (stored + 8) and 2-bit values low bits first
// (stored + 2).

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kByte = "quantized_decomposed::embedding_byte.out";
constexpr const char* kByteDtype = "quantized_decomposed::embedding_byte.dtype_out";
constexpr const char* k4bit = "quantized_decomposed::embedding_4bit.out";
constexpr const char* k4bitDtype = "quantized_decomposed::embedding_4bit.dtype_out";
constexpr const char* k2bit = "quantized_decomposed::embedding_2bit.out";
constexpr const char* k2bitDtype = "quantized_decomposed::embedding_2bit.dtype_out";

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

TEST_CASE("kernel embedding quantized: operators are registered") {
  for (const char* name : {kByte, kByteDtype, k4bit, k4bitDtype, k2bit, k2bitDtype}) {
    CHECK_MESSAGE(registered(name), name);
  }
}

TEST_CASE("kernel embedding quantized: byte") {
  SUBCASE("uint8 rows with per-row scales and zero points") {
    auto w = make(U8, {3, 4}, {0, 1, 2, 3, 10, 20, 30, 40, 255, 128, 0, 1});
    auto scales = make(F, {3}, {0.5, 1, 2});
    auto zp = make(F, {3}, {0, 10, 128});
    auto idx = make(L, {2}, {2, 0});
    auto out = zeros(F, {2, 4});
    check_ok(Args().t(w).t(scales).t(zp).i(0).i(255).t(idx).t(out).run(kByte));
    check_tensor(out.tensor(), F, {2, 4}, {254, 0, -256, -254, 0, 0.5, 1, 1.5});
  }
  SUBCASE("int8 with two groups of scales, no zero points, 2-D int32 indices, float64") {
    auto w = make(C8, {1, 4}, {-1, 2, -3, 4});
    auto scales = make(D, {1, 2}, {1, 10});
    auto idx = make(I, {2, 1}, {0, 0});
    auto out = zeros(D, {2, 1, 4});
    check_ok(Args().t(w).t(scales).none().i(-128).i(127).t(idx).value(EValue()).t(out)
                 .run(kByteDtype));
    check_tensor(out.tensor(), D, {2, 1, 4}, {-1, 2, -30, 40, -1, 2, -30, 40});
  }
  SUBCASE("a transposed weight is read through its strides; empty indices") {
    auto w = make(U8, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto scales = make(F, {2}, {1, 1});
    auto idx = make(L, {1}, {1});
    auto out = zeros(F, {1, 3});
    check_ok(Args().t(w).t(scales).none().i(0).i(255).t(idx).t(out).run(kByte));
    check_tensor(out.tensor(), F, {1, 3}, {4, 5, 6});
    auto none = zeros(L, {0});
    auto empty = zeros(F, {0, 3});
    check_ok(Args().t(w).t(scales).none().i(0).i(255).t(none).t(empty).run(kByte));
    check_tensor(empty.tensor(), F, {0, 3}, {});
  }
}

TEST_CASE("kernel embedding quantized: 4-bit and 2-bit") {
  // 0x9F: 9 - 8 = 1, 15 - 8 = 7; 0x08: 0 - 8 = -8, 8 - 8 = 0.
  auto w4 = make(U8, {1, 2}, {0x9F, 0x08});
  auto half = make(F, {1}, {0.5});
  auto idx = make(I, {1}, {0});
  auto out4 = zeros(F, {1, 4});
  check_ok(Args().t(w4).t(half).none().i(-8).i(7).t(idx).t(out4).run(k4bit));
  check_tensor(out4.tensor(), F, {1, 4}, {0.5, 3.5, -4, 0});
  check_ok(Args().t(w4).t(half).none().i(-8).i(7).t(idx).i(wire(F)).t(out4).run(k4bitDtype));
  check_tensor(out4.tensor(), F, {1, 4}, {0.5, 3.5, -4, 0});
  // 0xE4 = 0b11'10'01'00: from the low bits up 0, 1, 2, 3, each - 2; then a zero point of 1.
  auto w2 = make(U8, {1, 1}, {0xE4});
  auto one = make(F, {1}, {1});
  auto zp = make(F, {1}, {1});
  auto out2 = zeros(F, {1, 4});
  check_ok(Args().t(w2).t(one).none().i(-2).i(1).t(idx).t(out2).run(k2bit));
  check_tensor(out2.tensor(), F, {1, 4}, {-2, -1, 0, 1});
  check_ok(Args().t(w2).t(one).t(zp).i(-2).i(1).t(idx).none().t(out2).run(k2bitDtype));
  check_tensor(out2.tensor(), F, {1, 4}, {-3, -2, -1, 0});
}

TEST_CASE("kernel embedding quantized: errors") {
  auto w = make(U8, {3, 4}, std::vector<double>(12, 1));
  auto scales = make(F, {3}, {1, 1, 1});
  auto out = zeros(F, {2, 4});
  auto idx = make(L, {2}, {0, 3});
  check_error(Args().t(w).t(scales).none().i(0).i(255).t(idx).t(out).run(kByte),
              ErrorCode::InvalidArgument, "indices[1] is 3, outside the 3 rows of weight");
  auto neg = make(L, {2}, {-1, 0});
  check_error(Args().t(w).t(scales).none().i(0).i(255).t(neg).t(out).run(kByte),
              ErrorCode::InvalidArgument, "indices[0] is -1");
  auto ok = make(L, {2}, {0, 1});
  auto short_scales = make(F, {2}, {1, 1});
  check_error(Args().t(w).t(short_scales).none().i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidArgument, "weight_scales has sizes [2], expected [3]");
  auto three_groups = make(F, {3, 3}, std::vector<double>(9, 1));
  check_error(Args().t(w).t(three_groups).none().i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidArgument, "G dividing the embedding size 4");
  auto zp_sizes = make(F, {3, 1}, {0, 0, 0});
  check_error(Args().t(w).t(scales).t(zp_sizes).i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidArgument, "weight_zero_points has sizes [3, 1], expected [3]");
  auto zp_int = make(I, {3}, {0, 0, 0});
  check_error(Args().t(w).t(scales).t(zp_int).i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidType, "weight_zero_points has dtype int32, expected float32");
  auto wf = make(F, {3, 4}, std::vector<double>(12, 1));
  check_error(Args().t(wf).t(scales).none().i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidType, "weight has dtype float32, expected uint8 or int8");
  auto w8 = make(C8, {3, 2}, std::vector<double>(6, 1));
  check_error(Args().t(w8).t(scales).none().i(-8).i(7).t(ok).t(out).run(k4bit),
              ErrorCode::InvalidType, "expected uint8 (packed)");
  check_error(Args().t(w).t(scales).none().i(5).i(4).t(ok).t(out).run(kByte),
              ErrorCode::InvalidArgument, "weight_quant_min 5 is greater than weight_quant_max 4");
  check_error(Args().t(w).t(scales).none().i(0).i(255).t(ok).i(wire(D)).t(out).run(kByteDtype),
              ErrorCode::InvalidType, "out has dtype float32, expected float64");
  // float32 scales into a Half out: one floating dtype per call (float16_proxy.h).
  auto out_half = zeros(ScalarType::Half, {2, 4});
  check_error(Args().t(w).t(scales).none().i(0).i(255).t(ok).t(out_half).run(kByte),
              ErrorCode::InvalidType, "tensors of dtype float16 and float32 in one call");
  auto flat = make(U8, {12}, std::vector<double>(12, 1));
  check_error(Args().t(flat).t(scales).none().i(0).i(255).t(ok).t(out).run(kByte),
              ErrorCode::InvalidArgument, "expected [V, columns]");
  auto wrong_out = zeros(F, {2, 5});
  check_error(Args().t(w).t(scales).none().i(0).i(255).t(ok).t(wrong_out).run(kByte),
              ErrorCode::InvalidArgument, "out has sizes");
}

}  // namespace
}  // namespace etkit::test
