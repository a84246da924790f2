// Every family that takes Half and BFloat16 through float16_proxy.h computes what its float32
// kernel computes on the same values, rounded once: each case runs the kernel on float32 tensors
// holding 16-bit values and on the 16-bit tensors themselves, and every 16-bit out must be the
// float32 out rounded to nearest even (index outs equal). A wrong argument or out mapping in the
// proxy (a missed out, a dtype argument left at Half, an out not resized) fails here; the float32
// kernels' own values are checked by hand in their family tests, and the rounding-once property
// by hand-worked values in float16_proxy_test.cpp.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "etkit/runtime/half.h"
#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto BF = ScalarType::BFloat16;

double round_to(ScalarType t, double v) {
  const float f = static_cast<float>(v);
  return t == H ? half_bits_to_float(float_to_half_bits(f))
                : bfloat16_bits_to_float(float_to_bfloat16_bits(f));
}

// Tensors of one run: `dtype` is the tensors' floating dtype, `round` the 16-bit dtype whose
// values they hold.
struct Run {
  ScalarType dtype;
  ScalarType round;
  std::deque<HostTensor> keep;
  std::vector<Tensor*> outs;

  Tensor& in(std::vector<int32_t> sizes, uint32_t seed, double scale = 2.0) {
    int64_t n = 1;
    for (int32_t s : sizes) n *= s;
    std::vector<double> v = pseudo_random(static_cast<size_t>(n), seed);
    for (double& x : v) x = round_to(round, x * scale);
    return keep.emplace_back(make(dtype, sizes, v)).tensor();
  }
  Tensor& index(std::vector<int32_t> sizes, std::vector<double> values) {
    return keep.emplace_back(make(L, sizes, values)).tensor();
  }
  Tensor& out(std::vector<int32_t> sizes, ScalarType t) {
    Tensor& o = keep.emplace_back(zeros(t, sizes)).tensor();
    outs.push_back(&o);
    return o;
  }
  Tensor& out(std::vector<int32_t> sizes) { return out(sizes, dtype); }
};

struct Case {
  const char* name;
  std::function<KernelContext(Run&)> call;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"mm",
       [](Run& r) {
         return Args().t(r.in({3, 4}, 1)).t(r.in({4, 5}, 2)).t(r.out({3, 5})).run("aten::mm.out");
       }},
      {"bmm",
       [](Run& r) {
         return Args()
             .t(r.in({2, 3, 4}, 3))
             .t(r.in({2, 4, 5}, 4))
             .t(r.out({2, 3, 5}))
             .run("aten::bmm.out");
       }},
      {"addmm",
       [](Run& r) {
         return Args()
             .t(r.in({3, 5}, 5))
             .t(r.in({3, 4}, 6))
             .t(r.in({4, 5}, 7))
             .i(1)
             .i(1)
             .t(r.out({3, 5}))
             .run("aten::addmm.out");
       }},
      {"convolution",
       [](Run& r) {
         return Args()
             .t(r.in({1, 2, 5, 5}, 8))
             .t(r.in({3, 2, 3, 3}, 9))
             .t(r.in({3}, 10))
             .ints({1, 1})
             .ints({1, 1})
             .ints({1, 1})
             .b(false)
             .ints({0, 0})
             .i(1)
             .t(r.out({1, 3, 5, 5}))
             .run("aten::convolution.out");
       }},
      {"_softmax",
       [](Run& r) {
         return Args().t(r.in({3, 4}, 11)).i(1).b(false).t(r.out({3, 4})).run("aten::_softmax.out");
       }},
      {"_log_softmax",
       [](Run& r) {
         return Args()
             .t(r.in({3, 4}, 12))
             .i(0)
             .b(false)
             .t(r.out({3, 4}))
             .run("aten::_log_softmax.out");
       }},
      {"native_layer_norm",
       [](Run& r) {
         Tensor& x = r.in({2, 6}, 13);
         Tensor& w = r.in({6}, 14);
         Tensor& b = r.in({6}, 15);
         return Args()
             .t(x)
             .ints({6})
             .t(w)
             .t(b)
             .d(1e-5)
             .t(r.out({2, 6}))
             .t(r.out({2, 1}))
             .t(r.out({2, 1}))
             .run_outs("aten::native_layer_norm.out", 3);
       }},
      {"sum",
       [](Run& r) {
         return Args()
             .t(r.in({3, 4}, 16))
             .ints({1})
             .b(false)
             .none()
             .t(r.out({3}))
             .run("aten::sum.IntList_out");
       }},
      {"mean keepdim",
       [](Run& r) {
         return Args()
             .t(r.in({3, 4}, 17))
             .ints({0})
             .b(true)
             .none()
             .t(r.out({1, 4}))
             .run("aten::mean.out");
       }},
      {"prod",
       [](Run& r) {
         return Args()
             .t(r.in({3, 4}, 18))
             .i(1)
             .b(true)
             .none()
             .t(r.out({3, 1}))
             .run("aten::prod.int_out");
       }},
      {"cumsum",
       [](Run& r) {
         return Args().t(r.in({3, 4}, 19)).i(1).none().t(r.out({3, 4})).run("aten::cumsum.out");
       }},
      {"amin",
       [](Run& r) {
         return Args().t(r.in({3, 4}, 20)).ints({1}).b(false).t(r.out({3})).run("aten::amin.out");
       }},
      {"max.dim",
       [](Run& r) {
         Tensor& x = r.in({3, 4}, 21);
         return Args()
             .t(x)
             .i(1)
             .b(false)
             .t(r.out({3}))
             .t(r.out({3}, L))
             .run_outs("aten::max.dim_max", 2);
       }},
      {"topk",
       [](Run& r) {
         Tensor& x = r.in({2, 5}, 22);
         return Args()
             .t(x)
             .i(3)
             .i(1)
             .b(true)
             .b(true)
             .t(r.out({2, 3}))
             .t(r.out({2, 3}, L))
             .run_outs("aten::topk.values", 2);
       }},
      {"avg_pool2d",
       [](Run& r) {
         return Args()
             .t(r.in({1, 2, 4, 4}, 23))
             .ints({2})
             .ints({2})
             .ints({0})
             .b(false)
             .b(true)
             .none()
             .t(r.out({1, 2, 2, 2}))
             .run("aten::avg_pool2d.out");
       }},
      {"_cdist_forward",
       [](Run& r) {
         return Args()
             .t(r.in({3, 4}, 24))
             .t(r.in({2, 4}, 25))
             .d(2.0)
             .none()
             .t(r.out({3, 2}))
             .run("aten::_cdist_forward.out");
       }},
      {"elu",
       [](Run& r) {
         return Args().t(r.in({8}, 26)).d(0.5).i(2).i(3).t(r.out({8})).run("aten::elu.out");
       }},
      {"leaky_relu",
       [](Run& r) {
         return Args().t(r.in({8}, 27)).d(0.1).t(r.out({8})).run("aten::leaky_relu.out");
       }},
      {"glu",
       [](Run& r) {
         return Args().t(r.in({2, 6}, 28)).i(-1).t(r.out({2, 3})).run("aten::glu.out");
       }},
      {"scatter_add",
       [](Run& r) {
         Tensor& self = r.in({4}, 29);
         Tensor& index = r.index({3}, {0, 0, 2});
         Tensor& src = r.in({3}, 30);
         return Args().t(self).i(0).t(index).t(src).t(r.out({4})).run("aten::scatter_add.out");
       }},
  };
  return all;
}

TEST_CASE("float16 families: the 16-bit out is the float32 kernel's out rounded once") {
  for (ScalarType t : {H, BF}) {
    for (const Case& c : cases()) {
      CAPTURE(std::string(c.name));
      CAPTURE(std::string(scalar_type_name(t)));
      Run f32{F, t, {}, {}};
      check_ok(c.call(f32));
      Run f16{t, t, {}, {}};
      check_ok(c.call(f16));
      REQUIRE(f16.outs.size() == f32.outs.size());
      for (size_t k = 0; k < f16.outs.size(); ++k) {
        CAPTURE(k);
        const Tensor& got = *f16.outs[k];
        const Tensor& want = *f32.outs[k];
        CHECK(sizes(got) == sizes(want));
        const std::vector<double> g = values(got);
        const std::vector<double> w = values(want);
        REQUIRE(g.size() == w.size());
        int mismatches = 0;
        for (size_t i = 0; i < g.size(); ++i) {
          const double expected = want.dtype() == F ? round_to(t, w[i]) : w[i];
          const bool same = (std::isnan(g[i]) && std::isnan(expected)) || g[i] == expected;
          if (!same) ++mismatches;
        }
        CHECK(mismatches == 0);
      }
    }
  }
}

}  // namespace
}  // namespace etkit::test
