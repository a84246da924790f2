// aten::convolution.out: hand-computed cases, a reference built as im2col + a naive matrix
// product (independent of the kernel's implicit GEMM), 1x1 == mm, depthwise == per-channel
// convolution, every dim order, 1-D, float64, empty batches and errors.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kConv = "aten::convolution.out";

struct Conv2d {
  int n, cin, h, w, cout, kh, kw, groups, stride, pad, dil;
  int oh() const { return (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1; }
  int ow() const { return (w + 2 * pad - dil * (kw - 1) - 1) / stride + 1; }
};

// out[n, g] = W[g] (cout_g x K) @ cols (K x OH*OW), cols built explicitly (im2col).
std::vector<double> reference(const Conv2d& c, const std::vector<double>& in,
                              const std::vector<double>& wt, const std::vector<double>& bias) {
  const int cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  const int oh = c.oh(), ow = c.ow(), k = cin_g * c.kh * c.kw, cols_n = oh * ow;
  std::vector<double> out(static_cast<size_t>(c.n * c.cout * cols_n));
  for (int n = 0; n < c.n; ++n) {
    for (int g = 0; g < c.groups; ++g) {
      std::vector<double> cols(static_cast<size_t>(k * cols_n), 0.0);
      for (int ci = 0; ci < cin_g; ++ci)
        for (int r = 0; r < c.kh; ++r)
          for (int s = 0; s < c.kw; ++s)
            for (int y = 0; y < oh; ++y)
              for (int x = 0; x < ow; ++x) {
                const int iy = y * c.stride - c.pad + r * c.dil;
                const int ix = x * c.stride - c.pad + s * c.dil;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const int row = (ci * c.kh + r) * c.kw + s;
                cols[static_cast<size_t>(row * cols_n + y * ow + x)] =
                    in[static_cast<size_t>(((n * c.cin + g * cin_g + ci) * c.h + iy) * c.w + ix)];
              }
      for (int co = 0; co < cout_g; ++co) {
        const int oc = g * cout_g + co;
        for (int j = 0; j < cols_n; ++j) {
          double sum = bias.empty() ? 0.0 : bias[static_cast<size_t>(oc)];
          for (int p = 0; p < k; ++p) {
            sum += wt[static_cast<size_t>(oc * k + p)] * cols[static_cast<size_t>(p * cols_n + j)];
          }
          out[static_cast<size_t>((n * c.cout + oc) * cols_n + j)] = sum;
        }
      }
    }
  }
  return out;
}

void check_against_reference(const Conv2d& c, bool with_bias, std::vector<uint8_t> order,
                             ScalarType dtype = F) {
  const auto iv = pseudo_random(static_cast<size_t>(c.n * c.cin * c.h * c.w), 1);
  const auto wv = pseudo_random(static_cast<size_t>(c.cout * (c.cin / c.groups) * c.kh * c.kw), 2);
  const auto bv = with_bias ? pseudo_random(static_cast<size_t>(c.cout), 3) : std::vector<double>{};
  auto in = make(dtype, {c.n, c.cin, c.h, c.w}, iv, order);
  auto wt = make(dtype, {c.cout, c.cin / c.groups, c.kh, c.kw}, wv, order);
  auto bias = make(dtype, {c.cout}, with_bias ? bv : std::vector<double>(static_cast<size_t>(c.cout)));
  auto out = zeros(dtype, {c.n, c.cout, c.oh(), c.ow()}, order);
  Args a;
  a.t(in).t(wt);
  if (with_bias) a.t(bias); else a.none();
  check_ok(a.ints({c.stride}).ints({c.pad}).ints({c.dil}).b(false).ints({0}).i(c.groups).t(out)
               .run(kConv));
  check_close(values(out.tensor()), reference(c, iv, wv, bv), dtype == F ? 1e-5 : 1e-12);
}

TEST_CASE("kernel conv: registered") { CHECK(registered(kConv)); }

TEST_CASE("kernel conv: hand-computed 2-D and 1-D") {
  auto in = make(F, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto wt = make(F, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto bias = make(F, {1}, {10});
  auto out = zeros(F, {1, 1, 2, 2});
  check_ok(Args().t(in).t(wt).t(bias).ints({1, 1}).ints({0, 0}).ints({1, 1}).b(false).ints({0, 0})
               .i(1).t(out).run(kConv));
  check_tensor(out.tensor(), F, {1, 1, 2, 2}, {22, 26, 34, 38});

  // 1-D, padding 1, stride 2: input [1 2 3 4 5], kernel [1 0 -1].
  auto in1 = make(F, {1, 1, 5}, {1, 2, 3, 4, 5});
  auto w1 = make(F, {1, 1, 3}, {1, 0, -1});
  auto out1 = zeros(F, {1, 1, 3});
  check_ok(Args().t(in1).t(w1).none().ints({2}).ints({1}).ints({1}).b(false).ints({0}).i(1)
               .t(out1).run(kConv));
  check_tensor(out1.tensor(), F, {1, 1, 3}, {-2, -2, 4});
}

TEST_CASE("kernel conv: against im2col + matmul") {
  SUBCASE("3x3, padding, bias, crossing every GEMM block") {
    check_against_reference({2, 20, 11, 13, 37, 3, 3, 1, 1, 1, 1}, true, {});
  }
  SUBCASE("groups, stride 2, dilation 2") {
    check_against_reference({1, 6, 9, 10, 4, 3, 2, 2, 2, 1, 2}, true, {});
  }
  SUBCASE("channels-last input, weight and out") {
    check_against_reference({1, 8, 7, 6, 5, 3, 3, 1, 1, 1, 1}, true, {0, 2, 3, 1});
    check_against_reference({1, 4, 7, 6, 4, 3, 3, 4, 2, 1, 1}, false, {0, 2, 3, 1});
  }
  SUBCASE("float64") {
    check_against_reference({1, 5, 6, 6, 3, 2, 2, 1, 1, 0, 1}, true, {}, D);
  }
}

TEST_CASE("kernel conv: 1x1 kernel equals mm") {
  const int cin = 5, cout = 3, hw = 12;
  const auto iv = pseudo_random(static_cast<size_t>(cin * hw), 4);
  const auto wv = pseudo_random(static_cast<size_t>(cout * cin), 5);
  auto in = make(F, {1, cin, 3, 4}, iv);
  auto wt = make(F, {cout, cin, 1, 1}, wv);
  auto out = zeros(F, {1, cout, 3, 4});
  check_ok(Args().t(in).t(wt).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1).t(out)
               .run(kConv));
  auto a = make(F, {cout, cin}, wv);
  auto b = make(F, {cin, hw}, iv);
  auto mm = zeros(F, {cout, hw});
  check_ok(Args().t(a).t(b).t(mm).run("aten::mm.out"));
  check_close(values(out.tensor()), values(mm.tensor()), 1e-6);
}

TEST_CASE("kernel conv: depthwise equals per-channel convolution") {
  const int c = 3, h = 9, w = 8;
  const auto iv = pseudo_random(static_cast<size_t>(c * h * w), 6);
  const auto wv = pseudo_random(static_cast<size_t>(c * 9), 7);
  for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
    for (int stride : {1, 2}) {
      CAPTURE(stride);
      auto in = make(F, {1, c, h, w}, iv, order);
      auto wt = make(F, {c, 1, 3, 3}, wv);
      const int oh = (h + 2 - 3) / stride + 1, ow = (w + 2 - 3) / stride + 1;
      auto out = zeros(F, {1, c, oh, ow}, order);
      check_ok(Args().t(in).t(wt).none().ints({stride}).ints({1}).ints({1}).b(false).ints({0})
                   .i(c).t(out).run(kConv));
      const auto got = values(out.tensor());
      for (int ch = 0; ch < c; ++ch) {
        CAPTURE(ch);
        auto in1 = make(F, {1, 1, h, w}, std::vector<double>(iv.begin() + ch * h * w, iv.begin() + (ch + 1) * h * w));
        auto w1 = make(F, {1, 1, 3, 3}, std::vector<double>(wv.begin() + ch * 9, wv.begin() + (ch + 1) * 9));
        auto o1 = zeros(F, {1, 1, oh, ow});
        check_ok(Args().t(in1).t(w1).none().ints({stride}).ints({1}).ints({1}).b(false).ints({0})
                     .i(1).t(o1).run(kConv));
        check_close(std::vector<double>(got.begin() + ch * oh * ow, got.begin() + (ch + 1) * oh * ow),
                    values(o1.tensor()), 1e-6);
      }
    }
  }
}

TEST_CASE("kernel conv: empty batch and dynamic out") {
  auto in = zeros(F, {0, 2, 4, 4});
  auto wt = zeros(F, {3, 2, 3, 3});
  auto out = zeros(F, {0, 3, 2, 2});
  check_ok(Args().t(in).t(wt).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1).t(out)
               .run(kConv));
  auto in2 = make(F, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w2 = make(F, {1, 1, 3, 3}, {0, 0, 0, 0, 1, 0, 0, 0, 0});
  DynamicTensor dyn(F, {1, 1, 4, 4}, 16);
  check_ok(Args().t(in2).t(w2).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
               .t(dyn.tensor()).run(kConv));
  check_tensor(dyn.tensor(), F, {1, 1, 1, 1}, {5});
}

TEST_CASE("kernel conv: errors") {
  auto in = make(F, {1, 2, 3, 3}, std::vector<double>(18, 1.0));
  auto wt = zeros(F, {1, 2, 2, 2});
  auto out = zeros(F, {1, 1, 2, 2});
  check_error(Args().t(in).t(wt).none().ints({1}).ints({0}).ints({1}).b(true).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::NotSupported, "transposed");
  auto iin = zeros(ScalarType::Int, {1, 2, 3, 3});
  check_error(Args().t(iin).t(wt).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::InvalidType, "input has dtype int32, expected float32 or float64");
  auto bad_w = zeros(F, {1, 3, 2, 2});
  check_error(Args().t(in).t(bad_w).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::InvalidArgument, "do not match for 1 groups");
  auto bad_out = zeros(F, {1, 1, 3, 3});
  check_error(Args().t(in).t(wt).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(bad_out).run(kConv),
              ErrorCode::InvalidArgument, "out has sizes [1, 1, 3, 3], expected [1, 1, 2, 2]");
  auto big_w = zeros(F, {1, 2, 5, 5});
  check_error(Args().t(in).t(big_w).none().ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::InvalidArgument, "smaller than the dilated kernel");
  check_error(Args().t(in).t(wt).none().ints({0}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::InvalidArgument, "stride has value 0");
  auto bias = zeros(F, {2});
  check_error(Args().t(in).t(wt).t(bias).ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1)
                  .t(out).run(kConv),
              ErrorCode::InvalidArgument, "bias has sizes [2], expected [1]");
  check_error(Args().t(in).t(wt).t(out).run(kConv), ErrorCode::InvalidArgument,
              "expected 11 arguments");
  // A padding past int32 is refused before the size arithmetic; one just inside it gives an
  // output extent past int32, which would have been truncated into out's sizes while the loops
  // ran to the full extent: an out-of-bounds write.
  check_error(Args().t(in).t(wt).none().ints({1}).ints({int64_t{1} << 40}).ints({1}).b(false)
                  .ints({0}).i(1).t(out).run(kConv),
              ErrorCode::InvalidArgument, "padding 1099511627776 is larger than 2^31 - 1");
  check_error(Args().t(in).t(wt).none().ints({1}).ints({INT32_MAX}).ints({1}).b(false)
                  .ints({0}).i(1).t(out).run(kConv),
              ErrorCode::InvalidArgument, "the output would be 4294967296 x 4294967296");
}

}  // namespace
}  // namespace etkit::test
