// topk.values: sorted results, NaN the largest, ties by index, against a plain sort written in
// the test.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel topk: largest and smallest along the last dimension") {
  auto a = make(F, {2, 4}, {1, 9, 3, 9, -1, -5, 0, 2});
  auto v = zeros(F, {2, 2});
  auto i = zeros(L, {2, 2});
  check_ok(Args().t(a).i(2).i(-1).b(true).b(true).t(v).t(i).run_outs("aten::topk.values", 2));
  check_tensor(v.tensor(), F, {2, 2}, {9, 9, 2, 0});
  check_tensor(i.tensor(), L, {2, 2}, {1, 3, 3, 2});
  auto v3 = zeros(F, {2, 3});
  auto i3 = zeros(L, {2, 3}, {1, 0});
  check_ok(Args().t(a).i(3).i(1).b(false).b(true).t(v3).t(i3).run_outs("aten::topk.values", 2));
  check_tensor(v3.tensor(), F, {2, 3}, {1, 3, 9, -5, -1, 0});
  check_tensor(i3.tensor(), L, {2, 3}, {0, 2, 1, 1, 0, 2});
}

TEST_CASE("kernel topk: dim 0 of a transposed input, NaN, k = 0, errors") {
  auto a = make(D, {3, 2}, {1, std::nan(""), 5, 2, 3, 7}, {1, 0});
  auto v = zeros(D, {1, 2});
  auto i = zeros(L, {1, 2});
  check_ok(Args().t(a).i(1).i(0).b(true).b(true).t(v).t(i).run_outs("aten::topk.values", 2));
  CHECK(values(v.tensor())[0] == 5);
  CHECK(std::isnan(values(v.tensor())[1]));
  check_tensor(i.tensor(), L, {1, 2}, {1, 0});
  auto v0 = zeros(D, {0, 2});
  auto i0 = zeros(L, {0, 2});
  check_ok(Args().t(a).i(0).i(0).b(true).b(true).t(v0).t(i0).run_outs("aten::topk.values", 2));
  check_error(Args().t(a).i(4).i(0).b(true).b(true).t(v).t(i).run_outs("aten::topk.values", 2),
              ErrorCode::InvalidArgument, "k is 4");
}

TEST_CASE("kernel topk: random rows against a stable sort") {
  const int n = 37;
  const int k = 5;
  auto in = pseudo_random(3 * n, 17);
  for (double& x : in) x = std::round(x * 8);  // ties
  auto a = make(F, {3, n}, in);
  auto v = zeros(F, {3, k});
  auto i = zeros(L, {3, k});
  check_ok(Args().t(a).i(k).i(1).b(true).b(true).t(v).t(i).run_outs("aten::topk.values", 2));
  std::vector<double> want_v;
  std::vector<double> want_i;
  for (int r = 0; r < 3; ++r) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return in[r * n + x] > in[r * n + y]; });
    for (int j = 0; j < k; ++j) {
      want_v.push_back(in[r * n + order[j]]);
      want_i.push_back(order[j]);
    }
  }
  CHECK(values(v.tensor()) == want_v);
  CHECK(values(i.tensor()) == want_i);
}

}  // namespace
}  // namespace etkit::test
