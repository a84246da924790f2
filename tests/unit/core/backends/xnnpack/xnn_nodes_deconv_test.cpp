// XnnpackBackend's ConvTranspose2d in NHWC against hand-derived values: strides that tile the
// output, overlapping taps summed, padding that crops, bias, groups, adjustment, and the filter
// shapes it refuses.

#include <doctest/doctest.h>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

struct Deconv {
  uint32_t h = 2, w = 2, cin = 1, cout = 1, groups = 1, k = 2, stride = 1, pad = 0, adjust = 0;
  uint32_t oh() const { return stride * (h - 1) + adjust + k - 2 * pad; }
  uint32_t ow() const { return stride * (w - 1) + adjust + k - 2 * pad; }
};

std::vector<uint8_t> blob(const Deconv& s, const Data& filter, const Data* bias,
                          std::vector<uint32_t> filter_dims = {}) {
  TestGraph g;
  const uint32_t in = g.input({1, s.h, s.w, s.cin});
  if (filter_dims.empty()) filter_dims = {s.cout, s.k, s.k, s.cin / s.groups};
  const uint32_t f = g.constant(filter_dims, filter);
  const uint32_t b = bias != nullptr ? g.constant({s.cout}, *bias) : kNoValue;
  const uint32_t out = g.output({1, s.oh(), s.ow(), s.cout});
  auto node = fbx::Create_XNNNodeConv(g.fbb(), s.pad, s.pad, s.pad, s.pad, s.k, s.k, s.stride,
                                      s.stride, 1, 1, s.cin / s.groups, s.cout / s.groups,
                                      s.groups, s.adjust, s.adjust, in, f, b, out, 0);
  g.node(U::XNNConvTranspose2d, node.Union(), 4);
  return g.finish();
}

Data deconv(const Deconv& s, const Data& x, const Data& filter, const Data* bias = nullptr) {
  Runner r(blob(s, filter, bias));
  Error e = r.run({{{1, static_cast<int32_t>(s.h), static_cast<int32_t>(s.w),
                     static_cast<int32_t>(s.cin)}, x}},
                  {{1, static_cast<int32_t>(s.oh()), static_cast<int32_t>(s.ow()),
                    static_cast<int32_t>(s.cout)}});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

TEST_CASE("xnnpack deconvolution: stride 2 with a 2x2 kernel of ones tiles each input pixel") {
  Deconv s;
  s.stride = 2;
  CHECK(deconv(s, {1, 2, 3, 4}, {1, 1, 1, 1}) ==
        Data{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST_CASE("xnnpack deconvolution: overlapping taps are summed; padding crops; bias is added") {
  // x = [[1, 2], [3, 4]], w = [[1, 2], [3, 4]], stride 1: out[oy][ox] sums x[iy][ix] *
  // w[oy - iy][ox - ix]; e.g. the centre is 1*4 + 2*3 + 3*2 + 4*1 = 20.
  Deconv s;
  const Data x = {1, 2, 3, 4};
  const Data w = {1, 2, 3, 4};
  CHECK(deconv(s, x, w) == Data{1, 4, 4, 6, 20, 16, 9, 24, 16});
  const Data bias = {0.5f};
  CHECK(deconv(s, x, w, &bias) == Data{1.5f, 4.5f, 4.5f, 6.5f, 20.5f, 16.5f, 9.5f, 24.5f, 16.5f});
  s.pad = 1;  // 3x3 cropped by one on each side: the centre alone
  CHECK(deconv(s, x, w) == Data{20});
}

TEST_CASE("xnnpack deconvolution: groups keep their channels apart") {
  Deconv s;
  s.h = s.w = 1;
  s.k = 1;
  s.cin = s.cout = s.groups = 2;
  CHECK(deconv(s, {3, 5}, {10, 100}) == Data{30, 500});
}

TEST_CASE("xnnpack deconvolution: the adjustment adds output rows and columns no tap reaches") {
  // Width 2, stride 2, kernel 1, adjustment 1: 2 * 1 + 1 + 1 = 4 columns, x at 0 and 2.
  Deconv s;
  s.h = 1;
  s.k = 1;
  s.stride = 2;
  s.adjust = 1;
  const Data out = deconv(s, {7, 9}, {2});
  CHECK(out == Data{14, 0, 18, 0, 0, 0, 0, 0});
}

TEST_CASE("xnnpack deconvolution: a filter of the wrong shape is refused at load") {
  Deconv s;
  Runner r(blob(s, {1, 2, 3, 4, 5, 6}, nullptr, {1, 2, 3, 1}));
  CHECK_FALSE(r.ok());
  CHECK(r.init_error().find("ConvTranspose2d") != std::string::npos);
  CHECK(r.init_error().find("filter is not") != std::string::npos);
}

}  // namespace
}  // namespace etkit::xnn::testing
