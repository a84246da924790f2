// gather, scatter (src, value), scatter_add, index_select, select_scatter; by hand from the
// definitions in PyTorch's documentation (out[i][j] = self[index[i][j]][j] for dim 0, ...).

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel gather") {
  auto self = make(F, {2, 3}, {0, 1, 2, 3, 4, 5}, {1, 0});
  auto index = make(L, {2, 2}, {2, 0, 1, 1});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(self).i(1).t(index).b(false).t(out).run("aten::gather.out"));
  check_tensor(out.tensor(), F, {2, 2}, {2, 0, 4, 4});
  auto index0 = make(I, {1, 3}, {1, 0, 1});
  auto out0 = zeros(F, {1, 3});
  check_ok(Args().t(self).i(0).t(index0).b(false).t(out0).run("aten::gather.out"));
  check_tensor(out0.tensor(), F, {1, 3}, {3, 1, 5});
  auto bad = make(L, {1, 1}, {3});
  check_error(Args().t(self).i(1).t(bad).b(false).t(out0).run("aten::gather.out"),
              ErrorCode::InvalidArgument, "index 3 is out of range");
  auto neg = make(L, {1, 1}, {-1});
  check_error(Args().t(self).i(1).t(neg).b(false).t(out0).run("aten::gather.out"),
              ErrorCode::InvalidArgument, "out of range");
}

TEST_CASE("kernel scatter / scatter_add") {
  auto self = make(I, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto index = make(L, {1, 3}, {1, 0, 1});
  auto src = make(I, {2, 3}, {7, 8, 9, 10, 11, 12});
  auto out = zeros(I, {2, 3});
  check_ok(Args().t(self).i(0).t(index).t(src).t(out).run("aten::scatter.src_out"));
  check_tensor(out.tensor(), I, {2, 3}, {0, 8, 0, 7, 0, 9});
  check_ok(Args().t(self).i(0).t(index).i(-4).t(out).run("aten::scatter.value_out"));
  check_tensor(out.tensor(), I, {2, 3}, {0, -4, 0, -4, 0, -4});
  auto ones = make(F, {2, 2}, {1, 1, 1, 1});
  auto idx = make(L, {2, 2}, {0, 0, 2, 0});
  auto acc = make(F, {2, 3}, {0, 0, 0, 10, 10, 10});
  auto aout = zeros(F, {2, 3});
  check_ok(Args().t(acc).i(1).t(idx).t(ones).t(aout).run("aten::scatter_add.out"));
  check_tensor(aout.tensor(), F, {2, 3}, {2, 0, 0, 11, 10, 11});
}

// gather and scatter/scatter_add on a 3-D self along each dim, against plain loops over the
// definitions: an index smaller than self in the other dims, int64 and int32 indices, index and
// out laid out transposed, and element sizes 1, 2, 4 and 8 (the kernels move elements by size;
// Half once left scatter's out a copy of self).
TEST_CASE("kernel gather / scatter / scatter_add: every dim, layouts, index and element types") {
  const std::vector<int32_t> self_sizes = {3, 4, 5};
  const std::vector<int32_t> index_sizes = {2, 3, 4};
  const int64_t numel = 2 * 3 * 4;
  auto self_values = pseudo_random(60, 3);
  for (double& v : self_values) v = std::round(v * 40);  // exact in every dtype below
  auto src_values = pseudo_random(60, 4);
  for (double& v : src_values) v = std::round(v * 40);
  for (const ScalarType dtype : {F, U8, H, L}) {
    std::vector<double> sv = self_values;
    std::vector<double> rv = src_values;
    if (dtype == U8) {
      for (double& v : sv) v = std::fabs(v);
      for (double& v : rv) v = std::fabs(v);
    }
    for (int dim = 0; dim < 3; ++dim) {
      for (const ScalarType index_dtype : {L, I}) {
        for (const bool transposed : {false, true}) {
          CAPTURE(dtype);
          CAPTURE(dim);
          CAPTURE(index_dtype);
          CAPTURE(transposed);
          std::vector<double> iv(static_cast<size_t>(numel));
          uint32_t seed = 17;
          for (double& v : iv) {
            seed = seed * 1664525u + 1013904223u;
            v = static_cast<double>((seed >> 8) % static_cast<uint32_t>(self_sizes[dim]));
          }
          const std::vector<uint8_t> order =
              transposed ? std::vector<uint8_t>{2, 1, 0} : std::vector<uint8_t>{};
          auto self = make(dtype, self_sizes, sv);
          auto src = make(dtype, self_sizes, rv, order);
          auto index = make(index_dtype, index_sizes, iv, order);
          // Logical offsets: index (i, j, k) row-major over index_sizes; self over self_sizes.
          auto self_at = [&](int i, int j, int k) { return (i * 4 + j) * 5 + k; };
          auto gathered = zeros(dtype, index_sizes, order);
          check_ok(
              Args().t(self).i(dim).t(index).b(false).t(gathered).run("aten::gather.out"));
          std::vector<double> want_gather(static_cast<size_t>(numel));
          std::vector<double> want_scatter = sv;
          std::vector<double> want_add = sv;
          std::vector<double> want_fill = sv;
          for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 3; ++j) {
              for (int k = 0; k < 4; ++k) {
                const int l = (i * 3 + j) * 4 + k;
                const int v = static_cast<int>(iv[static_cast<size_t>(l)]);
                const int t = dim == 0 ? self_at(v, j, k)
                              : dim == 1 ? self_at(i, v, k)
                                         : self_at(i, j, v);
                want_gather[static_cast<size_t>(l)] = sv[static_cast<size_t>(t)];
                const double from = rv[static_cast<size_t>(self_at(i, j, k))];
                want_fill[static_cast<size_t>(t)] = 7;
                want_scatter[static_cast<size_t>(t)] = from;  // the last write wins, in order
                want_add[static_cast<size_t>(t)] += from;
              }
            }
          }
          CHECK(values(gathered.tensor()) == want_gather);
          auto scattered = zeros(dtype, self_sizes);
          check_ok(Args().t(self).i(dim).t(index).t(src).t(scattered).run("aten::scatter.src_out"));
          if (!transposed) {
            // PyTorch leaves the winner of duplicate targets unspecified; the index's memory
            // order decides it here, which is logical order only when index is contiguous.
            CHECK(values(scattered.tensor()) == want_scatter);
          }
          auto filled = zeros(dtype, self_sizes);
          check_ok(Args().t(self).i(dim).t(index).i(7).t(filled).run("aten::scatter.value_out"));
          CHECK(values(filled.tensor()) == want_fill);
          if (dtype != U8) {  // sums of uint8 wrap; the by-hand sums do not
            auto added = zeros(dtype, self_sizes);
            check_ok(Args().t(self).i(dim).t(index).t(src).t(added).run("aten::scatter_add.out"));
            CHECK(values(added.tensor()) == want_add);
          }
        }
      }
    }
  }
}

TEST_CASE("kernel index_select and select_scatter") {
  auto self = make(F, {3, 2}, {0, 1, 2, 3, 4, 5});
  auto index = make(L, {4}, {2, 0, 2, 1});
  auto out = zeros(F, {4, 2});
  check_ok(Args().t(self).i(0).t(index).t(out).run("aten::index_select.out"));
  check_tensor(out.tensor(), F, {4, 2}, {4, 5, 0, 1, 4, 5, 2, 3});
  auto cols = zeros(F, {3, 1}, {1, 0});
  auto one = make(I, {1}, {1});
  check_ok(Args().t(self).i(-1).t(one).t(cols).run("aten::index_select.out"));
  check_tensor(cols.tensor(), F, {3, 1}, {1, 3, 5});
  auto bad = make(L, {1}, {3});
  check_error(Args().t(self).i(0).t(bad).t(out).run("aten::index_select.out"),
              ErrorCode::InvalidArgument, "out of range");
  auto src = make(F, {3}, {-1, -2, -3});
  auto sout = zeros(F, {3, 2});
  check_ok(Args().t(self).t(src).i(1).i(-1).t(sout).run("aten::select_scatter.out"));
  check_tensor(sout.tensor(), F, {3, 2}, {0, -1, 2, -2, 4, -3});
  auto wrong = make(F, {2}, {0, 0});
  check_error(Args().t(self).t(wrong).i(1).i(0).t(sout).run("aten::select_scatter.out"),
              ErrorCode::InvalidArgument, "src has sizes");
}

}  // namespace
}  // namespace etkit::test
