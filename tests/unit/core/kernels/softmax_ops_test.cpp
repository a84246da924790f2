// _softmax and _log_softmax: rows sum to 1 and equal exp(x - max) / sum computed here, log_softmax
// equals log(softmax), stability for large inputs, any dim and dim order, rank 0, empty, errors.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kSoftmax = "aten::_softmax.out";
constexpr const char* kLogSoftmax = "aten::_log_softmax.out";

// softmax of a contiguous (outer, len, inner) array along the middle dimension.
std::vector<double> reference(const std::vector<double>& x, int outer, int len, int inner,
                              bool log) {
  std::vector<double> y(x.size());
  for (int o = 0; o < outer; ++o) {
    for (int i = 0; i < inner; ++i) {
      auto at = [&](int j) { return static_cast<size_t>((o * len + j) * inner + i); };
      double m = x[at(0)];
      for (int j = 1; j < len; ++j) m = std::max(m, x[at(j)]);
      double sum = 0;
      for (int j = 0; j < len; ++j) sum += std::exp(x[at(j)] - m);
      for (int j = 0; j < len; ++j) {
        y[at(j)] = log ? x[at(j)] - m - std::log(sum) : std::exp(x[at(j)] - m) / sum;
      }
    }
  }
  return y;
}

TEST_CASE("kernel softmax: registered") {
  CHECK(registered(kSoftmax));
  CHECK(registered(kLogSoftmax));
}

TEST_CASE("kernel softmax: hand-computed, rows sum to 1, log_softmax is log(softmax)") {
  auto in = make(F, {2, 3}, {1, 2, 3, 1000, 1000, 1000});
  auto out = zeros(F, {2, 3});
  check_ok(Args().t(in).i(-1).b(false).t(out).run(kSoftmax));
  const double e = std::exp(1.0), z = 1 + e + e * e;
  check_tensor(out.tensor(), F, {2, 3}, {1 / z, e / z, e * e / z, 1 / 3.0, 1 / 3.0, 1 / 3.0});
  auto lout = zeros(F, {2, 3});
  check_ok(Args().t(in).i(1).b(false).t(lout).run(kLogSoftmax));
  const auto s = values(out.tensor());
  const auto l = values(lout.tensor());
  for (size_t i = 0; i < s.size(); ++i) CHECK(l[i] == doctest::Approx(std::log(s[i])).epsilon(1e-5));
}

TEST_CASE("kernel softmax: every dim, dim orders and wide rows against a reference") {
  const auto x = pseudo_random(2 * 3 * 4 * 5, 11);
  for (int dim = 0; dim < 4; ++dim) {
    for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
      for (bool log : {false, true}) {
        CAPTURE(dim);
        CAPTURE(log);
        const int sizes[4] = {2, 3, 4, 5};
        int outer = 1, inner = 1;
        for (int d = 0; d < dim; ++d) outer *= sizes[d];
        for (int d = dim + 1; d < 4; ++d) inner *= sizes[d];
        auto in = make(D, {2, 3, 4, 5}, x, order);
        auto out = zeros(D, {2, 3, 4, 5}, order);
        check_ok(Args().t(in).i(dim).b(false).t(out).run(log ? kLogSoftmax : kSoftmax));
        check_close(values(out.tensor()), reference(x, outer, sizes[dim], inner, log), 1e-12);
      }
    }
  }
  const auto wide = pseudo_random(3 * 1000, 12);
  auto in = make(F, {3, 1000}, wide);
  auto out = zeros(F, {3, 1000});
  check_ok(Args().t(in).i(1).b(false).t(out).run(kSoftmax));
  const auto got = values(out.tensor());
  check_close(got, reference(wide, 3, 1000, 1, false), 1e-5);
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int j = 0; j < 1000; ++j) sum += got[static_cast<size_t>(r * 1000 + j)];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("kernel softmax: rank 0, empty, dynamic out and errors") {
  auto s = make(F, {}, {7});
  auto so = zeros(F, {});
  check_ok(Args().t(s).i(0).b(false).t(so).run(kSoftmax));
  check_tensor(so.tensor(), F, {}, {1});
  check_ok(Args().t(s).i(-1).b(false).t(so).run(kLogSoftmax));
  check_tensor(so.tensor(), F, {}, {0});
  auto e = zeros(F, {0, 4});
  auto eo = zeros(F, {0, 4});
  check_ok(Args().t(e).i(1).b(false).t(eo).run(kSoftmax));
  auto in = make(F, {1, 2}, {0, 0});
  DynamicTensor dyn(F, {4, 4}, 16);
  check_ok(Args().t(in).i(1).b(false).t(dyn.tensor()).run(kSoftmax));
  check_tensor(dyn.tensor(), F, {1, 2}, {0.5, 0.5});

  auto out = zeros(F, {1, 2});
  check_error(Args().t(in).i(1).b(true).t(out).run(kSoftmax), ErrorCode::NotSupported,
              "half_to_float");
  check_error(Args().t(in).i(2).b(false).t(out).run(kSoftmax), ErrorCode::InvalidArgument,
              "dim 2 is out of range");
  auto iin = zeros(ScalarType::Int, {1, 2});
  check_error(Args().t(iin).i(1).b(false).t(out).run(kSoftmax), ErrorCode::InvalidType,
              "self has dtype int32");
  auto dout = zeros(D, {1, 2});
  check_error(Args().t(in).i(1).b(false).t(dout).run(kLogSoftmax), ErrorCode::InvalidType,
              "out has dtype float64, expected float32");
  auto bad = zeros(F, {2, 2});
  check_error(Args().t(in).i(1).b(false).t(bad).run(kSoftmax), ErrorCode::InvalidArgument,
              "out has sizes [2, 2], expected [1, 2]");
  check_error(Args().t(in).i(1).t(out).run(kSoftmax), ErrorCode::InvalidArgument,
              "expected 5 arguments");
}

// Float rows exponentiate with fast_exp (fast_math.h): the contiguous (vectorized, a width that
// is not a multiple of the 16 summing lanes) and strided rows against the double reference, with
// masked (-inf) entries, which give exactly 0 (softmax) and -inf (log_softmax).
TEST_CASE("kernel softmax: float rows, contiguous and strided, with -inf masks") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int len = 1003;
  std::vector<double> x = pseudo_random(4 * len, 13);
  for (double& v : x) v *= 30;  // spread e^(x - max) over many binades
  for (int r = 0; r < 4; ++r) x[static_cast<size_t>(r * len + 5 * r + 1)] = -kInf;
  for (bool log : {false, true}) {
    CAPTURE(log);
    const std::vector<double> want = reference(x, 4, len, 1, log);
    for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{1, 0}}) {
      CAPTURE(order.size());
      auto in = make(F, {4, len}, x, order);
      auto out = zeros(F, {4, len}, order);
      check_ok(Args().t(in).i(1).b(false).t(out).run(log ? kLogSoftmax : kSoftmax));
      const std::vector<double> got = values(out.tensor());
      for (int r = 0; r < 4; ++r) {
        const double masked = got[static_cast<size_t>(r * len + 5 * r + 1)];
        CHECK(masked == (log ? -kInf : 0.0));
      }
      std::vector<double> got_finite;
      std::vector<double> want_finite;
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isinf(want[i])) continue;
        got_finite.push_back(got[i]);
        want_finite.push_back(want[i]);
      }
      // Relative to each value for softmax (1e-5 * (1 + |want|) is absolute for small values, so
      // also check the relative error of the large ones); log_softmax is within 1e-5 absolute.
      check_close(got_finite, want_finite, 1e-5);
      if (!log) {
        for (size_t i = 0; i < got_finite.size(); ++i) {
          if (want_finite[i] < 1e-30) continue;
          const double rel = std::fabs(got_finite[i] - want_finite[i]) / want_finite[i];
          if (rel > 1e-5) {
            INFO("element ", i, ": got ", got_finite[i], ", want ", want_finite[i]);
            CHECK(rel <= 1e-5);
            break;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace etkit::test
