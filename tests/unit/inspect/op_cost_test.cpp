#include "etkit/inspect/op_cost.h"

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

ArgInfo t(std::initializer_list<int64_t> sizes, std::string dtype = "float32") {
  ArgInfo a;
  a.kind = ArgKind::Tensor;
  a.dtype = std::move(dtype);
  a.sizes = sizes;
  return a;
}
ArgInfo i(int64_t v) {
  ArgInfo a;
  a.kind = ArgKind::Int;
  a.value = v;
  return a;
}
ArgInfo l(std::initializer_list<int64_t> v) {
  ArgInfo a;
  a.kind = ArgKind::Ints;
  a.sizes = v;
  return a;
}
ArgInfo b(bool v) {
  ArgInfo a;
  a.kind = ArgKind::Bool;
  a.value = v ? 1 : 0;
  return a;
}
ArgInfo none() { return ArgInfo{}; }
ArgInfo d(double v) {
  ArgInfo a;
  a.kind = ArgKind::Double;
  a.number = v;
  return a;
}

// A kernel call as ExecuTorch emits it: the schema's arguments, outputs last, then the return
// slot (the out tensor again, or a TensorList for `outs` > 1).
InstructionEntry kernel(std::string op, std::vector<ArgInfo> args, size_t outs = 1) {
  InstructionEntry e;
  e.kind = InstructionKind::Kernel;
  e.op = std::move(op);
  e.args = std::move(args);
  if (outs == 1 && !e.args.empty()) {
    e.args.push_back(e.args.back());
  } else if (outs > 1) {
    ArgInfo list;
    list.kind = ArgKind::Other;
    list.type = "tensor_list";
    e.args.push_back(list);
  }
  return e;
}

double flops(const InstructionEntry& e) {
  const OpCost c = op_cost(e);
  REQUIRE(c.flops.has_value());
  return *c.flops;
}

TEST_CASE("op_cost: matrix products against hand counts") {
  // mm [2,3]x[3,4]: each of the 2*4 = 8 outputs takes 3 multiplies and 3 adds (accumulating into
  // zero): 8 * 6 = 48.
  CHECK(flops(kernel("aten::mm.out", {t({2, 3}), t({3, 4}), t({2, 4})})) == 48);
  // bmm [5,2,3]x[5,3,4]: five of those mm: 5 * 48 = 240.
  CHECK(flops(kernel("aten::bmm.out", {t({5, 2, 3}), t({5, 3, 4}), t({5, 2, 4})})) == 240);
  // addmm bias[4] + [1,4]x[4,8] (the mlp sample's first layer): 8 outputs * (4 mul + 4 add) = 64,
  // plus 8 bias adds: 72.
  CHECK(flops(kernel("aten::addmm.out",
                     {t({8}), t({1, 4}), t({4, 8}), d(1), d(1), t({1, 8})})) == 72);
  // linear x[2,3,5], weight[6,5], bias[6]: rows P = 2*3 = 6, each output 5 mul + 5 add:
  // 6*6*10 = 360, plus 36 bias adds: 396. Without a bias: 360.
  CHECK(flops(kernel("aten::linear.out", {t({2, 3, 5}), t({6, 5}), t({6}), t({2, 3, 6})})) == 396);
  CHECK(flops(kernel("aten::linear.out", {t({2, 3, 5}), t({6, 5}), none(), t({2, 3, 6})})) == 360);
}

TEST_CASE("op_cost: convolution with stride, padding, dilation and groups") {
  // x[1,3,16,16], weight[8,3,3,3], bias[8], stride 1, padding 1: output 16x16 (the
  // djl-xnnpack-conv program's shape). Per output element 3*3*3 = 27 taps, 2 FLOPs each = 54,
  // plus one bias add = 55; 8*16*16 = 2048 outputs: 2048 * 55 = 112640.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({1, 3, 16, 16}), t({8, 3, 3, 3}), t({8}), l({1, 1}), l({1, 1}), l({1, 1}),
                      b(false), l({0, 0}), i(1), t({1, 8, 16, 16})})) == 112640);
  // Stride 2, no padding, no bias: output (16 - 3)/2 + 1 = 7 per side (floor), 8*7*7 = 392
  // outputs * 54 = 21168.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({1, 3, 16, 16}), t({8, 3, 3, 3}), none(), l({2, 2}), l({0, 0}), l({1, 1}),
                      b(false), l({0, 0}), i(1), t({1, 8, 7, 7})})) == 21168);
  // Dilation 2, no padding: the 3x3 kernel spans 5, output 16 - 5 + 1 = 12 per side; 8*12*12 =
  // 1152 outputs * 54 = 62208.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({1, 3, 16, 16}), t({8, 3, 3, 3}), none(), l({1, 1}), l({0, 0}), l({2, 2}),
                      b(false), l({0, 0}), i(1), t({1, 8, 12, 12})})) == 62208);
  // Depthwise: x[2,4,5,5], weight[4,1,3,3], groups 4, padding 1: output 5x5, each output sees
  // 1 channel * 9 taps = 18 FLOPs; 2*4*25 = 200 outputs * 18 = 3600.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({2, 4, 5, 5}), t({4, 1, 3, 3}), none(), l({1, 1}), l({1, 1}), l({1, 1}),
                      b(false), l({0, 0}), i(4), t({2, 4, 5, 5})})) == 3600);
  // 1-d, scalar lists given once: x[1,2,10], weight[3,2,4], stride [3]: output (10-4)/3+1 = 3;
  // 3*3 = 9 outputs * 2*2*4 = 16 -> 144.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({1, 2, 10}), t({3, 2, 4}), none(), l({3}), l({0}), l({1}), b(false),
                      l({0}), i(1), t({1, 3, 3})})) == 144);
  // Transposed: x[1,2,3,3], weight[2,4,2,2] (C=2 in, 4 out), stride 2: every one of the
  // 2*3*3 = 18 input elements is scattered to 4 channels * 4 taps = 16 products and sums:
  // 18 * 16 * 2 = 576.
  CHECK(flops(kernel("aten::convolution.out",
                     {t({1, 2, 3, 3}), t({2, 4, 2, 2}), none(), l({2, 2}), l({0, 0}), l({1, 1}),
                      b(true), l({0, 0}), i(1), t({1, 4, 6, 6})})) == 576);
}

TEST_CASE("op_cost: pooling and elementwise") {
  // max_pool2d_with_indices x[1,2,4,4], kernel 2x2, stride 2: output [1,2,2,2] = 8 elements,
  // each the max of 4 values: 3 comparisons -> 24. (Outputs: out and indices, the last two.)
  CHECK(flops(kernel("aten::max_pool2d_with_indices.out",
                     {t({1, 2, 4, 4}), l({2, 2}), l({2, 2}), l({0, 0}), l({1, 1}), b(false),
                      t({1, 2, 2, 2}), t({1, 2, 2, 2}, "int64")},
                     2)) == 24);
  // avg_pool2d kernel [3] (3x3), output [1,1,2,2] = 4 elements: 8 adds + 1 divide = 9 each: 36.
  CHECK(flops(kernel("aten::avg_pool2d.out",
                     {t({1, 1, 4, 4}), l({3}), l({1}), l({0}), b(false), b(true), none(),
                      t({1, 1, 2, 2})})) == 36);
  // add [2,3] + [3] broadcast: one add per output element: 6.
  CHECK(flops(kernel("aten::add.out", {t({2, 3}), t({3}), d(1), t({2, 3})})) == 6);
  CHECK(flops(kernel("aten::tanh.out", {t({1, 8}), t({1, 8})})) == 8);
  CHECK(flops(kernel("aten::relu.out", {t({4, 5}), t({4, 5})})) == 20);
}

TEST_CASE("op_cost: bytes moved, unknown operators, entries without arguments") {
  // mm [2,3]x[3,4] -> [2,4] in float32: (6 + 12 + 8) * 4 = 104 bytes (the return slot is the
  // out tensor again: not counted twice).
  const OpCost mm = op_cost(kernel("aten::mm.out", {t({2, 3}), t({3, 4}), t({2, 4})}));
  CHECK(mm.known);
  CHECK(mm.bytes == 104);
  // An operator without a formula still has bytes: int64 [10] in + int64 [10] out = 160.
  const OpCost cumsum = op_cost(kernel("aten::cumsum.out", {t({10}, "int64"), i(0), none(),
                                                          t({10}, "int64")}));
  CHECK(cumsum.known);
  CHECK_FALSE(cumsum.flops.has_value());
  CHECK(cumsum.bytes == 160);
  // No arguments (a version 1 map): nothing known.
  const OpCost old = op_cost(kernel("aten::mm.out", {}));
  CHECK_FALSE(old.known);
  CHECK_FALSE(old.flops.has_value());
  // Arguments that do not fit the schema: no FLOPs, no crash.
  CHECK_FALSE(op_cost(kernel("aten::mm.out", {t({2}), t({3, 4, 5}), t({2})})).flops.has_value());
  CHECK_FALSE(op_cost(kernel("aten::convolution.out", {t({1, 3}), i(3)})).flops.has_value());
  CHECK_FALSE(op_cost(kernel("aten::convolution.out",
                             {t({1, 3, 16, 16}), t({8, 3, 3, 3}), none(), l({0, 0}), l({0, 0}),
                              l({1, 1}), b(false), l({0, 0}), i(1), t({1, 8, 7, 7})}))
                  .flops.has_value());  // stride 0
  // A delegate call: bytes of its tensors, no FLOPs (the work is in the blob).
  InstructionEntry call;
  call.kind = InstructionKind::Delegate;
  call.op = "XnnpackBackend";
  call.args = {t({1, 3, 16, 16}), t({1, 8, 16, 16})};
  const OpCost delegate = op_cost(call);
  CHECK(delegate.bytes == (768 + 2048) * 4);
  CHECK_FALSE(delegate.flops.has_value());
  CHECK(dtype_size("float32") == 4);
  CHECK(dtype_size("int8") == 1);
  CHECK(dtype_size("bogus") == 0);
}

}  // namespace
}  // namespace etkit::inspect
