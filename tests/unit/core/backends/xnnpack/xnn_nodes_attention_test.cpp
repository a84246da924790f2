// XnnpackBackend's ScaledDotProductAttention against hand-derived values and a double-precision
// reference written here from XNNPACK's definition (query times the per-channel scale, dot
// with each key, plus the mask, softmax over the keys, weights times the values), with
// multi-head and multi-query (shared key and value) operands; and blobs whose operands do not
// fit, refused at load naming the node.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;
using Dims = std::vector<uint32_t>;

std::vector<int32_t> ints(const Dims& d) { return {d.begin(), d.end()}; }

struct Sdpa {
  Dims q, k, v, out;
  Data scale;
  Data mask;       // empty: no mask
  Dims mask_dims;  // empty: [T, U]
};

// Builds the node with query, key and value as call inputs and scale and mask as constants.
std::vector<uint8_t> sdpa_blob(const Sdpa& s, std::vector<uint32_t>* ids = nullptr) {
  TestGraph g;
  const uint32_t q = g.input(s.q);
  const uint32_t k = g.input(s.k);
  const uint32_t v = g.input(s.v);
  const uint32_t scale = g.constant({static_cast<uint32_t>(s.scale.size())}, s.scale);
  const Dims mask_dims =
      s.mask_dims.empty() ? Dims{s.q[s.q.size() - 2], s.k[s.k.size() - 2]} : s.mask_dims;
  const uint32_t mask = s.mask.empty() ? 0xFFFFFFFFu : g.constant(mask_dims, s.mask);
  const uint32_t out = g.output(s.out);
  g.node(U::XNNScaledDotProductAttention,
         fbx::CreateXNNScaledDotProductAttention(g.fbb(), q, k, v, scale, mask, out, 0).Union(), 7);
  if (ids != nullptr) *ids = {q, k, v, out};
  return g.finish();
}

Data run_sdpa(const Sdpa& s, const Data& q, const Data& k, const Data& v) {
  Runner r(sdpa_blob(s));
  REQUIRE_MESSAGE(r.ok(), r.init_error());
  Error e = r.run({{ints(s.q), q}, {ints(s.k), k}, {ints(s.v), v}}, {ints(s.out)});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

// The reference, in double: batch b, head h, token t.
std::vector<double> reference(const Sdpa& s, const Data& q, const Data& k, const Data& v) {
  const size_t r = s.q.size();
  const size_t heads = s.q[r - 3], tl = s.q[r - 2], cl = s.q[r - 1];
  const size_t ul = s.k[s.k.size() - 2], dl = s.v[s.v.size() - 1];
  size_t batch = 1;
  for (size_t i = 0; i + 3 < r; ++i) batch *= s.q[i];
  const bool shared = s.k.size() == r - 1;
  std::vector<double> out(batch * heads * tl * dl, 0.0);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t h = 0; h < heads; ++h) {
      const size_t kvh = shared ? b : b * heads + h;
      for (size_t t = 0; t < tl; ++t) {
        std::vector<double> logit(ul);
        for (size_t u = 0; u < ul; ++u) {
          double dot = 0;
          for (size_t c = 0; c < cl; ++c) {
            const double qs = double{q[((b * heads + h) * tl + t) * cl + c]} * s.scale[c];
            dot += qs * k[(kvh * ul + u) * cl + c];
          }
          logit[u] = dot + (s.mask.empty() ? 0.0 : double{s.mask[t * ul + u]});
        }
        double sum = 0;
        for (size_t u = 0; u < ul; ++u) sum += std::exp(logit[u]);
        for (size_t u = 0; u < ul; ++u) {
          const double w = std::exp(logit[u]) / sum;
          for (size_t j = 0; j < dl; ++j) {
            out[((b * heads + h) * tl + t) * dl + j] += w * v[(kvh * ul + u) * dl + j];
          }
        }
      }
    }
  }
  return out;
}

Data random_data(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  Data d(n);
  for (float& x : d) x = dist(rng);
  return d;
}

size_t count(const Dims& d) {
  size_t n = 1;
  for (uint32_t x : d) n *= x;
  return n;
}

TEST_CASE("xnnpack attention: hand-derived weights, with and without a mask") {
  // One query against two keys: logits 0 and ln 3 give weights 1/4 and 3/4, so the output is
  // 4/4 + 3 * 8/4 = 7. Masking the second key out leaves the first value.
  Sdpa s{{1, 1, 1}, {1, 2, 1}, {1, 2, 1}, {1, 1, 1}, {1.0f}, {}, {}};
  const Data k{0.0f, std::log(3.0f)};
  CHECK(run_sdpa(s, {1}, k, {4, 8})[0] == doctest::Approx(7.0f).epsilon(1e-6));
  s.mask = {0.0f, -INFINITY};
  CHECK(run_sdpa(s, {1}, k, {4, 8})[0] == 4.0f);
  // The per-channel scale multiplies the query: a scale of 0 on the only channel gives equal
  // weights, so the output is the values' mean.
  s.mask.clear();
  s.scale = {0.0f};
  CHECK(run_sdpa(s, {1}, k, {4, 8})[0] == 6.0f);
}

TEST_CASE("xnnpack attention: multi-head and multi-query against the reference") {
  std::mt19937 rng(15);
  const std::vector<Sdpa> cases = {
      // [B, H, T, C] with per-head keys and values and a non-uniform scale.
      {{2, 3, 4, 5},
       {2, 3, 6, 5},
       {2, 3, 6, 7},
       {2, 3, 4, 7},
       {0.5f, 0.25f, 1.0f, 0.1f, 0.7f},
       {},
       {}},
      // Multi-query: one key and value head [B, U, C] shared by the 3 query heads.
      {{2, 3, 4, 5},
       {2, 6, 5},
       {2, 6, 7},
       {2, 3, 4, 7},
       {0.44f, 0.44f, 0.44f, 0.44f, 0.44f},
       {},
       {}},
      // No batch dims: [H, T, C].
      {{2, 3, 4}, {2, 5, 4}, {2, 5, 2}, {2, 3, 2}, {0.5f, 0.5f, 0.5f, 0.5f}, {}, {}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    for (bool masked : {false, true}) {
      CAPTURE(i);
      CAPTURE(masked);
      Sdpa s = cases[i];
      const uint32_t tl = s.q[s.q.size() - 2], ul = s.k[s.k.size() - 2];
      if (masked) {
        s.mask = random_data(size_t{tl} * ul, rng);
        s.mask[1] = -INFINITY;  // one key masked out of the first query's row
      }
      const Data q = random_data(count(s.q), rng);
      const Data k = random_data(count(s.k), rng);
      const Data v = random_data(count(s.v), rng);
      const Data got = run_sdpa(s, q, k, v);
      const std::vector<double> want = reference(s, q, k, v);
      REQUIRE(got.size() == want.size());
      for (size_t j = 0; j < got.size(); ++j) {
        CAPTURE(j);
        CHECK(std::fabs(got[j] - want[j]) <= 1e-5 * std::max(1.0, std::fabs(want[j])));
      }
    }
  }
}

TEST_CASE("xnnpack attention: operands that do not fit are refused at load, naming the node") {
  auto load_error = [](const Sdpa& s) {
    Runner r(sdpa_blob(s));
    REQUIRE_FALSE(r.ok());
    return r.init_error();
  };
  const Sdpa good{{1, 2, 3, 4}, {1, 2, 5, 4}, {1, 2, 5, 6}, {1, 2, 3, 6}, Data(4, 0.5f), {}, {}};
  Sdpa s = good;
  s.scale = Data(3, 0.5f);
  CHECK(load_error(s) ==
        "node 0 (ScaledDotProductAttention): scale must be [C]: [1, 2, 3, 4] and [3]");
  s = good;
  s.mask = Data(5 * 3, 0.0f);
  s.mask_dims = {5, 3};  // [U, T]
  CHECK(load_error(s) ==
        "node 0 (ScaledDotProductAttention): mask must be [T, U]: [1, 2, 3, 4] and [5, 3]");
  s = good;
  s.k = {1, 3, 5, 4};
  CHECK(load_error(s) ==
        "node 0 (ScaledDotProductAttention): heads differ: [1, 2, 3, 4] and [1, 3, 5, 4]");
  s = good;
  s.v = {1, 2, 4, 6};
  CHECK(load_error(s) ==
        "node 0 (ScaledDotProductAttention): key and value tokens differ: [1, 2, 5, 4] and [1, 2, "
        "4, 6]");
  s = good;
  s.out = {1, 2, 3, 4};
  CHECK(load_error(s) ==
        "node 0 (ScaledDotProductAttention): output value 4 has dims [1, 2, 3, 4], its inputs give "
        "[1, 2, 3, 6]");
  s = good;
  s.q = {2, 3, 4};
  s.k = {2, 5, 4, 1};
  CHECK(load_error(s).find("node 0 (ScaledDotProductAttention): key and value must be") == 0);
}

TEST_CASE("xnnpack attention: a quantized operand is refused at init, naming the node") {
  TestGraph g;
  const uint32_t q = g.qvalue(fbx::XNNDatatype::xnn_datatype_qint8, {1, 1, 1}, 0.5f, 0);
  const uint32_t k = g.input({1, 2, 1});
  const uint32_t v = g.input({1, 2, 1});
  const uint32_t x = g.input({1, 1, 1});
  const uint32_t scale = g.constant({1}, {1.0f});
  const uint32_t out = g.output({1, 1, 1});
  g.node(U::XNNConvert, fbx::Create_XNNNode1x1(g.fbb(), x, q, 0).Union(), 1);
  g.node(
      U::XNNScaledDotProductAttention,
      fbx::CreateXNNScaledDotProductAttention(g.fbb(), q, k, v, scale, 0xFFFFFFFFu, out, 0).Union(),
      2);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error() == "node 1 (ScaledDotProductAttention): input 1 is qint8, expected fp32");
}

}  // namespace
}  // namespace etkit::xnn::testing
