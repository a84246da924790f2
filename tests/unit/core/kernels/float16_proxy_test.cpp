// float16_proxy.h: Half and BFloat16 for the float32 kernels (matmul, convolution, softmax,
// norms, reductions), run on float32 copies in temp memory and rounded once on store.
//
// The values are chosen so that accumulating in the 16-bit dtype would give another answer than
// accumulating in float32 (PyTorch's opmath): 2048 + 1 + 1 in Half is 2048 step by step (2049
// rounds to 2048, spacing 2) but 2050 in float32, exactly representable in Half.

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/memory.h"
#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto BF = ScalarType::BFloat16;

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

TEST_CASE("float16 proxy: matmul and convolution accumulate in float32") {
  SUBCASE("mm, Half and BFloat16") {
    auto a = make(H, {1, 3}, {2048, 1, 1});
    auto b = make(H, {3, 1}, {1, 1, 1});
    auto out = zeros(H, {1, 1});
    check_ok(Args().t(a).t(b).t(out).run("aten::mm.out"));
    check_tensor(out.tensor(), H, {1, 1}, {2050});
    // BFloat16 has spacing 2 at 256: 256 + 1 + 1 = 258 in float32, 256 step by step.
    auto ba = make(BF, {1, 3}, {256, 1, 1});
    auto bb = make(BF, {3, 1}, {1, 1, 1});
    auto bout = zeros(BF, {1, 1});
    check_ok(Args().t(ba).t(bb).t(bout).run("aten::mm.out"));
    check_tensor(bout.tensor(), BF, {1, 1}, {258});
  }
  SUBCASE("addmm with a transposed operand") {
    // self + a @ b with b given in dim order (1, 0): [[0.5]] + [2048, 1, 1] . [1, 1, 1] = 2050.5,
    // which rounds to 2050 (ties to even).
    auto self = make(H, {1, 1}, {0.5});
    auto a = make(H, {1, 3}, {2048, 1, 1});
    auto b = make(H, {3, 1}, {1, 1, 1}, {1, 0});
    auto out = zeros(H, {1, 1});
    check_ok(Args().t(self).t(a).t(b).i(1).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), H, {1, 1}, {2050});
  }
  SUBCASE("convolution") {
    // A 2x2 window of ones over [[2048, 1, 1], [1, 1, 1], ...]: 2048 + 3 = 2051, halfway between
    // 2050 and 2052: even is 2052. The other windows sum to 4.
    auto in = make(H, {1, 1, 3, 3}, {2048, 1, 1, 1, 1, 1, 1, 1, 1});
    auto wt = make(H, {1, 1, 2, 2}, {1, 1, 1, 1});
    auto out = zeros(H, {1, 1, 2, 2});
    check_ok(Args().t(in).t(wt).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).b(false).ints({0, 0})
                 .i(1).t(out).run("aten::convolution.out"));
    check_tensor(out.tensor(), H, {1, 1, 2, 2}, {2052, 4, 4, 4});
  }
}

TEST_CASE("float16 proxy: reductions, softmax, norms, several outs") {
  SUBCASE("sum and mean, with and without a Half dtype argument") {
    auto a = make(H, {3}, {2048, 1, 1});
    auto out = zeros(H, {});
    check_ok(Args().t(a).ints({0}).b(false).none().t(out).run("aten::sum.IntList_out"));
    check_tensor(out.tensor(), H, {}, {2050});
    auto out2 = zeros(H, {});
    check_ok(Args().t(a).ints({0}).b(false).i(wire(H)).t(out2).run("aten::sum.IntList_out"));
    check_tensor(out2.tensor(), H, {}, {2050});
    // 2050 / 3 = 683.33, between 683 and 683.5 (spacing 0.5): 683.5.
    auto mean = zeros(H, {});
    check_ok(Args().t(a).ints({0}).b(false).none().t(mean).run("aten::mean.out"));
    check_tensor(mean.tensor(), H, {}, {683.5});
  }
  SUBCASE("softmax and log_softmax") {
    // Half(ln 3) = 1.0986328125: softmax [0.25, 0.75] after rounding; log_softmax
    // [-1.3862..., -0.2876...] -> [-1.38671875, -0.28759765625].
    auto a = make(H, {2}, {0, 1.0986328125});
    auto out = zeros(H, {2});
    check_ok(Args().t(a).i(0).b(false).t(out).run("aten::_softmax.out"));
    check_tensor(out.tensor(), H, {2}, {0.25, 0.75});
    auto lout = zeros(H, {2});
    check_ok(Args().t(a).i(0).b(false).t(lout).run("aten::_log_softmax.out"));
    check_tensor(lout.tensor(), H, {2}, {-1.38671875, -0.28759765625});
  }
  SUBCASE("max.dim_max: a Half values out beside an int64 indices out") {
    auto a = make(H, {2, 2}, {1, 3, 4, 2});
    auto values_out = zeros(H, {2});
    auto index_out = zeros(L, {2});
    check_ok(Args().t(a).i(1).b(false).t(values_out).t(index_out).run_outs("aten::max.dim_max", 2));
    check_tensor(values_out.tensor(), H, {2}, {3, 4});
    check_tensor(index_out.tensor(), L, {2}, {1, 0});
  }
  SUBCASE("native_layer_norm: three Half outs") {
    // [1, 2, 3, 4]: mean 2.5, variance 1.25, rstd 1/sqrt(1.25 + 1e-5) = 0.894423 -> 0.89453125;
    // (x - 2.5) * rstd = -1.34163, -0.44721, ... -> -1.341796875, -0.447265625, ...
    auto in = make(H, {1, 4}, {1, 2, 3, 4});
    auto out = zeros(H, {1, 4});
    auto mean = zeros(H, {1, 1});
    auto rstd = zeros(H, {1, 1});
    check_ok(Args().t(in).ints({4}).none().none().d(1e-5).t(out).t(mean).t(rstd).run_outs(
        "aten::native_layer_norm.out", 3));
    check_tensor(out.tensor(), H, {1, 4}, {-1.341796875, -0.447265625, 0.447265625, 1.341796875});
    check_tensor(mean.tensor(), H, {1, 1}, {2.5});
    check_tensor(rstd.tensor(), H, {1, 1}, {0.89453125});
  }
  SUBCASE("a dynamic out is resized to the copy's sizes") {
    auto a = make(H, {1, 3}, {2048, 1, 1});
    auto b = make(H, {3, 1}, {1, 1, 1});
    DynamicTensor out(H, {2, 2}, 4);
    check_ok(Args().t(a).t(b).t(out.tensor()).run("aten::mm.out"));
    check_tensor(out.tensor(), H, {1, 1}, {2050});
  }
}

TEST_CASE("float16 proxy: quantized embeddings, scatter_add, random fills") {
  SUBCASE("embedding_byte with Half scales and a Half out") {
    // The scale is Half(0.1) = 0.0999755859375; row 1 is [10, 3], row 0 [1, 2] with scale 0.5.
    auto w = make(U8, {2, 2}, {1, 2, 10, 3});
    auto scales = make(H, {2}, {0.5, 0.0999755859375});
    auto idx = make(L, {2}, {1, 0});
    auto out = zeros(H, {2, 2});
    check_ok(Args().t(w).t(scales).none().i(0).i(255).t(idx).i(wire(H)).t(out).run(
        "quantized_decomposed::embedding_byte.dtype_out"));
    // 10 * 0.0999755859375 = 1 - 2^-12, halfway between 1 - 2^-11 and 1: even is 1;
    // 3 * 0.0999755859375 = 0.2999267578125, halfway again: even is 0.2998046875.
    check_tensor(out.tensor(), H, {2, 2}, {1, 0.2998046875, 0.5, 1});
  }
  SUBCASE("scatter_add into Half adds in float32") {
    // out = self; out[index[i]] += src[i]: 2048 + 1 + 1 = 2050 in float32 (2048 in Half steps).
    auto self = make(H, {2}, {2048, 0});
    auto index = make(L, {2}, {0, 0});
    auto src = make(H, {2}, {1, 1});
    auto out = zeros(H, {2});
    check_ok(Args().t(self).i(0).t(index).t(src).t(out).run("aten::scatter_add.out"));
    check_tensor(out.tensor(), H, {2}, {2050, 0});
  }
  SUBCASE("rand into BFloat16: every value in [0, 1], not all the same") {
    auto out = zeros(BF, {64});
    check_ok(Args().ints({64}).t(out).run("aten::rand.out"));
    const std::vector<double> v = values(out.tensor());
    bool varied = false;
    for (double x : v) {
      CHECK(x >= 0);
      CHECK(x <= 1);  // a float32 just below 1 can round up to 1 in BFloat16
      varied = varied || x != v[0];
    }
    CHECK(varied);
  }
}

TEST_CASE("float16 proxy: errors") {
  SUBCASE("a tensor with elements and no memory (a crafted program's) is refused, not read") {
    auto a = make(H, {1, 3}, {1, 2, 3});
    auto b = make(H, {3, 1}, {1, 1, 1});
    auto out = zeros(H, {1, 1});
    b.tensor().set_data(nullptr, 0);
    check_error(Args().t(a).t(b).t(out).run("aten::mm.out"), ErrorCode::InvalidState,
                "argument 1 (float16) has 3 elements but no data");
    out.tensor().set_data(nullptr, 0);
    auto c = make(BF, {1, 3}, {1, 2, 3});
    auto d = make(BF, {3, 1}, {1, 1, 1});
    auto bout = zeros(BF, {1, 1});
    bout.tensor().set_data(nullptr, 0);
    check_error(Args().t(c).t(d).t(bout).run("aten::mm.out"), ErrorCode::InvalidState,
                "argument 2 (bfloat16) has 1 elements but no data");
  }
  SUBCASE("a 16-bit dtype beside another floating dtype") {
    auto a = make(H, {1, 1}, {1});
    auto b = make(F, {1, 1}, {1});
    auto out = zeros(H, {1, 1});
    check_error(Args().t(a).t(b).t(out).run("aten::mm.out"), ErrorCode::InvalidType,
                "tensors of dtype float16 and float32 in one call");
    auto bf = make(BF, {1, 1}, {1});
    check_error(Args().t(a).t(bf).t(out).run("aten::mm.out"), ErrorCode::InvalidType,
                "tensors of dtype float16 and bfloat16 in one call");
  }
  SUBCASE("the kernel's own error, and the out is left as it was") {
    auto a = make(H, {1, 3}, {1, 2, 3});
    auto b = make(H, {2, 1}, {1, 1});
    auto out = make(H, {1, 1}, {-7});
    const KernelContext ctx = Args().t(a).t(b).t(out).run("aten::mm.out");
    REQUIRE(ctx.failed());
    CHECK(ctx.error().code() == ErrorCode::InvalidArgument);
    check_tensor(out.tensor(), H, {1, 1}, {-7});
  }
  SUBCASE("temp memory too small, or none") {
    KernelFn mm = default_kernel_registry().find("aten::mm.out");
    const bool found = mm != nullptr;
    REQUIRE(found);
    auto a = make(H, {4, 64}, std::vector<double>(256, 1));
    auto b = make(H, {64, 4}, std::vector<double>(256, 1));
    auto out = zeros(H, {4, 4});
    EValue va = EValue::from_tensor(&a.tensor());
    EValue vb = EValue::from_tensor(&b.tensor());
    EValue vo = EValue::from_tensor(&out.tensor());
    EValue* arg_list[] = {&va, &vb, &vo, &vo};
    const std::span<EValue*> args(arg_list);
    // a's copy takes 1024 bytes; 1500 bytes leave too little for b's.
    std::vector<uint8_t> small(1500);
    MemoryAllocator temp({small.data(), small.size()});
    KernelContext ctx(&temp);
    mm(ctx, args);
    check_error(ctx, ErrorCode::OutOfMemory,
                "argument 1 (float16, 256 elements) needs 1024 bytes of temp memory");
    KernelContext none;
    mm(none, args);
    check_error(none, ErrorCode::OutOfMemory, "argument 0 (float16, 256 elements)");
    // With room enough the same call runs: every element is 64.
    std::vector<uint8_t> enough(4096);
    MemoryAllocator temp2({enough.data(), enough.size()});
    KernelContext ok(&temp2);
    mm(ok, args);
    check_ok(ok);
    check_tensor(out.tensor(), H, {4, 4}, std::vector<double>(16, 64));
  }
}

}  // namespace
}  // namespace etkit::test
