// full_like, clone, copy, _to_dim_order_copy, _clone_dim_order.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr int64_t kFloatWire = 6;
constexpr int64_t kLongWire = 4;


TEST_CASE("kernel full_like: ATen's out schema (self, fill_value, *, memory_format, out)") {
  auto self = make(I, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("out of self's dtype") {
    auto out = zeros(I, {2, 3});
    check_ok(Args().t(self).i(7).none().t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), I, {2, 3}, {7, 7, 7, 7, 7, 7});
  }
  SUBCASE("out's dtype is the result dtype, any dim order") {
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(self).d(2.5).i(1).t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), F, {2, 3}, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
    auto bout = zeros(B, {2, 3});
    check_ok(Args().t(self).i(3).i(0).t(bout).run("aten::full_like.out"));
    check_tensor(bout.tensor(), B, {2, 3}, {1, 1, 1, 1, 1, 1});
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(D, {}, {1});
    auto out = zeros(D, {});
    check_ok(Args().t(s).d(-0.5).none().t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), D, {}, {-0.5});
    auto e = zeros(F, {0, 4});
    auto eout = zeros(F, {0, 4});
    check_ok(Args().t(e).i(1).none().t(eout).run("aten::full_like.out"));
  }
  SUBCASE("errors") {
    auto out = zeros(I, {2, 3});
    check_error(Args().t(self).i(1).i(2).t(out).run("aten::full_like.out"),
                ErrorCode::NotSupported, "memory_format is 2");
    check_error(Args().t(self).i(3000000000).none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "fill_value 3000000000 does not fit dtype int32");
    check_error(Args().t(self).d(1e10).none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "does not fit dtype int32");
    auto small = zeros(I, {3, 2});
    check_error(Args().t(self).i(1).none().t(small).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [2, 3]");
    // A 16-bit out holds the value rounded to nearest even (0.1 -> 0.0999755859375).
    auto h = zeros(H, {2, 3});
    check_ok(Args().t(self).d(0.1).none().t(h).run("aten::full_like.out"));
    check_tensor(h.tensor(), H, {2, 3}, std::vector<double>(6, 0.0999755859375));
    auto u = zeros(ScalarType::UInt16, {2, 3});
    check_error(Args().t(self).i(1).none().t(u).run("aten::full_like.out"),
                ErrorCode::InvalidType, "out has dtype uint16");
    check_error(Args().t(self).i(1).none().none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "expected 5 arguments");
  }
}

TEST_CASE("kernel full_like: with the functional options (dtype, layout, device, pin_memory)") {
  auto self = make(I, {2}, {1, 2});
  SUBCASE("dtype and layout arguments") {
    auto out = zeros(F, {2});
    check_ok(Args().t(self).d(2.5).i(kFloatWire).i(0).none().b(false).i(1).t(out).run(
        "aten::full_like.out"));
    check_tensor(out.tensor(), F, {2}, {2.5, 2.5});
    check_ok(Args().t(self).i(4).none().none().none().none().none().t(out).run(
        "aten::full_like.out"));
    check_tensor(out.tensor(), F, {2}, {4, 4});
  }
  SUBCASE("errors") {
    auto out = zeros(I, {2});
    check_error(Args().t(self).i(1).i(kLongWire).none().none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::InvalidType, "out has dtype int32, expected int64");
    check_error(Args().t(self).i(1).none().i(1).none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::NotSupported, "layout is 1");
    check_error(Args().t(self).i(1).none().none().none().none().i(2).t(out).run(
                    "aten::full_like.out"),
                ErrorCode::NotSupported, "memory_format is 2");
    check_error(Args().t(self).i(1).i(99).none().none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::InvalidArgument, "dtype is 99, which is not a dtype");
  }
}

TEST_CASE("kernel _to_dim_order_copy: dtype conversion") {
  SUBCASE("float to int truncates toward zero") {
    auto a = make(F, {4}, {1.7, -1.7, 0.2, 100});
    auto out = zeros(I, {4});
    check_ok(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), I, {4}, {1, -1, 0, 100});
  }
  SUBCASE("int to float, bool to double, float to bool") {
    auto a = make(L, {2}, {3, -4});
    auto out = zeros(F, {2});
    check_ok(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), F, {2}, {3, -4});
    auto b = make(B, {2}, {1, 0});
    auto dout = zeros(D, {2});
    check_ok(Args().t(b).b(false).none().t(dout).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(dout.tensor(), D, {2}, {1, 0});
    auto f = make(F, {3}, {0, 0.5, -2});
    auto bout = zeros(B, {3});
    check_ok(Args().t(f).b(false).none().t(bout).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(bout.tensor(), B, {3}, {0, 1, 1});
  }
  SUBCASE("dtype and layout at once") {
    auto a = make(D, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(a).b(false).ints({1, 0}).t(out).run(
        "dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 4, 5, 6});
    // Memory of out is column-major now.
    CHECK(out.tensor().data_as<float>()[1] == 4.0f);
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(I, {}, {5});
    auto out = zeros(D, {});
    check_ok(Args().t(s).b(false).ints({}).t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), D, {}, {5});
    auto e = zeros(F, {2, 0});
    auto eout = zeros(L, {2, 0});
    check_ok(Args().t(e).b(false).none().t(eout).run("dim_order_ops::_to_dim_order_copy.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_error(Args().t(a).b(false).ints({0, 1}).t(out).run(
                    "dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "out has dim order [1, 0], which differs from dim_order");
    check_error(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "expected the dim order of self");
    check_error(Args().t(a).b(false).ints({0}).t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "dim_order has 1 entries, expected 2");
    check_error(Args().t(a).none().none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidType, "non_blocking is none, expected a bool");
    auto u16 = zeros(ScalarType::UInt16, {2, 3});
    check_error(Args().t(u16).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidType,
                "self has dtype uint16, expected one of bool, uint8, int8, int16, int32, int64, "
                "float16, bfloat16, float32, float64");
    auto small = zeros(I, {3});
    check_error(Args().t(a).b(false).none().t(small).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3], expected [2, 3]");
  }
}

TEST_CASE("kernel _clone_dim_order") {
  SUBCASE("layout change keeps logical values") {
    auto a = make(L, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    auto out = zeros(L, {2, 2, 2}, {0, 2, 1});
    check_ok(Args().t(a).b(false).ints({0, 2, 1}).t(out).run(
        "dim_order_ops::_clone_dim_order.out"));
    check_tensor(out.tensor(), L, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  }
  SUBCASE("any element size is copied as bytes") {
    auto h = make(H, {2}, {0.5, -3});
    auto out = zeros(H, {2});
    check_ok(Args().t(h).b(false).none().t(out).run("dim_order_ops::_clone_dim_order.out"));
    check_tensor(out.tensor(), H, {2}, {0.5, -3});
  }
  SUBCASE("errors") {
    auto a = make(F, {2}, {1, 2});
    auto out = zeros(D, {2});
    check_error(Args().t(a).b(false).none().t(out).run("dim_order_ops::_clone_dim_order.out"),
                ErrorCode::InvalidType, "out has dtype float64, expected float32");
  }
}

constexpr const char* kClone = "aten::clone.out";
constexpr const char* kCopy = "aten::copy.out";

TEST_CASE("kernel copy: operators are registered") {
  for (const char* name : {"aten::full_like.out", kClone, kCopy,
                           "dim_order_ops::_clone_dim_order.out",
                           "dim_order_ops::_to_dim_order_copy.out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel copy: clone") {
  SUBCASE("into another dim order, memory formats") {
    auto a = make(L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(L, {2, 3}, {1, 0});
    check_ok(Args().t(a).none().t(out).run(kClone));
    check_tensor(out.tensor(), L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto back = zeros(L, {2, 3});
    check_ok(Args().t(out).i(0).t(back).run(kClone));
    check_tensor(back.tensor(), L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto r3 = make(F, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 2, 1});
    auto out3 = zeros(F, {2, 2, 2}, {2, 0, 1});
    check_ok(Args().t(r3).i(1).t(out3).run(kClone));
    check_tensor(out3.tensor(), F, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  }
  SUBCASE("rank 0, empty, any element size, dynamic out") {
    auto s = make(B, {}, {1});
    auto sout = zeros(B, {});
    check_ok(Args().t(s).none().t(sout).run(kClone));
    check_tensor(sout.tensor(), B, {}, {1});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_ok(Args().t(e).none().t(eout).run(kClone));
    auto h = make(H, {3}, {1, -2, 0.25});
    auto hout = zeros(H, {3});
    check_ok(Args().t(h).none().t(hout).run(kClone));
    check_tensor(hout.tensor(), H, {3}, {1, -2, 0.25});
    DynamicTensor dyn(H, {4}, 4);
    check_ok(Args().t(h).none().t(dyn.tensor()).run(kClone));
    check_tensor(dyn.tensor(), H, {3}, {1, -2, 0.25});
  }
  SUBCASE("errors") {
    auto a = make(F, {2}, {1, 2});
    auto out = zeros(F, {3});
    check_error(Args().t(a).none().t(out).run(kClone), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [2]");
    auto iout = zeros(I, {2});
    check_error(Args().t(a).none().t(iout).run(kClone), ErrorCode::InvalidType,
                "out has dtype int32, expected float32");
    auto ok = zeros(F, {2});
    check_error(Args().t(a).i(2).t(ok).run(kClone), ErrorCode::NotSupported,
                "memory_format is 2");
    check_error(Args().t(a).d(0.0).t(ok).run(kClone), ErrorCode::InvalidType,
                "memory_format is a double");
  }
}

TEST_CASE("kernel copy: copy") {
  SUBCASE("src broadcasts to self's shape and converts to its dtype") {
    auto self = zeros(F, {2, 3});
    auto src = make(I, {3}, {1, 2, 3});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(self).t(src).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 1, 2, 3});
    auto col = make(D, {2, 1}, {-1.5, 2.75});
    auto iself = zeros(I, {2, 2});
    auto iout = zeros(I, {2, 2});
    check_ok(Args().t(iself).t(col).b(true).t(iout).run(kCopy));
    check_tensor(iout.tensor(), I, {2, 2}, {-1, -1, 2, 2});
  }
  SUBCASE("same dtype, transposed src, rank 0 src") {
    auto self = zeros(L, {2, 2});
    auto src = make(L, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto out = zeros(L, {2, 2});
    check_ok(Args().t(self).t(src).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), L, {2, 2}, {1, 2, 3, 4});
    auto s = make(L, {}, {9});
    check_ok(Args().t(self).t(s).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), L, {2, 2}, {9, 9, 9, 9});
    auto b = make(B, {2}, {1, 0});
    auto fself = zeros(F, {2});
    auto fout = zeros(F, {2});
    check_ok(Args().t(fself).t(b).b(false).t(fout).run(kCopy));
    check_tensor(fout.tensor(), F, {2}, {1, 0});
  }
  SUBCASE("errors") {
    auto self = zeros(F, {2, 3});
    auto src = make(F, {2}, {1, 2});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(self).t(src).b(false).t(out).run(kCopy), ErrorCode::InvalidArgument,
                "src has sizes [2], which do not broadcast to [2, 3]");
    auto big = zeros(F, {1, 2, 3});
    check_error(Args().t(self).t(big).b(false).t(out).run(kCopy), ErrorCode::InvalidArgument,
                "do not broadcast");
    auto dout = zeros(D, {2, 3});
    auto ok = make(F, {3}, {1, 2, 3});
    check_error(Args().t(self).t(ok).b(false).t(dout).run(kCopy), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
    auto u16 = zeros(ScalarType::UInt16, {3});
    check_error(Args().t(self).t(u16).b(false).t(out).run(kCopy), ErrorCode::InvalidType,
                "src has dtype uint16");
    check_error(Args().t(self).t(ok).i(0).t(out).run(kCopy), ErrorCode::InvalidType,
                "non_blocking is an int, expected a bool");
  }
}

TEST_CASE("kernel _to_copy, copy_, et_copy host/device copies") {
  auto a = make(F, {2, 2}, {1.5, -2.5, 3, 300}, {1, 0});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(a).b(false).none().t(out).run("aten::_to_copy.out"));
  check_tensor(out.tensor(), I, {2, 2}, {1, -2, 3, 300});  // truncation toward zero
  auto u = zeros(U8, {2, 2});
  check_ok(Args().t(a).b(false).i(1).t(u).run("aten::_to_copy.out"));
  check_error(Args().t(a).b(false).i(2).t(u).run("aten::_to_copy.out"), ErrorCode::NotSupported,
              "memory_format");
  auto dst = zeros(D, {2, 2});
  auto src = make(I, {2}, {7, 8});
  check_ok(Args().t(dst).t(src).b(false).t(dst).run_raw("aten::copy_"));  // returns self
  check_tensor(dst.tensor(), D, {2, 2}, {7, 8, 7, 8});
  auto h = zeros(F, {2, 2});
  check_ok(Args().t(a).t(h).run("et_copy::_h2d_copy.out"));
  check_tensor(h.tensor(), F, {2, 2}, {1.5, -2.5, 3, 300});
  auto d = zeros(F, {2, 2});
  check_ok(Args().t(h).t(d).run("et_copy::_d2h_copy.out"));
  check_tensor(d.tensor(), F, {2, 2}, {1.5, -2.5, 3, 300});
}

// The bits of a Half or BFloat16 tensor, in memory order.
std::vector<uint16_t> bits16(HostTensor& t) {
  const auto* p = t.tensor().data_as<uint16_t>();
  return std::vector<uint16_t>(p, p + t.tensor().numel());
}

constexpr auto BF = ScalarType::BFloat16;

// Expected bits are worked out by hand (tests/unit/core/runtime/half_test.cpp has the rules):
// to 16 bits the value is rounded to float32 first, then to nearest, ties to even.
TEST_CASE("kernel _to_copy: Half and BFloat16 to and from every dtype") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  SUBCASE("float32 to Half rounds to nearest even, overflows to infinity") {
    auto a = make(F, {6}, {1, 1.0 / 3, 2049, 65520, -1e6, nan});
    auto out = zeros(H, {6});
    check_ok(Args().t(a).b(false).none().t(out).run("aten::_to_copy.out"));
    CHECK(bits16(out) == std::vector<uint16_t>{0x3c00, 0x3555, 0x6800, 0x7c00, 0xfc00, 0x7e00});
  }
  SUBCASE("int64 and float64 go through float32 first, as PyTorch converts") {
    // 16777217 is not a float32: it becomes 2^24, then Half's infinity.
    auto l = make(L, {3}, {2049, 2051, 16777217});
    auto out = zeros(H, {3});
    check_ok(Args().t(l).b(false).none().t(out).run("aten::_to_copy.out"));
    CHECK(bits16(out) == std::vector<uint16_t>{0x6800, 0x6802, 0x7c00});
    // 1 + 2^-8 + 2^-30 rounds to float32's 1 + 2^-8, a BFloat16 tie that goes to even 1.0
    // (straight from float64 it would round up to 0x3f81).
    auto d = make(D, {2}, {1.0 + 0x1p-8 + 0x1p-30, -3.140625});
    auto bout = zeros(BF, {2});
    check_ok(Args().t(d).b(false).none().t(bout).run("aten::_to_copy.out"));
    CHECK(bits16(bout) == std::vector<uint16_t>{0x3f80, 0xc049});
  }
  SUBCASE("Half to integers saturates, NaN to 0; to bool is nonzero") {
    auto h = make(H, {6}, {3.140625, -2.5, 65504, nan, inf, -inf});
    auto i = zeros(I, {6});
    check_ok(Args().t(h).b(false).none().t(i).run("aten::_to_copy.out"));
    check_tensor(i.tensor(), I, {6}, {3, -2, 65504, 0, 2147483647.0, -2147483648.0});
    auto c = zeros(C8, {6});
    check_ok(Args().t(h).b(false).none().t(c).run("aten::_to_copy.out"));
    check_tensor(c.tensor(), C8, {6}, {3, -2, 127, 0, 127, -128});
    auto z = make(H, {4}, {0, -0.0, 0.5, nan});
    auto b = zeros(B, {4});
    check_ok(Args().t(z).b(false).none().t(b).run("aten::_to_copy.out"));
    check_tensor(b.tensor(), B, {4}, {0, 0, 1, 1});
  }
  SUBCASE("Half and BFloat16 to float64 are exact; between each other they round") {
    auto h = make(H, {3}, {0.333251953125, 0x1p-24, -65504});
    auto d = zeros(D, {3});
    check_ok(Args().t(h).b(false).none().t(d).run("aten::_to_copy.out"));
    check_tensor(d.tensor(), D, {3}, {0.333251953125, 0x1p-24, -65504});
    // 0.333251953125 is float32 0x3eaaa000: its low half 0xa000 is past the tie, up to 0x3eab.
    auto bf = zeros(BF, {3});
    check_ok(Args().t(h).b(false).none().t(bf).run("aten::_to_copy.out"));
    CHECK(bits16(bf) == std::vector<uint16_t>{0x3eab, 0x3380, 0xc780});
    // 3.140625 is exact in both; 65536 in BFloat16 is past Half's range.
    auto b2 = make(BF, {2}, {3.140625, 65536});
    auto h2 = zeros(H, {2});
    check_ok(Args().t(b2).b(false).none().t(h2).run("aten::_to_copy.out"));
    CHECK(bits16(h2) == std::vector<uint16_t>{0x4248, 0x7c00});
  }
  SUBCASE("a non-default dim order, rank 0 and empty") {
    auto a = make(H, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).b(false).none().t(out).run("aten::_to_copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto back = zeros(BF, {2, 3}, {1, 0});
    check_ok(Args().t(out).b(false).none().t(back).run("aten::_to_copy.out"));
    // Memory order of a (3, 2)-strided layout: 1, 4, 2, 5, 3, 6.
    CHECK(bits16(back) ==
          std::vector<uint16_t>{0x3f80, 0x4080, 0x4000, 0x40a0, 0x4040, 0x40c0});
    auto s = make(D, {}, {-0.5});
    auto hs = zeros(H, {});
    check_ok(Args().t(s).b(false).none().t(hs).run("aten::_to_copy.out"));
    CHECK(bits16(hs) == std::vector<uint16_t>{0xb800});
    auto e = zeros(H, {0, 3});
    auto eout = zeros(L, {0, 3});
    check_ok(Args().t(e).b(false).none().t(eout).run("aten::_to_copy.out"));
  }
  SUBCASE("a dtype that is neither computed nor 16-bit floating is refused") {
    auto a = make(F, {2}, {1, 2});
    auto u16 = zeros(ScalarType::UInt16, {2});
    check_error(Args().t(a).b(false).none().t(u16).run("aten::_to_copy.out"),
                ErrorCode::InvalidType, "out has dtype uint16, expected one of bool");
  }
}

TEST_CASE("kernel copy and _to_dim_order_copy convert Half and BFloat16") {
  SUBCASE("copy.out broadcasts a Half src into float32 in self's dtype") {
    auto self = zeros(F, {2, 3});
    auto src = make(H, {3}, {0.5, -1, 65504});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(self).t(src).b(false).t(out).run("aten::copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {0.5, -1, 65504, 0.5, -1, 65504});
  }
  SUBCASE("copy.out into a BFloat16 self") {
    auto self = zeros(BF, {2});
    auto src = make(I, {2}, {257, -3});  // 257 needs 9 bits: a tie that goes to even 256
    auto out = zeros(BF, {2});
    check_ok(Args().t(self).t(src).b(false).t(out).run("aten::copy.out"));
    CHECK(bits16(out) == std::vector<uint16_t>{0x4380, 0xc040});
  }
  SUBCASE("_to_dim_order_copy to Half") {
    auto a = make(F, {2, 2}, {1, 2, 3, 4});
    auto out = zeros(H, {2, 2}, {1, 0});
    check_ok(Args().t(a).b(false).ints({1, 0}).t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    CHECK(bits16(out) == std::vector<uint16_t>{0x3c00, 0x4200, 0x4000, 0x4400});
  }
}

}  // namespace
}  // namespace etkit::test
