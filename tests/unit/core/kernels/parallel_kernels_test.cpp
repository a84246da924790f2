// Every kernel that splits its work over threads (mm, addmm, bmm, convolution, the flat
// elementwise loops): with a 2-thread pool each gives exactly the bytes it gives on one thread,
// on sizes chosen so that the work does split (a counting runner checks it), and mm, conv and add
// also match an independent reference.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "etkit/host/thread_pool.h"
#include "kernel_test_util.h"

namespace etkit::test {
namespace {

// A 2-thread pool that counts the calls that went to it, to check that a case really splits.
class CountingPool final : public ParallelRunner {
 public:
  CountingPool() {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(2);
    REQUIRE(pool.ok());
    pool_ = std::move(*pool);
  }
  int num_threads() const override { return pool_->num_threads(); }
  void run(int tasks, ParallelTaskFn fn, void* ctx) override {
    ++runs;
    pool_->run(tasks, fn, ctx);
  }
  int runs = 0;

 private:
  std::unique_ptr<ThreadPool> pool_;
};

std::vector<uint8_t> bytes_of(const HostTensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.tensor().data());
  return std::vector<uint8_t>(p, p + t.tensor().nbytes());
}

// Calls `op` (which builds its inputs, runs the kernel with the given runner and returns its out)
// on one thread and on two; the outs must be byte for byte equal and the 2-thread call must have
// split. Returns the one-thread out.
HostTensor same_on_two_threads(const std::function<HostTensor(ParallelRunner*)>& op) {
  HostTensor one = op(nullptr);
  CountingPool pool;
  HostTensor two = op(&pool);
  CHECK(pool.runs > 0);
  CHECK(bytes_of(one) == bytes_of(two));
  return one;
}

HostTensor random_tensor(ScalarType dtype, std::vector<int32_t> sizes, uint32_t seed) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  return make(dtype, std::move(sizes), pseudo_random(n, seed));
}

std::vector<double> reference_mm(const std::vector<double>& a, const std::vector<double>& b,
                                 int n, int k, int m) {
  std::vector<double> c(static_cast<size_t>(n) * static_cast<size_t>(m), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int p = 0; p < k; ++p) {
      const double av = a[static_cast<size_t>(i * k + p)];
      for (int j = 0; j < m; ++j) {
        c[static_cast<size_t>(i * m + j)] += av * b[static_cast<size_t>(p * m + j)];
      }
    }
  }
  return c;
}

HostTensor mm(ParallelRunner* parallel, int n, int k, int m, ScalarType dtype = F) {
  HostTensor a = random_tensor(dtype, {n, k}, 1);
  HostTensor b = random_tensor(dtype, {k, m}, 2);
  HostTensor out = zeros(dtype, {n, m});
  check_ok(Args().threads(parallel).t(a).t(b).t(out).run("aten::mm.out"));
  return out;
}

TEST_CASE("threads: mm split by columns is bit-identical and matches a reference") {
  // 64 x 200 @ 200 x 520: 33 column panels of 16 (the last of 8), split 17:16 by columns, so a
  // thread's columns start inside the GEMM's 512-column block.
  const HostTensor out = same_on_two_threads([](ParallelRunner* p) { return mm(p, 64, 200, 520); });
  const std::vector<double> want =
      reference_mm(pseudo_random(64 * 200, 1), pseudo_random(200 * 520, 2), 64, 200, 520);
  check_close(values(out.tensor()), want, 1e-4);
}

TEST_CASE("threads: mm split by rows is bit-identical") {
  // 300 x 170 @ 170 x 20: two column panels (16 and 4) would split 16:4, so rows split instead,
  // in panels of 6 (float) or 4 (double).
  const HostTensor out = same_on_two_threads([](ParallelRunner* p) { return mm(p, 300, 170, 20); });
  const std::vector<double> want =
      reference_mm(pseudo_random(300 * 170, 1), pseudo_random(170 * 20, 2), 300, 170, 20);
  check_close(values(out.tensor()), want, 1e-4);
  same_on_two_threads([](ParallelRunner* p) { return mm(p, 400, 120, 12, D); });
  // Balanced either way: 200 x 300 @ 300 x 190 (12 column panels, 34 row panels).
  same_on_two_threads([](ParallelRunner* p) { return mm(p, 200, 300, 190); });
  same_on_two_threads([](ParallelRunner* p) { return mm(p, 150, 120, 170, D); });
}

TEST_CASE("threads: addmm is bit-identical") {
  same_on_two_threads([](ParallelRunner* p) {
    HostTensor self = random_tensor(F, {190}, 3);
    HostTensor a = random_tensor(F, {130, 256}, 4);
    HostTensor b = random_tensor(F, {256, 190}, 5);
    HostTensor out = zeros(F, {130, 190});
    check_ok(Args().threads(p).t(self).t(a).t(b).d(0.5).d(2.0).t(out).run("aten::addmm.out"));
    return out;
  });
}

TEST_CASE("threads: bmm split by batch and within one product is bit-identical") {
  for (int batch : {1, 3}) {
    INFO("batch ", batch);
    same_on_two_threads([batch](ParallelRunner* p) {
      HostTensor a = random_tensor(F, {batch, 100, 150}, 6);
      HostTensor b = random_tensor(F, {batch, 150, 330}, 7);
      HostTensor out = zeros(F, {batch, 100, 330});
      check_ok(Args().threads(p).t(a).t(b).t(out).run("aten::bmm.out"));
      return out;
    });
  }
}

struct ConvCase {
  int n, cin, h, w, cout, groups, stride, pad;
};

HostTensor conv(ParallelRunner* parallel, const ConvCase& c) {
  HostTensor in = random_tensor(F, {c.n, c.cin, c.h, c.w}, 8);
  HostTensor weight = random_tensor(F, {c.cout, c.cin / c.groups, 3, 3}, 9);
  HostTensor bias = random_tensor(F, {c.cout}, 10);
  const int oh = (c.h + 2 * c.pad - 3) / c.stride + 1;
  const int ow = (c.w + 2 * c.pad - 3) / c.stride + 1;
  HostTensor out = zeros(F, {c.n, c.cout, oh, ow});
  check_ok(Args()
               .threads(parallel)
               .t(in)
               .t(weight)
               .t(bias)
               .ints({c.stride, c.stride})
               .ints({c.pad, c.pad})
               .ints({1, 1})
               .b(false)
               .ints({0, 0})
               .i(c.groups)
               .t(out)
               .run("aten::convolution.out"));
  return out;
}

TEST_CASE("threads: convolution is bit-identical (GEMM path, groups, depthwise)") {
  // One image: the split falls between column panels, inside the GEMM's column blocks;
  // against the direct sum.
  const ConvCase one{1, 16, 31, 29, 24, 1, 1, 1};
  const HostTensor out = same_on_two_threads([&](ParallelRunner* p) { return conv(p, one); });
  const std::vector<double> in = pseudo_random(16 * 31 * 29, 8);
  const std::vector<double> w = pseudo_random(24 * 16 * 9, 9);
  const std::vector<double> bias = pseudo_random(24, 10);
  std::vector<double> want(static_cast<size_t>(24 * 31 * 29));
  for (int co = 0; co < 24; ++co) {
    for (int y = 0; y < 31; ++y) {
      for (int x = 0; x < 29; ++x) {
        double sum = bias[static_cast<size_t>(co)];
        for (int ci = 0; ci < 16; ++ci) {
          for (int r = 0; r < 3; ++r) {
            for (int s = 0; s < 3; ++s) {
              const int iy = y + r - 1;
              const int ix = x + s - 1;
              if (iy < 0 || iy >= 31 || ix < 0 || ix >= 29) continue;
              sum += w[static_cast<size_t>(((co * 16 + ci) * 3 + r) * 3 + s)] *
                     in[static_cast<size_t>((ci * 31 + iy) * 29 + ix)];
            }
          }
        }
        want[static_cast<size_t>((co * 31 + y) * 29 + x)] = sum;
      }
    }
  }
  check_close(values(out.tensor()), want, 1e-4);

  // Several images and groups, strided: chunks cross (image, group) products.
  same_on_two_threads([](ParallelRunner* p) { return conv(p, {3, 32, 20, 20, 32, 2, 2, 1}); });
  same_on_two_threads([](ParallelRunner* p) { return conv(p, {3, 32, 20, 20, 32, 2, 1, 1}); });
  // Depthwise (one input channel per group): split by output planes.
  same_on_two_threads([](ParallelRunner* p) { return conv(p, {2, 32, 40, 40, 32, 32, 1, 1}); });
}

// 300,000 elements: above the elementwise split threshold, and not a multiple of the split block.
constexpr int32_t kRows = 600;
constexpr int32_t kCols = 500;

TEST_CASE("threads: binary elementwise ops are bit-identical and add matches a reference") {
  const HostTensor sum = same_on_two_threads([](ParallelRunner* p) {
    HostTensor a = random_tensor(F, {kRows, kCols}, 11);
    HostTensor b = random_tensor(F, {kRows, kCols}, 12);
    HostTensor out = zeros(F, {kRows, kCols});
    check_ok(Args().threads(p).t(a).t(b).i(1).t(out).run("aten::add.out"));
    return out;
  });
  const std::vector<double> lhs = pseudo_random(kRows * kCols, 11);
  const std::vector<double> rhs = pseudo_random(kRows * kCols, 12);
  const std::vector<double> got = values(sum.tensor());
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bad += got[i] != static_cast<double>(static_cast<float>(lhs[i]) + static_cast<float>(rhs[i]));
  }
  CHECK(bad == 0);

  for (const char* op : {"aten::sub.out", "aten::add.out"}) {
    INFO(std::string(op));
    // alpha 2, and `other` a single element (the linear-and-single loop).
    same_on_two_threads([op](ParallelRunner* p) {
      HostTensor a = random_tensor(F, {kRows, kCols}, 13);
      HostTensor b = random_tensor(F, {1}, 14);
      HostTensor out = zeros(F, {kRows, kCols});
      check_ok(Args().threads(p).t(a).t(b).d(2.0).t(out).run(op));
      return out;
    });
  }
  same_on_two_threads([](ParallelRunner* p) {
    HostTensor a = random_tensor(D, {kRows, kCols}, 15);
    HostTensor b = random_tensor(D, {kRows, kCols}, 16);
    HostTensor out = zeros(D, {kRows, kCols});
    check_ok(Args().threads(p).t(a).t(b).t(out).run("aten::mul.out"));
    return out;
  });
}

TEST_CASE("threads: unary elementwise ops are bit-identical") {
  for (const char* op :
       {"aten::sigmoid.out", "aten::relu.out", "aten::exp.out", "aten::sqrt.out"}) {
    INFO(std::string(op));
    same_on_two_threads([op](ParallelRunner* p) {
      HostTensor a = random_tensor(F, {kRows, kCols}, 17);
      HostTensor out = zeros(F, {kRows, kCols});
      check_ok(Args().threads(p).t(a).t(out).run(op));
      return out;
    });
  }
}

TEST_CASE("threads: small tensors stay on the caller's thread") {
  CountingPool pool;
  HostTensor a = random_tensor(F, {100, 100}, 18);
  HostTensor b = random_tensor(F, {100, 100}, 19);
  HostTensor out = zeros(F, {100, 100});
  check_ok(Args().threads(&pool).t(a).t(b).i(1).t(out).run("aten::add.out"));
  HostTensor m = zeros(F, {8, 8});
  HostTensor x = random_tensor(F, {8, 8}, 20);
  check_ok(Args().threads(&pool).t(x).t(x).t(m).run("aten::mm.out"));
  CHECK(pool.runs == 0);
}

}  // namespace
}  // namespace etkit::test
