// _softmax and _log_softmax: rows sum to 1 and equal exp(x - max) / sum computed here, log_softmax
// equals log(softmax), stability for large inputs, any dim and dim order, rank 0, empty, errors.

#include <doctest/doctest.h>

#include <cmath>
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

}  // namespace
}  // namespace etkit::test
