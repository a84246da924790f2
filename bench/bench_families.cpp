// Issue #17's operators beyond the elementwise families, each beside the closest kernel etkit
// had before (the budget: no new operator more than 2x the older kernel of its family), on 1M
// floats (1024 x 1024, or 4 x 256 x 256 in and 4 x 512 x 512 out for upsampling) through the
// registry, as a method would call them. Pairs, in registration order below:
// - reductions over the last dim: prod, var, amin, argmin, max.dim, any beside sum and amax;
// - the scan cumsum beside sum over the same dim;
// - topk (k = 8) beside argmax over the last dim;
// - index_select beside embedding (both gather rows); gather (random rows), gather along the
//   last dim, scatter and scatter_add beside index.Tensor with a full-size index (an element
//   per index);
// - flip, roll, repeat, upsample_nearest2d beside permute_copy (a copy through index
//   arithmetic); upsample_bilinear2d beside it and beside avg_pool2d (weighted windows);
// - group norm beside layer norm.
// Compare the times of a pair, which do the same amount of memory traffic or less.

#include <cstdint>
#include <vector>

#include "bench_call.h"

namespace {

using etkit::bench::Call;
using etkit::bench::HostTensor;
using etkit::bench::ScalarType;
using etkit::bench::fill;
using etkit::bench::run;

constexpr int32_t kRows = 1024;
constexpr int32_t kCols = 1024;

HostTensor matrix(uint32_t seed) {
  HostTensor t(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  fill(t.tensor(), seed);
  return t;
}

// int64 indices in [0, bound), pseudo-random.
HostTensor indices(std::vector<int32_t> sizes, int64_t bound) {
  HostTensor t(ScalarType::Long, sizes);
  uint32_t seed = 99;
  for (int64_t i = 0; i < t.tensor().numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    t.tensor().data_as<int64_t>()[i] = static_cast<int64_t>(seed >> 8) % bound;
  }
  return t;
}

// A reduction of the 1024 x 1024 matrix over its last dim. `form` picks the schema's shape.
enum class Form { DimList, DimInt, DimListNoDtype, Var, ArgDim, TwoOuts };

void reduce(benchmark::State& state, const char* name, Form form) {
  HostTensor in = matrix(1);
  const bool index_out = form == Form::ArgDim;
  HostTensor out(index_out ? ScalarType::Long : ScalarType::Float, std::vector<int32_t>{kRows});
  HostTensor second(ScalarType::Long, std::vector<int32_t>{kRows});
  Call call;
  call.tensor(in);
  switch (form) {
    case Form::DimList:  // sum.IntList_out(self, dim[], keepdim, dtype?, out)
      call.ints({-1});
      call.boolean(false);
      call.none();
      break;
    case Form::DimInt:  // prod.int_out(self, dim, keepdim, dtype?, out)
      call.integer(-1);
      call.boolean(false);
      call.none();
      break;
    case Form::DimListNoDtype:  // amax.out / amin.out(self, dim[], keepdim, out)
      call.ints({-1});
      call.boolean(false);
      break;
    case Form::Var:  // var.correction_out(self, dim[]?, correction?, keepdim, out)
      call.ints({-1});
      call.none();
      call.boolean(false);
      break;
    case Form::ArgDim:  // argmax.out / argmin.out(self, dim?, keepdim, out)
      call.integer(-1);
      call.boolean(false);
      break;
    case Form::TwoOuts:  // max.dim_max(self, dim, keepdim, max, max_values)
      call.integer(-1);
      call.boolean(false);
      break;
  }
  call.tensor(out);
  if (form == Form::TwoOuts) call.tensor(second);
  run(state, name, call.args(form == Form::TwoOuts ? 2 : 1), out);
}

void BM_SumLastF32(benchmark::State& s) { reduce(s, "aten::sum.IntList_out", Form::DimList); }
void BM_AmaxLastF32(benchmark::State& s) { reduce(s, "aten::amax.out", Form::DimListNoDtype); }
void BM_ProdLastF32(benchmark::State& s) { reduce(s, "aten::prod.int_out", Form::DimInt); }
void BM_VarLastF32(benchmark::State& s) { reduce(s, "aten::var.correction_out", Form::Var); }
void BM_AminLastF32(benchmark::State& s) { reduce(s, "aten::amin.out", Form::DimListNoDtype); }
void BM_ArgmaxLastF32(benchmark::State& s) { reduce(s, "aten::argmax.out", Form::ArgDim); }
void BM_ArgminLastF32(benchmark::State& s) { reduce(s, "aten::argmin.out", Form::ArgDim); }
void BM_MaxDimLastF32(benchmark::State& s) { reduce(s, "aten::max.dim_max", Form::TwoOuts); }

void BM_AnyLastF32(benchmark::State& state) {
  HostTensor in = matrix(1);
  HostTensor out(ScalarType::Bool, std::vector<int32_t>{kRows});
  Call call;
  call.tensor(in);
  call.ints({-1});
  call.boolean(false);
  call.tensor(out);
  run(state, "aten::any.dims_out", call.args(1), out);
}

void BM_CumsumLastF32(benchmark::State& state) {
  HostTensor in = matrix(1);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.integer(-1);
  call.none();
  call.tensor(out);
  run(state, "aten::cumsum.out", call.args(1), out);
}

void BM_TopkLastF32(benchmark::State& state) {
  HostTensor in = matrix(1);
  HostTensor values(ScalarType::Float, std::vector<int32_t>{kRows, 8});
  HostTensor idx(ScalarType::Long, std::vector<int32_t>{kRows, 8});
  Call call;
  call.tensor(in);
  call.integer(8);
  call.integer(-1);
  call.boolean(true);
  call.boolean(true);
  call.tensor(values);
  call.tensor(idx);
  run(state, "aten::topk.values", call.args(2), values);
}

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse, out): 1024 rows of 1024.
void BM_EmbeddingF32(benchmark::State& state) {
  HostTensor weight = matrix(2);
  HostTensor idx = indices({kRows}, kRows);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(weight);
  call.tensor(idx);
  call.integer(-1);
  call.boolean(false);
  call.boolean(false);
  call.tensor(out);
  run(state, "aten::embedding.out", call.args(1), out);
}

void BM_IndexSelectF32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor idx = indices({kRows}, kRows);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.integer(0);
  call.tensor(idx);
  call.tensor(out);
  run(state, "aten::index_select.out", call.args(1), out);
}

// index.Tensor_out(self, Tensor?[] indices, out): 1M flat floats read through a 1024 x 1024
// index of random positions, the older kernel closest to gather (an element per index).
void BM_IndexTensorF32(benchmark::State& state) {
  HostTensor in(ScalarType::Float, std::vector<int32_t>{kRows * kCols});
  fill(in.tensor(), 2);
  HostTensor idx = indices({kRows, kCols}, int64_t{kRows} * kCols);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.optional_tensors({&idx});
  call.tensor(out);
  run(state, "aten::index.Tensor_out", call.args(1), out);
}

// gather along dim 0 with a full-size index: random rows, as index.Tensor's random positions.
void BM_GatherDim0F32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor idx = indices({kRows, kCols}, kRows);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.integer(0);
  call.tensor(idx);
  call.boolean(false);
  call.tensor(out);
  run(state, "aten::gather.out", call.args(1), out);
}

// gather along the last dim with a full-size index.
void BM_GatherF32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor idx = indices({kRows, kCols}, kCols);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.integer(-1);
  call.tensor(idx);
  call.boolean(false);
  call.tensor(out);
  run(state, "aten::gather.out", call.args(1), out);
}

// scatter.src_out / scatter_add.out(self, dim, index, src, out) along the last dim.
void scatter(benchmark::State& state, const char* name) {
  HostTensor in = matrix(2);
  HostTensor src = matrix(3);
  HostTensor idx = indices({kRows, kCols}, kCols);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.integer(-1);
  call.tensor(idx);
  call.tensor(src);
  call.tensor(out);
  run(state, name, call.args(1), out);
}
void BM_ScatterF32(benchmark::State& s) { scatter(s, "aten::scatter.src_out"); }
void BM_ScatterAddF32(benchmark::State& s) { scatter(s, "aten::scatter_add.out"); }

void BM_PermuteCopyF32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kCols, kRows});
  Call call;
  call.tensor(in);
  call.ints({1, 0});
  call.tensor(out);
  run(state, "aten::permute_copy.out", call.args(1), out);
}

void BM_FlipF32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.ints({0, 1});
  call.tensor(out);
  run(state, "aten::flip.out", call.args(1), out);
}

void BM_RollF32(benchmark::State& state) {
  HostTensor in = matrix(2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.ints({5, 7});
  call.ints({0, 1});
  call.tensor(out);
  run(state, "aten::roll.out", call.args(1), out);
}

// repeat of a 512 x 512 matrix 2 x 2 times: 1M out.
void BM_RepeatF32(benchmark::State& state) {
  HostTensor in(ScalarType::Float, std::vector<int32_t>{512, 512});
  fill(in.tensor(), 2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  Call call;
  call.tensor(in);
  call.ints({2, 2});
  call.tensor(out);
  run(state, "aten::repeat.out", call.args(1), out);
}

// upsample_*2d.vec_out of 1 x 4 x 256 x 256 to 512 x 512: 1M out. nearest (input, output_size,
// scale_factors, out); bilinear (input, output_size, align_corners, scale_factors, out).
void upsample(benchmark::State& state, bool bilinear) {
  HostTensor in(ScalarType::Float, std::vector<int32_t>{1, 4, 256, 256});
  fill(in.tensor(), 2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{1, 4, 512, 512});
  Call call;
  call.tensor(in);
  call.ints({512, 512});
  if (bilinear) call.boolean(false);
  call.none();
  call.tensor(out);
  run(state, bilinear ? "aten::upsample_bilinear2d.vec_out" : "aten::upsample_nearest2d.vec_out",
      call.args(1), out);
}
void BM_UpsampleNearestF32(benchmark::State& s) { upsample(s, false); }

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
// out) 2 x 2 of 1 x 4 x 512 x 512: the older kernel that resamples a grid through weighted windows
// (1M in, 256K out; bilinear upsampling is 256K in, 1M out).
void BM_AvgPool2x2F32(benchmark::State& state) {
  HostTensor in(ScalarType::Float, std::vector<int32_t>{1, 4, 512, 512});
  fill(in.tensor(), 2);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{1, 4, 256, 256});
  Call call;
  call.tensor(in);
  call.ints({2, 2});
  call.ints({2, 2});
  call.ints({0, 0});
  call.boolean(false);
  call.boolean(true);
  call.none();
  call.tensor(out);
  run(state, "aten::avg_pool2d.out", call.args(1), out);
}
void BM_UpsampleBilinearF32(benchmark::State& s) { upsample(s, true); }

// Layer norm over 1024 rows of 1024, and group norm of 1 x 1024 channels x 1024 in 32 groups.
void BM_LayerNorm1MF32(benchmark::State& state) {
  HostTensor in = matrix(1);
  HostTensor w(ScalarType::Float, std::vector<int32_t>{kCols});
  HostTensor b(ScalarType::Float, std::vector<int32_t>{kCols});
  fill(w.tensor(), 6);
  fill(b.tensor(), 7);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{kRows, kCols});
  HostTensor mean(ScalarType::Float, std::vector<int32_t>{kRows, 1});
  HostTensor rstd(ScalarType::Float, std::vector<int32_t>{kRows, 1});
  Call call;
  call.tensor(in);
  call.ints({kCols});
  call.tensor(w);
  call.tensor(b);
  call.real(1e-5);
  call.tensor(out);
  call.tensor(mean);
  call.tensor(rstd);
  run(state, "aten::native_layer_norm.out", call.args(3), out);
}

void BM_GroupNorm1MF32(benchmark::State& state) {
  HostTensor in(ScalarType::Float, std::vector<int32_t>{1, kRows, kCols});
  fill(in.tensor(), 1);
  HostTensor w(ScalarType::Float, std::vector<int32_t>{kRows});
  HostTensor b(ScalarType::Float, std::vector<int32_t>{kRows});
  fill(w.tensor(), 6);
  fill(b.tensor(), 7);
  HostTensor out(ScalarType::Float, std::vector<int32_t>{1, kRows, kCols});
  HostTensor mean(ScalarType::Float, std::vector<int32_t>{1, 32});
  HostTensor rstd(ScalarType::Float, std::vector<int32_t>{1, 32});
  Call call;
  call.tensor(in);
  call.tensor(w);
  call.tensor(b);
  call.integer(1);
  call.integer(kRows);
  call.integer(kCols);
  call.integer(32);
  call.real(1e-5);
  call.tensor(out);
  call.tensor(mean);
  call.tensor(rstd);
  run(state, "aten::native_group_norm.out", call.args(3), out);
}

#define ETKIT_FAMILY_BENCH(fn) BENCHMARK(fn)->Unit(benchmark::kMicrosecond)
ETKIT_FAMILY_BENCH(BM_SumLastF32);
ETKIT_FAMILY_BENCH(BM_AmaxLastF32);
ETKIT_FAMILY_BENCH(BM_ProdLastF32);
ETKIT_FAMILY_BENCH(BM_VarLastF32);
ETKIT_FAMILY_BENCH(BM_AminLastF32);
ETKIT_FAMILY_BENCH(BM_MaxDimLastF32);
ETKIT_FAMILY_BENCH(BM_AnyLastF32);
ETKIT_FAMILY_BENCH(BM_CumsumLastF32);
ETKIT_FAMILY_BENCH(BM_ArgmaxLastF32);
ETKIT_FAMILY_BENCH(BM_ArgminLastF32);
ETKIT_FAMILY_BENCH(BM_TopkLastF32);
ETKIT_FAMILY_BENCH(BM_EmbeddingF32);
ETKIT_FAMILY_BENCH(BM_IndexSelectF32);
ETKIT_FAMILY_BENCH(BM_IndexTensorF32);
ETKIT_FAMILY_BENCH(BM_GatherDim0F32);
ETKIT_FAMILY_BENCH(BM_GatherF32);
ETKIT_FAMILY_BENCH(BM_ScatterF32);
ETKIT_FAMILY_BENCH(BM_ScatterAddF32);
ETKIT_FAMILY_BENCH(BM_PermuteCopyF32);
ETKIT_FAMILY_BENCH(BM_FlipF32);
ETKIT_FAMILY_BENCH(BM_RollF32);
ETKIT_FAMILY_BENCH(BM_RepeatF32);
ETKIT_FAMILY_BENCH(BM_UpsampleNearestF32);
ETKIT_FAMILY_BENCH(BM_UpsampleBilinearF32);
ETKIT_FAMILY_BENCH(BM_AvgPool2x2F32);
ETKIT_FAMILY_BENCH(BM_LayerNorm1MF32);
ETKIT_FAMILY_BENCH(BM_GroupNorm1MF32);
#undef ETKIT_FAMILY_BENCH

}  // namespace
