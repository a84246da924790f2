// _native_batch_norm_legit (training and eval) and .no_stats against hand-computed statistics.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel _native_batch_norm_legit: training updates the running stats") {
  // Channel 0: {1, 3, 5, 7} (mean 4, biased var 5, unbiased 20/3); channel 1: all 2.
  auto x = make(F, {2, 2, 2}, {1, 3, 2, 2, 5, 7, 2, 2});
  auto rm = make(F, {2}, {0, 10});
  auto rv = make(F, {2}, {1, 1});
  auto out = zeros(F, {2, 2, 2});
  auto save_mean = zeros(F, {2});
  auto save_invstd = zeros(F, {2});
  check_ok(Args()
               .t(x)
               .none()
               .none()
               .t(rm)
               .t(rv)
               .b(true)
               .d(0.5)
               .d(0.0)
               .t(out)
               .t(save_mean)
               .t(save_invstd)
               .run_outs("aten::_native_batch_norm_legit.out", 3));
  const double r = 1 / std::sqrt(5.0);
  check_tensor(save_mean.tensor(), F, {2}, {4, 2});
  CHECK(values(save_invstd.tensor())[0] == doctest::Approx(r));
  CHECK(std::isinf(values(save_invstd.tensor())[1]));  // zero variance, eps 0
  check_tensor(rm.tensor(), F, {2}, {2, 6});
  check_tensor(rv.tensor(), F, {2}, {0.5 + 0.5 * 20.0 / 3.0, 0.5});
  const auto v = values(out.tensor());
  CHECK(v[0] == doctest::Approx(-3 * r));
  CHECK(v[1] == doctest::Approx(-1 * r));
  CHECK(v[4] == doctest::Approx(1 * r));
  CHECK(v[5] == doctest::Approx(3 * r));
}

TEST_CASE("kernel _native_batch_norm_legit: eval uses the running stats; no_stats trains") {
  auto x = make(D, {1, 1, 2}, {2, 4});
  auto rm = make(D, {1}, {1});
  auto rv = make(D, {1}, {4});
  auto w = make(D, {1}, {2});
  auto b = make(D, {1}, {1});
  auto out = zeros(D, {1, 1, 2});
  auto sm = zeros(D, {0});
  auto si = zeros(D, {0});
  check_ok(Args()
               .t(x)
               .t(w)
               .t(b)
               .t(rm)
               .t(rv)
               .b(false)
               .d(0.1)
               .d(0.0)
               .t(out)
               .t(sm)
               .t(si)
               .run_outs("aten::_native_batch_norm_legit.out", 3));
  check_tensor(out.tensor(), D, {1, 1, 2}, {(2 - 1) / 2.0 * 2 + 1, (4 - 1) / 2.0 * 2 + 1});
  auto out2 = zeros(D, {1, 1, 2});
  auto sm2 = zeros(D, {1});
  auto si2 = zeros(D, {1});
  check_ok(Args()
               .t(x)
               .none()
               .none()
               .b(true)
               .d(0.1)
               .d(0.0)
               .t(out2)
               .t(sm2)
               .t(si2)
               .run_outs("aten::_native_batch_norm_legit.no_stats_out", 3));
  check_tensor(out2.tensor(), D, {1, 1, 2}, {-1, 1});
  check_tensor(sm2.tensor(), D, {1}, {3});
  auto out3 = zeros(D, {1, 1, 2});
  check_error(Args()
                  .t(x)
                  .none()
                  .none()
                  .b(false)
                  .d(0.1)
                  .d(0.0)
                  .t(out3)
                  .t(sm)
                  .t(si)
                  .run_outs("aten::_native_batch_norm_legit.no_stats_out", 3),
              ErrorCode::InvalidArgument, "running statistics");
}

}  // namespace
}  // namespace etkit::test
