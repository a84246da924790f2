// _native_batch_norm_legit_no_training and native_layer_norm: the batch-norm formula computed
// here, layer-norm rows with mean 0 and variance 1 before the affine part, mean/rstd outs, dim
// orders, empty shapes and errors.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kBatch = "aten::_native_batch_norm_legit_no_training.out";
constexpr const char* kLayer = "aten::native_layer_norm.out";

TEST_CASE("kernel norm: registered") {
  CHECK(registered(kBatch));
  CHECK(registered(kLayer));
}

TEST_CASE("kernel batch_norm: formula, dim orders, optional affine") {
  const int n = 2, c = 3, h = 2, w = 2;
  const auto x = pseudo_random(n * c * h * w, 21);
  const std::vector<double> mean = {0.5, -1, 2}, var = {1, 4, 0.25}, wt = {2, 1, -1},
                            bias = {0, 1, 3};
  const double eps = 1e-5;
  for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
    for (bool affine : {true, false}) {
      CAPTURE(affine);
      std::vector<double> want(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const size_t ch = (i / (h * w)) % c;
        const double y = (x[i] - mean[ch]) / std::sqrt(var[ch] + eps);
        want[i] = affine ? y * wt[ch] + bias[ch] : y;
      }
      auto in = make(F, {n, c, h, w}, x, order);
      auto m = make(F, {c}, mean);
      auto v = make(F, {c}, var);
      auto wv = make(F, {c}, wt);
      auto bv = make(F, {c}, bias);
      auto out = zeros(F, {n, c, h, w}, order);
      HostTensor o1h = zeros(F, {0});
      auto o2h = zeros(F, {0});
      Args a;
      a.t(in);
      if (affine) a.t(wv).t(bv); else a.none().none();
      check_ok(a.t(m).t(v).d(0.1).d(eps).t(out).t(o1h).t(o2h).run_outs(kBatch, 3));
      check_close(values(out.tensor()), want, 1e-5);
      CHECK(sizes(o1h.tensor()) == std::vector<int32_t>{0});
    }
  }
  // 2-D input (N, C) in float64.
  auto in = make(D, {2, 2}, {1, 2, 3, 4});
  auto m = make(D, {2}, {1, 2});
  auto v = make(D, {2}, {1, 1});
  auto out = zeros(D, {2, 2});
  auto o1 = zeros(D, {0});
  auto o2 = zeros(D, {0});
  check_ok(Args().t(in).none().none().t(m).t(v).d(0.1).d(0.0).t(out).t(o1).t(o2)
               .run_outs(kBatch, 3));
  check_tensor(out.tensor(), D, {2, 2}, {0, 0, 2, 2});
}

TEST_CASE("kernel batch_norm: errors") {
  auto in = zeros(F, {1, 2, 2});
  auto m = zeros(F, {3});
  auto v = zeros(F, {2});
  auto out = zeros(F, {1, 2, 2});
  auto o1 = zeros(F, {0});
  auto o2 = zeros(F, {0});
  check_error(Args().t(in).none().none().t(m).t(v).d(0.1).d(1e-5).t(out).t(o1).t(o2)
                  .run_outs(kBatch, 3),
              ErrorCode::InvalidArgument, "running_mean has sizes [3], expected [2]");
  auto dv = zeros(D, {2});
  check_error(Args().t(in).none().none().t(v).t(dv).d(0.1).d(1e-5).t(out).t(o1).t(o2)
                  .run_outs(kBatch, 3),
              ErrorCode::InvalidType, "running_var has dtype float64, expected float32");
  auto bad = zeros(F, {1, 2, 3});
  check_error(Args().t(in).none().none().t(v).t(v).d(0.1).d(1e-5).t(bad).t(o1).t(o2)
                  .run_outs(kBatch, 3),
              ErrorCode::InvalidArgument, "out has sizes [1, 2, 3], expected [1, 2, 2]");
  check_error(Args().t(in).none().none().t(v).t(v).d(0.1).t(out).t(o1).t(o2)
                  .run_outs(kBatch, 3),
              ErrorCode::InvalidArgument, "expected 11 arguments");
}

TEST_CASE("kernel layer_norm: rows normalized, mean and rstd outs") {
  const int rows = 6, n = 40;
  const auto x = pseudo_random(rows * n, 31);
  for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{2, 0, 1}}) {
    // Normalize over the last two dims (5 x 8) of a (6, 5, 8) tensor.
    auto in = make(F, {rows, 5, 8}, x, order);
    auto out = zeros(F, {rows, 5, 8}, order);
    auto mean = zeros(F, {rows, 1, 1});
    auto rstd = zeros(F, {rows, 1, 1});
    check_ok(Args().t(in).ints({5, 8}).none().none().d(1e-5).t(out).t(mean).t(rstd)
                 .run_outs(kLayer, 3));
    const auto y = values(out.tensor());
    const auto mv = values(mean.tensor());
    const auto rv = values(rstd.tensor());
    for (int r = 0; r < rows; ++r) {
      double s = 0, sq = 0, xs = 0, xsq = 0;
      for (int j = 0; j < n; ++j) {
        const double v = y[static_cast<size_t>(r * n + j)];
        const double xv = x[static_cast<size_t>(r * n + j)];
        s += v;
        sq += v * v;
        xs += xv;
        xsq += xv * xv;
      }
      CHECK(s / n == doctest::Approx(0.0).epsilon(1e-5).scale(1));
      CHECK(sq / n == doctest::Approx(1.0).epsilon(1e-3));
      const double xm = xs / n;
      CHECK(mv[static_cast<size_t>(r)] == doctest::Approx(xm).epsilon(1e-5));
      CHECK(rv[static_cast<size_t>(r)] ==
            doctest::Approx(1 / std::sqrt(xsq / n - xm * xm + 1e-5)).epsilon(1e-4));
    }
  }
  // Affine: y * w + b, in float64.
  auto in = make(D, {2, 2}, {1, 3, 5, 5});
  auto w = make(D, {2}, {2, 3});
  auto b = make(D, {2}, {1, -1});
  auto out = zeros(D, {2, 2});
  auto mean = zeros(D, {2, 1});
  auto rstd = zeros(D, {2, 1});
  check_ok(Args().t(in).ints({2}).t(w).t(b).d(1e-12).t(out).t(mean).t(rstd).run_outs(kLayer, 3));
  check_tensor(out.tensor(), D, {2, 2}, {-1, 2, 1, -1});
  check_tensor(mean.tensor(), D, {2, 1}, {2, 5});
}

TEST_CASE("kernel layer_norm: empty rows and errors") {
  auto in = zeros(F, {3, 0});
  auto out = zeros(F, {3, 0});
  auto mean = zeros(F, {3, 1});
  auto rstd = zeros(F, {3, 1});
  check_ok(Args().t(in).ints({0}).none().none().d(1e-5).t(out).t(mean).t(rstd)
               .run_outs(kLayer, 3));
  CHECK(std::isnan(values(rstd.tensor())[0]));

  auto x = zeros(F, {2, 3});
  auto o = zeros(F, {2, 3});
  auto m = zeros(F, {2, 1});
  auto r = zeros(F, {2, 1});
  check_error(Args().t(x).ints({2}).none().none().d(1e-5).t(o).t(m).t(r).run_outs(kLayer, 3),
              ErrorCode::InvalidArgument, "normalized_shape [2] does not match");
  auto w = zeros(F, {2});
  check_error(Args().t(x).ints({3}).t(w).none().d(1e-5).t(o).t(m).t(r).run_outs(kLayer, 3),
              ErrorCode::InvalidArgument, "weight has sizes [2], expected [3]");
  auto bad_m = zeros(F, {2, 2});
  check_error(Args().t(x).ints({3}).none().none().d(1e-5).t(o).t(bad_m).t(r)
                  .run_outs(kLayer, 3),
              ErrorCode::InvalidArgument, "out has sizes [2, 2], expected [2, 1]");
  auto lx = zeros(ScalarType::Long, {2, 3});
  check_error(Args().t(lx).ints({3}).none().none().d(1e-5).t(o).t(m).t(r).run_outs(kLayer, 3),
              ErrorCode::InvalidType, "input has dtype int64, expected float32 or float64");
}

}  // namespace
}  // namespace etkit::test
