// flip, roll, repeat, tril, pixel_shuffle / pixel_unshuffle, reflection and replication pads;
// expected values by hand from PyTorch's documented examples and definitions.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel flip and roll") {
  auto a = make(I, {2, 3}, {0, 1, 2, 3, 4, 5}, {1, 0});
  auto out = zeros(I, {2, 3});
  check_ok(Args().t(a).ints({-1}).t(out).run("aten::flip.out"));
  check_tensor(out.tensor(), I, {2, 3}, {2, 1, 0, 5, 4, 3});
  check_ok(Args().t(a).ints({0, 1}).t(out).run("aten::flip.out"));
  check_tensor(out.tensor(), I, {2, 3}, {5, 4, 3, 2, 1, 0});
  check_ok(Args().t(a).ints({1}).ints({}).t(out).run("aten::roll.out"));  // flattened
  check_tensor(out.tensor(), I, {2, 3}, {5, 0, 1, 2, 3, 4});
  check_ok(Args().t(a).ints({-1, 1}).ints({1, 0}).t(out).run("aten::roll.out"));
  check_tensor(out.tensor(), I, {2, 3}, {4, 5, 3, 1, 2, 0});
  check_error(Args().t(a).ints({1, 2}).ints({0}).t(out).run("aten::roll.out"),
              ErrorCode::InvalidArgument, "must match");
}

TEST_CASE("kernel repeat") {
  auto a = make(F, {2}, {1, 2});
  auto out = zeros(F, {2, 4});
  check_ok(Args().t(a).ints({2, 2}).t(out).run("aten::repeat.out"));
  check_tensor(out.tensor(), F, {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
  auto b = make(F, {2, 1}, {3, 4});
  auto bout = zeros(F, {4, 2});
  check_ok(Args().t(b).ints({2, 2}).t(bout).run("aten::repeat.out"));
  check_tensor(bout.tensor(), F, {4, 2}, {3, 3, 4, 4, 3, 3, 4, 4});
  check_error(Args().t(b).ints({2}).t(bout).run("aten::repeat.out"), ErrorCode::InvalidArgument,
              "repeats");
}

// flip, roll and repeat on a 3-D tensor, against their definitions written as plain loops: every
// subset of flipped dims, shifts beyond the size and negative, repeats that add a dimension;
// self and out laid out in other dim orders; element sizes 1, 2 and 8.
TEST_CASE("kernel flip / roll / repeat: against their definitions, layouts and element sizes") {
  const int a = 3, b = 4, c = 5;
  std::vector<double> v(static_cast<size_t>(a * b * c));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 97);
  auto at = [&](int i, int j, int k) { return v[static_cast<size_t>((i * b + j) * c + k)]; };
  auto mod = [](int x, int n) { return ((x % n) + n) % n; };
  for (const ScalarType dtype : {U8, H, L}) {
    for (const bool other_orders : {false, true}) {
      CAPTURE(dtype);
      CAPTURE(other_orders);
      const std::vector<uint8_t> in_order = other_orders ? std::vector<uint8_t>{2, 0, 1}
                                                         : std::vector<uint8_t>{};
      const std::vector<uint8_t> out_order = other_orders ? std::vector<uint8_t>{1, 2, 0}
                                                          : std::vector<uint8_t>{};
      auto self = make(dtype, {a, b, c}, v, in_order);
      for (int mask = 0; mask < 8; ++mask) {
        std::vector<int64_t> dims;
        for (int d = 0; d < 3; ++d) {
          if (mask & (1 << d)) dims.push_back(d);
        }
        auto out = zeros(dtype, {a, b, c}, out_order);
        check_ok(Args().t(self).ints(dims).t(out).run("aten::flip.out"));
        std::vector<double> want;
        for (int i = 0; i < a; ++i)
          for (int j = 0; j < b; ++j)
            for (int k = 0; k < c; ++k)
              want.push_back(at(mask & 1 ? a - 1 - i : i, mask & 2 ? b - 1 - j : j,
                                mask & 4 ? c - 1 - k : k));
        CHECK(values(out.tensor()) == want);
      }
      auto rolled = zeros(dtype, {a, b, c}, out_order);
      check_ok(Args().t(self).ints({7, -3, 12}).ints({0, 1, 2}).t(rolled).run("aten::roll.out"));
      std::vector<double> want_roll;
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < b; ++j)
          for (int k = 0; k < c; ++k)
            want_roll.push_back(at(mod(i - 7, a), mod(j + 3, b), mod(k - 12, c)));
      CHECK(values(rolled.tensor()) == want_roll);
      auto repeated = zeros(dtype, {2, 3, 4, 15});
      check_ok(Args().t(self).ints({2, 1, 1, 3}).t(repeated).run("aten::repeat.out"));
      std::vector<double> want_repeat;
      for (int r = 0; r < 2; ++r)
        for (int i = 0; i < a; ++i)
          for (int j = 0; j < b; ++j)
            for (int k = 0; k < 3 * c; ++k) want_repeat.push_back(at(i, j, k % c));
      CHECK(values(repeated.tensor()) == want_repeat);
    }
  }
}

TEST_CASE("kernel tril") {
  auto a = make(F, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = zeros(F, {3, 3});
  check_ok(Args().t(a).i(0).t(out).run("aten::tril.out"));
  check_tensor(out.tensor(), F, {3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9});
  check_ok(Args().t(a).i(-1).t(out).run("aten::tril.out"));
  check_tensor(out.tensor(), F, {3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  check_ok(Args().t(a).i(1).t(out).run("aten::tril.out"));
  check_tensor(out.tensor(), F, {3, 3}, {1, 2, 0, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("kernel pixel_shuffle and pixel_unshuffle are inverse") {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i;
  auto a = make(F, {1, 4, 2, 2}, v);
  auto out = zeros(F, {1, 1, 4, 4});
  check_ok(Args().t(a).i(2).t(out).run("aten::pixel_shuffle.out"));
  // out[0][0][h][w] = a[0][(h % 2) * 2 + (w % 2)][h / 2][w / 2].
  std::vector<double> want;
  for (int h = 0; h < 4; ++h) {
    for (int w = 0; w < 4; ++w) want.push_back(((h % 2) * 2 + (w % 2)) * 4 + (h / 2) * 2 + (w / 2));
  }
  check_tensor(out.tensor(), F, {1, 1, 4, 4}, want);
  auto back = zeros(F, {1, 4, 2, 2});
  check_ok(Args().t(out).i(2).t(back).run("aten::pixel_unshuffle.out"));
  check_tensor(back.tensor(), F, {1, 4, 2, 2}, v);
  check_error(Args().t(a).i(3).t(out).run("aten::pixel_shuffle.out"), ErrorCode::InvalidArgument,
              "divisible");
}

TEST_CASE("kernel reflection and replication pads") {
  auto a = make(F, {1, 3}, {1, 2, 3});
  auto out = zeros(F, {1, 7});
  check_ok(Args().t(a).ints({2, 2}).t(out).run("aten::reflection_pad1d.out"));
  check_tensor(out.tensor(), F, {1, 7}, {3, 2, 1, 2, 3, 2, 1});
  check_ok(Args().t(a).ints({2, 2}).t(out).run("aten::replication_pad1d.out"));
  check_tensor(out.tensor(), F, {1, 7}, {1, 1, 1, 2, 3, 3, 3});
  check_error(Args().t(a).ints({3, 0}).t(out).run("aten::reflection_pad1d.out"),
              ErrorCode::InvalidArgument, "smaller than the size");
  auto b = make(I, {1, 2, 2}, {1, 2, 3, 4});
  auto bout = zeros(I, {1, 3, 4});
  // (left 1, right 1, top 1, bottom 0)
  check_ok(Args().t(b).ints({1, 1, 1, 0}).t(bout).run("aten::reflection_pad2d.out"));
  check_tensor(bout.tensor(), I, {1, 3, 4}, {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3});
  auto rout = zeros(I, {1, 3, 4});
  check_ok(Args().t(b).ints({1, 1, 1, 0}).t(rout).run("aten::replication_pad2d.out"));
  check_tensor(rout.tensor(), I, {1, 3, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4});
  auto c = make(F, {1, 1, 1, 2}, {5, 6});
  auto cout = zeros(F, {1, 3, 1, 2});
  check_ok(Args().t(c).ints({0, 0, 0, 0, 1, 1}).t(cout).run("aten::replication_pad3d.out"));
  check_tensor(cout.tensor(), F, {1, 3, 1, 2}, {5, 6, 5, 6, 5, 6});
}

}  // namespace
}  // namespace etkit::test
