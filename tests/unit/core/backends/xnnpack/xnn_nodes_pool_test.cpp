// XnnpackBackend's pooling nodes in NHWC against hand-derived values: max pooling with strides,
// average pooling whose padding is not counted, global average pooling per channel.

#include <doctest/doctest.h>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

Data pool(U kind, std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims, const Data& x,
          uint32_t k, uint32_t stride, uint32_t pad) {
  TestGraph g;
  const uint32_t in = g.input(in_dims);
  const uint32_t out = g.output(out_dims);
  g.node(kind, fbx::Create_XNNPooling2D(g.fbb(), pad, pad, pad, pad, k, k, stride, stride, 1, 1,
                                        in, out, 0).Union(), 2);
  Runner r(g.finish());
  Error e = r.run({{{in_dims.begin(), in_dims.end()}, x}}, {{out_dims.begin(), out_dims.end()}});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

TEST_CASE("xnnpack pooling: max pooling 2x2 stride 2") {
  CHECK(pool(U::XNNMaxPooling2d, {1, 2, 4, 1}, {1, 1, 2, 1}, {1, 5, 2, 0, 3, 4, 8, 7}, 2, 2, 0) ==
        Data{5, 8});
  // Two channels pooled apart; padding never wins over negative values.
  CHECK(pool(U::XNNMaxPooling2d, {1, 1, 2, 2}, {1, 2, 3, 2}, {-1, -10, -2, -20}, 2, 1, 1) ==
        Data{-1, -10, -1, -10, -2, -20, -1, -10, -1, -10, -2, -20});
}

TEST_CASE("xnnpack pooling: average pooling counts only the elements inside the image") {
  CHECK(pool(U::XNNAvgPooling2d, {1, 2, 2, 1}, {1, 3, 3, 1}, {1, 2, 3, 4}, 2, 1, 1) ==
        Data{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

TEST_CASE("xnnpack pooling: global average pooling per channel") {
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 2});
  const uint32_t out = g.output({1, 1, 1, 2});
  g.unary(U::XNNGlobalAvgPooling2d, in, out);
  Runner r(g.finish());
  REQUIRE(r.run({{{1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 6, 60}}}, {{1, 1, 1, 2}}).ok());
  CHECK(r.output(0) == Data{3, 30});
}

}  // namespace
}  // namespace etkit::xnn::testing
