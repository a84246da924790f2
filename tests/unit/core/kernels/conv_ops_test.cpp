// aten::convolution.out and convolution_backward.out: hand-computed cases, a reference built as im2col + a naive matrix
// product (independent of the kernel's implicit GEMM), 1x1 == mm, depthwise == per-channel
// convolution, every dim order, 1-D, float64, empty batches and errors.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "etkit/kernels/gemm.h"
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

TEST_CASE("kernel conv: every GEMM path of this CPU against the reference") {
  namespace gemm = kernels::gemm;
  const gemm::Path before = gemm::active_path();
  for (gemm::Path path : gemm::kPaths) {
    if (!gemm::force_path(path)) continue;
    CAPTURE(gemm::path_name(path));
    // Whole 6x16 tiles written in place (24 x 24 output rows) and ragged ones; channels last
    // scatters output columns (the scratch-tile store).
    check_against_reference({1, 16, 24, 24, 20, 3, 3, 1, 1, 1, 1}, true, {});
    check_against_reference({2, 20, 11, 13, 37, 3, 3, 1, 1, 1, 1}, false, {});
    check_against_reference({1, 8, 7, 6, 5, 3, 3, 1, 1, 1, 1}, true, {0, 2, 3, 1});
  }
  gemm::force_path(before);
}

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

constexpr const char* kConvBackward = "aten::convolution_backward.out";

// Args for convolution_backward.out up to output_mask: (grad_output, input, weight, bias_sizes
// [cout] or None, stride, padding, dilation, transposed=false, output_padding, groups).
Args backward_args(HostTensor& go, HostTensor& in, HostTensor& wt, int64_t bias_cout,
                   std::initializer_list<int64_t> stride, std::initializer_list<int64_t> padding,
                   int64_t groups) {
  Args a;
  a.t(go).t(in).t(wt);
  if (bias_cout > 0) {
    a.ints({bias_cout});
  } else {
    a.none();
  }
  a.ints(stride).ints(padding).ints({1}).b(false).ints({0}).i(groups);
  return a;
}

TEST_CASE("kernel conv backward: registered") { CHECK(registered(kConvBackward)); }

TEST_CASE("kernel conv backward: hand-computed 1-D") {
  // input [1 2 3], weight [1 -1]: out = [-1 -1]. With grad_output [1 2]:
  // grad_input[x] = sum_o go[o] w[x - o] = [1, -1 + 2, -2]; grad_weight[s] = sum_o go[o]
  // in[o + s] = [1 + 4, 2 + 6]; grad_bias = 1 + 2.
  auto go = make(F, {1, 1, 2}, {1, 2});
  auto in = make(F, {1, 1, 3}, {1, 2, 3});
  auto wt = make(F, {1, 1, 2}, {1, -1});
  auto gi = zeros(F, {1, 1, 3});
  auto gw = zeros(F, {1, 1, 2});
  auto gb = zeros(F, {1});
  const bool all[3] = {true, true, true};
  check_ok(backward_args(go, in, wt, 1, {1}, {0}, 1)
               .value(EValue::from_bool_list(all)).t(gi).t(gw).t(gb)
               .run_outs(kConvBackward, 3));
  check_tensor(gi.tensor(), F, {1, 1, 3}, {1, 1, -2});
  check_tensor(gw.tensor(), F, {1, 1, 2}, {5, 8});
  check_tensor(gb.tensor(), F, {1}, {3});
}

TEST_CASE("kernel conv backward: 2-D groups, padding and stride; masked outs stay as they were") {
  // Two groups of one channel, 1x1 kernels [2, 3], padding 1, stride 2 on 2x2 images: of the
  // 2x2 outputs only (1, 1) reads the input, at (1, 1). grad_output all ones.
  auto go = make(F, {1, 2, 2, 2}, std::vector<double>(8, 1));
  auto in = make(F, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 2, 3, 1});
  auto wt = make(F, {2, 1, 1, 1}, {2, 3});
  auto gi = make(F, {1, 2, 2, 2}, std::vector<double>(8, 9), {0, 2, 3, 1});
  auto gw = make(D, {2, 1, 1, 1}, {9, 9});  // masked out: wrong dtype is not looked at
  auto gb = zeros(F, {2});
  const bool mask[3] = {true, false, true};
  check_ok(backward_args(go, in, wt, 2, {2, 2}, {1, 1}, 2)
               .value(EValue::from_bool_list(mask)).t(gi).t(gw).t(gb)
               .run_outs(kConvBackward, 3));
  check_tensor(gi.tensor(), F, {1, 2, 2, 2}, {0, 0, 0, 2, 0, 0, 0, 3});
  check_tensor(gw.tensor(), D, {2, 1, 1, 1}, {9, 9});
  check_tensor(gb.tensor(), F, {2}, {4, 4});
  // grad_weight alone, float64: go at (1, 1) times input (1, 1) of each channel.
  auto go64 = make(D, {1, 2, 2, 2}, std::vector<double>(8, 1));
  auto in64 = make(D, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto wt64 = make(D, {2, 1, 1, 1}, {2, 3});
  auto gw64 = zeros(D, {2, 1, 1, 1});
  const bool weight_only[3] = {false, true, false};
  check_ok(backward_args(go64, in64, wt64, 0, {2, 2}, {1, 1}, 2)
               .value(EValue::from_bool_list(weight_only)).t(gi).t(gw64).t(gb)
               .run_outs(kConvBackward, 3));
  check_tensor(gw64.tensor(), D, {2, 1, 1, 1}, {4, 8});
}

TEST_CASE("kernel conv backward: agrees with finite differences of the forward") {
  // d/dw of sum(conv(x, w) * go) is grad_weight: the forward is linear in w, so a unit change
  // of one weight changes that sum by exactly grad_weight there (and likewise for x).
  const std::vector<double> x = {1, -2, 0.5, 3, 1, 2, -1, 0, 2, 1, 1, -3, 0, 4, 2, -1, 1, 0};
  const std::vector<double> w = {1, 2, -1, 0.5, 0, 1, 2, -2};
  const std::vector<double> g = {1, -1, 2, 0.5, 3, 1, -2, 1};
  auto go = make(D, {1, 2, 2, 2}, g);
  auto in = make(D, {1, 2, 3, 3}, x);
  auto wt = make(D, {2, 1, 2, 2}, w);
  auto gi = zeros(D, {1, 2, 3, 3});
  auto gw = zeros(D, {2, 1, 2, 2});
  auto gb = zeros(D, {2});
  const bool all[3] = {true, true, true};
  check_ok(backward_args(go, in, wt, 2, {1, 1}, {0, 0}, 2)
               .value(EValue::from_bool_list(all)).t(gi).t(gw).t(gb)
               .run_outs(kConvBackward, 3));
  auto objective = [&](const std::vector<double>& xv, const std::vector<double>& wv) {
    auto i = make(D, {1, 2, 3, 3}, xv);
    auto k = make(D, {2, 1, 2, 2}, wv);
    auto out = zeros(D, {1, 2, 2, 2});
    check_ok(Args().t(i).t(k).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).b(false)
                 .ints({0, 0}).i(2).t(out).run(kConv));
    double total = 0;
    const std::vector<double> o = values(out.tensor());
    for (size_t j = 0; j < o.size(); ++j) total += o[j] * g[j];
    return total;
  };
  const double base = objective(x, w);
  const std::vector<double> gw_got = values(gw.tensor());
  for (size_t j = 0; j < w.size(); ++j) {
    std::vector<double> w2 = w;
    w2[j] += 1;
    CHECK(objective(x, w2) - base == doctest::Approx(gw_got[j]));
  }
  const std::vector<double> gi_got = values(gi.tensor());
  for (size_t j = 0; j < x.size(); ++j) {
    std::vector<double> x2 = x;
    x2[j] += 1;
    CHECK(objective(x2, w) - base == doctest::Approx(gi_got[j]));
  }
  CHECK(values(gb.tensor()) == std::vector<double>{1 - 1 + 2 + 0.5, 3 + 1 - 2 + 1});
}

TEST_CASE("kernel conv backward: errors") {
  auto go = zeros(F, {1, 1, 2, 2});
  auto in = zeros(F, {1, 1, 3, 3});
  auto wt = zeros(F, {1, 1, 2, 2});
  auto gi = zeros(F, {1, 1, 3, 3});
  auto gw = zeros(F, {1, 1, 2, 2});
  auto gb = zeros(F, {1});
  const bool all[3] = {true, true, true};
  const bool two[2] = {true, true};
  auto run = [&](HostTensor& grad, HostTensor& grad_in, int64_t bias_cout, const EValue& mask) {
    return backward_args(grad, in, wt, bias_cout, {1, 1}, {0, 0}, 1)
        .value(mask).t(grad_in).t(gw).t(gb).run_outs(kConvBackward, 3);
  };
  check_ok(run(go, gi, 1, EValue::from_bool_list(all)));
  auto bad_go = zeros(F, {1, 1, 3, 3});
  check_error(run(bad_go, gi, 1, EValue::from_bool_list(all)), ErrorCode::InvalidArgument,
              "grad_output has sizes [1, 1, 3, 3], expected [1, 1, 2, 2]");
  check_error(run(go, gi, 2, EValue::from_bool_list(all)), ErrorCode::InvalidArgument,
              "bias_sizes is [2], expected [1] (Cout)");
  check_error(run(go, gi, 1, EValue::from_bool_list(two)), ErrorCode::InvalidType,
              "output_mask is");
  check_error(run(go, gi, 1, EValue::from_int(7)), ErrorCode::InvalidType, "output_mask is");
  auto small_gi = zeros(F, {1, 1, 2, 2});
  check_error(run(go, small_gi, 1, EValue::from_bool_list(all)), ErrorCode::InvalidArgument,
              "out has sizes");
  auto go64 = zeros(D, {1, 1, 2, 2});
  check_error(run(go64, gi, 1, EValue::from_bool_list(all)), ErrorCode::InvalidType,
              "grad_output has dtype float64, expected float32");
  check_error(Args().t(go).t(in).t(wt).none().ints({1, 1}).ints({0, 0}).ints({1}).b(true)
                  .ints({0}).i(1).value(EValue::from_bool_list(all)).t(gi).t(gw).t(gb)
                  .run_outs(kConvBackward, 3),
              ErrorCode::NotSupported, "transposed");
  check_error(Args().t(go).t(in).t(wt).run(kConvBackward), ErrorCode::InvalidArgument,
              "arguments");
}

}  // namespace
}  // namespace etkit::test
