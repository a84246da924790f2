// permute_copy, expand_copy, view_copy, alias_copy, slice_copy, slice_scatter, select_copy,
// unsqueeze_copy, squeeze_copy, cat.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i + 1);
  return v;
}

TEST_CASE("kernel permute_copy") {
  SUBCASE("transpose") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {3, 2});
    check_ok(Args().t(a).ints({1, 0}).t(out).run("aten::permute_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 4, 2, 5, 3, 6});
  }
  SUBCASE("rank 3 with a negative dim, any dim orders") {
    auto a = make(L, {2, 3, 4}, iota(24), {2, 0, 1});
    auto out = zeros(L, {4, 2, 3}, {1, 0, 2});
    check_ok(Args().t(a).ints({2, 0, -2}).t(out).run("aten::permute_copy.out"));
    std::vector<double> want;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) want.push_back(1 + i * 12 + j * 4 + k);
    check_tensor(out.tensor(), L, {4, 2, 3}, want);
  }
  SUBCASE("any element size, rank 0, empty") {
    auto h = make(H, {2, 2}, {1, 2, 3, 4});
    auto hout = zeros(H, {2, 2});
    check_ok(Args().t(h).ints({1, 0}).t(hout).run("aten::permute_copy.out"));
    check_tensor(hout.tensor(), H, {2, 2}, {1, 3, 2, 4});
    auto s = make(I, {}, {7});
    auto sout = zeros(I, {});
    check_ok(Args().t(s).ints({}).t(sout).run("aten::permute_copy.out"));
    check_tensor(sout.tensor(), I, {}, {7});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(F, {2, 0});
    check_ok(Args().t(e).ints({1, 0}).t(eout).run("aten::permute_copy.out"));
  }
  SUBCASE("large transposes go tile by tile: edges, batches, element sizes, out dim orders") {
    // Over 4096 elements and sizes that are not multiples of the 32 x 32 tile: the tiled copy.
    // Each case permutes a [b, r, c] tensor and checks every element against its definition.
    struct Case {
      std::vector<int64_t> dims;
      std::vector<uint8_t> out_order;
    };
    const int32_t b = 3, r = 45, c = 77;
    const std::vector<int32_t> in_sizes = {b, r, c};
    for (const ScalarType dtype : {F, H, L, U8}) {
      for (const Case& pc : {Case{{0, 2, 1}, {}}, Case{{2, 0, 1}, {}}, Case{{1, 2, 0}, {}},
                             Case{{0, 2, 1}, {2, 0, 1}}, Case{{2, 1, 0}, {}}}) {
        CAPTURE(dtype);
        CAPTURE(pc.dims[0]);
        CAPTURE(pc.dims[1]);
        CAPTURE(pc.out_order.size());
        std::vector<double> values_in(static_cast<size_t>(b * r * c));
        for (size_t i = 0; i < values_in.size(); ++i) values_in[i] = static_cast<double>(i % 251);
        auto a = make(dtype, in_sizes, values_in);
        std::vector<int32_t> out_sizes;
        for (int64_t d : pc.dims) out_sizes.push_back(in_sizes[static_cast<size_t>(d)]);
        auto out = zeros(dtype, out_sizes, pc.out_order);
        check_ok(Args().t(a).ints(pc.dims).t(out).run("aten::permute_copy.out"));
        std::vector<double> want;
        int64_t at[3];
        for (at[0] = 0; at[0] < out_sizes[0]; ++at[0]) {
          for (at[1] = 0; at[1] < out_sizes[1]; ++at[1]) {
            for (at[2] = 0; at[2] < out_sizes[2]; ++at[2]) {
              int64_t src[3];
              for (int k = 0; k < 3; ++k) src[pc.dims[static_cast<size_t>(k)]] = at[k];
              want.push_back(values_in[static_cast<size_t>((src[0] * r + src[1]) * c + src[2])]);
            }
          }
        }
        CHECK(values(out.tensor()) == want);
      }
    }
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {3, 2});
    check_error(Args().t(a).ints({0}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dims has 1 entries, expected 2");
    check_error(Args().t(a).ints({1, 1}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dims repeats dimension 1");
    check_error(Args().t(a).ints({0, 2}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dim 2 is out of range");
    check_error(Args().t(a).ints({0, 1}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [2, 3]");
    auto iout = zeros(I, {3, 2});
    check_error(Args().t(a).ints({1, 0}).t(iout).run("aten::permute_copy.out"),
                ErrorCode::InvalidType, "out has dtype int32, expected float32");
    check_error(Args().t(a).i(1).t(out).run("aten::permute_copy.out"), ErrorCode::InvalidType,
                "dims is an int, expected an int list");
  }
}

TEST_CASE("kernel expand_copy") {
  SUBCASE("new leading dimension and -1") {
    auto a = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).ints({2, -1}).b(false).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 1, 2, 3});
  }
  SUBCASE("size-1 dimensions of a transposed input") {
    auto a = make(I, {2, 1}, {5, 6}, {1, 0});
    auto out = zeros(I, {2, 2, 3});
    check_ok(Args().t(a).ints({2, -1, 3}).b(true).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), I, {2, 2, 3}, {5, 5, 5, 6, 6, 6, 5, 5, 5, 6, 6, 6});
  }
  SUBCASE("rank 0 and expanding to zero") {
    auto s = make(F, {}, {4});
    auto out = zeros(F, {3});
    check_ok(Args().t(s).ints({3}).b(false).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), F, {3}, {4, 4, 4});
    auto one = make(F, {1}, {4});
    auto eout = zeros(F, {0});
    check_ok(Args().t(one).ints({0}).b(false).t(eout).run("aten::expand_copy.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(a).ints({3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "size has 1 entries, expected at least 2");
    check_error(Args().t(a).ints({4, 3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "size[0] is 4, but self has size 2");
    check_error(Args().t(a).ints({-1, 2, 3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "new leading dimension");
    check_error(Args().t(a).ints({2, 3}).i(0).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidType, "implicit is an int, expected a bool");
  }
}

TEST_CASE("kernel view_copy") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("reshape and infer -1") {
    auto out = zeros(F, {3, 2});
    check_ok(Args().t(a).ints({3, 2}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 2, 3, 4, 5, 6});
    auto flat = zeros(F, {6});
    check_ok(Args().t(a).ints({-1}).t(flat).run("aten::view_copy.out"));
    check_tensor(flat.tensor(), F, {6}, {1, 2, 3, 4, 5, 6});
    auto three = zeros(F, {1, 3, 2});
    check_ok(Args().t(a).ints({1, -1, 2}).t(three).run("aten::view_copy.out"));
    check_tensor(three.tensor(), F, {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("non-contiguous input and out keep logical order") {
    auto t = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto out = zeros(F, {3, 2}, {1, 0});
    check_ok(Args().t(t).ints({3, 2}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(L, {}, {3});
    auto out = zeros(L, {1, 1});
    check_ok(Args().t(s).ints({1, -1}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), L, {1, 1}, {3});
    auto back = zeros(L, {});
    check_ok(Args().t(out).ints({}).t(back).run("aten::view_copy.out"));
    check_tensor(back.tensor(), L, {}, {3});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {3, 0});
    check_ok(Args().t(e).ints({3, 0}).t(eout).run("aten::view_copy.out"));
  }
  SUBCASE("resizes a dynamic out") {
    DynamicTensor out(F, {1, 8}, 8);
    check_ok(Args().t(a).ints({6, 1}).t(out.tensor()).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {6, 1}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {6});
    check_error(Args().t(a).ints({4}).t(out).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "size [4] has 4 elements, but self has sizes [2, 3]");
    auto out2 = zeros(F, {3, 2});
    check_error(Args().t(a).ints({-1, -1}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "more than one -1");
    check_error(Args().t(a).ints({-1, 4}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "cannot be inferred");
    check_error(Args().t(a).ints({-2, 3}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "size[0] is -2");
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_error(Args().t(e).ints({0, -1}).t(eout).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "cannot be inferred");
    check_error(Args().t(a).ints({6}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [6]");
  }
}

TEST_CASE("kernel alias_copy") {
  auto a = make(I, {2, 2}, {1, 2, 3, 4}, {1, 0});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(a).t(out).run("aten::alias_copy.out"));
  check_tensor(out.tensor(), I, {2, 2}, {1, 2, 3, 4});
  auto s = make(F, {}, {2.5});
  auto sout = zeros(F, {});
  check_ok(Args().t(s).t(sout).run("aten::alias_copy.out"));
  check_tensor(sout.tensor(), F, {}, {2.5});
  auto bad = zeros(I, {4});
  check_error(Args().t(a).t(bad).run("aten::alias_copy.out"), ErrorCode::InvalidArgument,
              "out has sizes [4], expected [2, 2]");
  auto fout = zeros(F, {2, 2});
  check_error(Args().t(a).t(fout).run("aten::alias_copy.out"), ErrorCode::InvalidType,
              "out has dtype float32, expected int32");
  auto c = zeros(ScalarType::ComplexDouble, {1});
  auto cout = zeros(ScalarType::ComplexDouble, {1});
  check_error(Args().t(c).t(cout).run("aten::alias_copy.out"), ErrorCode::InvalidType,
              "cannot be copied");
}

constexpr const char* kSlice = "aten::slice_copy.Tensor_out";
constexpr const char* kScatter = "aten::slice_scatter.out";
constexpr const char* kSelect = "aten::select_copy.int_out";
constexpr const char* kUnsqueeze = "aten::unsqueeze_copy.out";
constexpr const char* kSqueeze = "aten::squeeze_copy.dims_out";
constexpr const char* kCat = "aten::cat.out";
constexpr int64_t kInt64Max = 9223372036854775807;

TEST_CASE("kernel shape: operators are registered") {
  for (const char* name : {"aten::alias_copy.out", "aten::expand_copy.out",
                           "aten::permute_copy.out", "aten::view_copy.out", kSlice, kScatter,
                           kSelect, kUnsqueeze, kSqueeze, kCat}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel shape: slice_copy") {
  auto a = make(F, {2, 5}, iota(10));
  SUBCASE("start, end and step") {
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(a).i(1).i(1).i(4).i(2).t(out).run(kSlice));
    check_tensor(out.tensor(), F, {2, 2}, {2, 4, 7, 9});
  }
  SUBCASE("negative and out-of-range bounds clamp") {
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).i(-1).i(-3).none().i(1).t(out).run(kSlice));
    check_tensor(out.tensor(), F, {2, 3}, {3, 4, 5, 8, 9, 10});
    auto wide = zeros(F, {2, 2});
    check_ok(Args().t(a).i(1).i(-100).i(100).i(3).t(wide).run(kSlice));
    check_tensor(wide.tensor(), F, {2, 2}, {1, 4, 6, 9});
    auto all = zeros(F, {2, 5});
    check_ok(Args().t(a).i(1).none().i(kInt64Max).i(1).t(all).run(kSlice));
    check_tensor(all.tensor(), F, {2, 5}, iota(10));
    auto empty = zeros(F, {2, 0});
    check_ok(Args().t(a).i(1).i(4).i(2).i(1).t(empty).run(kSlice));
    check_ok(Args().t(a).i(1).i(7).none().i(1).t(empty).run(kSlice));
  }
  SUBCASE("non-contiguous input and out") {
    auto t = make(I, {3, 2}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto out = zeros(I, {2, 2}, {1, 0});
    check_ok(Args().t(t).i(0).i(1).none().i(1).t(out).run(kSlice));
    check_tensor(out.tensor(), I, {2, 2}, {3, 4, 5, 6});
    auto r3 = make(L, {2, 3, 2}, iota(12), {0, 2, 1});
    auto out3 = zeros(L, {2, 3, 1}, {2, 1, 0});
    check_ok(Args().t(r3).i(-1).i(1).none().i(1).t(out3).run(kSlice));
    check_tensor(out3.tensor(), L, {2, 3, 1}, {2, 4, 6, 8, 10, 12});
  }
  SUBCASE("resizes a dynamic out") {
    DynamicTensor out(F, {2, 5}, 10);
    check_ok(Args().t(a).i(1).i(0).i(2).i(1).t(out.tensor()).run(kSlice));
    check_tensor(out.tensor(), F, {2, 2}, {1, 2, 6, 7});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {2, 2});
    check_error(Args().t(a).i(1).none().none().i(0).t(out).run(kSlice),
                ErrorCode::InvalidArgument, "step is 0, expected a positive step");
    check_error(Args().t(a).i(2).none().none().i(1).t(out).run(kSlice),
                ErrorCode::InvalidArgument, "dim 2 is out of range for a rank-2 tensor");
    check_error(Args().t(a).i(1).none().none().i(1).t(out).run(kSlice),
                ErrorCode::InvalidArgument, "out has sizes [2, 2], expected [2, 5]");
    check_error(Args().t(a).i(1).d(1.0).none().i(1).t(out).run(kSlice), ErrorCode::InvalidType,
                "start is a double, expected an int or none");
    auto s = make(F, {}, {1});
    auto sout = zeros(F, {});
    check_error(Args().t(s).i(0).none().none().i(1).t(sout).run(kSlice),
                ErrorCode::InvalidArgument, "zero-dimensional");
    auto iout = zeros(I, {2, 2});
    check_error(Args().t(a).i(1).i(0).i(2).i(1).t(iout).run(kSlice), ErrorCode::InvalidType,
                "out has dtype int32, expected float32");
    DynamicTensor small(F, {2, 1}, 2);
    check_error(Args().t(a).i(1).i(0).i(2).i(1).t(small.tensor()).run(kSlice),
                ErrorCode::InvalidArgument, "out has sizes [2, 1], expected [2, 2]");
    check_error(Args().t(a).i(1).none().none().t(out).run_raw(kSlice),
                ErrorCode::InvalidArgument, "expected 7 arguments");
  }
}

TEST_CASE("kernel shape: slice_scatter") {
  auto a = make(F, {2, 4}, iota(8));
  SUBCASE("every other column") {
    auto src = make(F, {2, 2}, {10, 20, 30, 40});
    auto out = zeros(F, {2, 4});
    check_ok(Args().t(a).t(src).i(1).i(0).none().i(2).t(out).run(kScatter));
    check_tensor(out.tensor(), F, {2, 4}, {10, 2, 20, 4, 30, 6, 40, 8});
  }
  SUBCASE("negative start, non-contiguous src and out") {
    auto src = make(F, {1, 4}, {-1, -2, -3, -4}, {1, 0});
    auto out = zeros(F, {2, 4}, {1, 0});
    check_ok(Args().t(a).t(src).i(-2).i(-1).i(kInt64Max).i(1).t(out).run(kScatter));
    check_tensor(out.tensor(), F, {2, 4}, {1, 2, 3, 4, -1, -2, -3, -4});
  }
  SUBCASE("an empty slice copies self") {
    auto src = zeros(F, {2, 0});
    auto out = zeros(F, {2, 4});
    check_ok(Args().t(a).t(src).i(1).i(3).i(1).i(1).t(out).run(kScatter));
    check_tensor(out.tensor(), F, {2, 4}, iota(8));
  }
  SUBCASE("errors") {
    auto src = make(F, {2, 3}, iota(6));
    auto out = zeros(F, {2, 4});
    check_error(Args().t(a).t(src).i(1).i(0).none().i(2).t(out).run(kScatter),
                ErrorCode::InvalidArgument, "src has sizes [2, 3], expected [2, 2]");
    auto isrc = make(I, {2, 2}, {1, 2, 3, 4});
    check_error(Args().t(a).t(isrc).i(1).i(0).none().i(2).t(out).run(kScatter),
                ErrorCode::InvalidType, "src has dtype int32, expected float32");
    auto small = zeros(F, {2, 2});
    auto src2 = make(F, {2, 2}, {1, 2, 3, 4});
    check_error(Args().t(a).t(src2).i(1).i(0).none().i(2).t(small).run(kScatter),
                ErrorCode::InvalidArgument, "out has sizes [2, 2], expected [2, 4]");
  }
}

TEST_CASE("kernel shape: select_copy") {
  auto a = make(F, {2, 3}, iota(6));
  SUBCASE("either dim, negative index") {
    auto col = zeros(F, {2});
    check_ok(Args().t(a).i(1).i(-1).t(col).run(kSelect));
    check_tensor(col.tensor(), F, {2}, {3, 6});
    auto row = zeros(F, {3});
    check_ok(Args().t(a).i(-2).i(1).t(row).run(kSelect));
    check_tensor(row.tensor(), F, {3}, {4, 5, 6});
  }
  SUBCASE("to rank 0, and through dim orders") {
    auto v = make(B, {3}, {0, 1, 0});
    auto s = zeros(B, {});
    check_ok(Args().t(v).i(0).i(1).t(s).run(kSelect));
    check_tensor(s.tensor(), B, {}, {1});
    auto t = make(D, {2, 2, 3}, iota(12), {0, 2, 1});
    auto out = zeros(D, {2, 2}, {1, 0});
    check_ok(Args().t(t).i(2).i(1).t(out).run(kSelect));
    check_tensor(out.tensor(), D, {2, 2}, {2, 5, 8, 11});
  }
  SUBCASE("errors") {
    auto col = zeros(F, {2});
    check_error(Args().t(a).i(1).i(3).t(col).run(kSelect), ErrorCode::InvalidArgument,
                "index 3 is out of range for a dimension of size 3");
    check_error(Args().t(a).i(1).i(-4).t(col).run(kSelect), ErrorCode::InvalidArgument,
                "index -4 is out of range");
    check_error(Args().t(a).i(2).i(0).t(col).run(kSelect), ErrorCode::InvalidArgument,
                "dim 2 is out of range");
    check_error(Args().t(a).i(0).i(0).t(col).run(kSelect), ErrorCode::InvalidArgument,
                "out has sizes [2], expected [3]");
    auto s = make(F, {}, {1});
    check_error(Args().t(s).i(0).i(0).t(s).run(kSelect), ErrorCode::InvalidArgument,
                "zero-dimensional");
  }
}

TEST_CASE("kernel shape: unsqueeze_copy and squeeze_copy") {
  auto a = make(I, {2, 3}, iota(6), {1, 0});
  SUBCASE("unsqueeze") {
    auto mid = zeros(I, {2, 1, 3}, {2, 0, 1});
    check_ok(Args().t(a).i(1).t(mid).run(kUnsqueeze));
    check_tensor(mid.tensor(), I, {2, 1, 3}, iota(6));
    auto last = zeros(I, {2, 3, 1});
    check_ok(Args().t(a).i(-1).t(last).run(kUnsqueeze));
    check_tensor(last.tensor(), I, {2, 3, 1}, iota(6));
    auto s = make(F, {}, {5});
    auto one = zeros(F, {1});
    check_ok(Args().t(s).i(-1).t(one).run(kUnsqueeze));
    check_tensor(one.tensor(), F, {1}, {5});
    auto e = zeros(F, {0});
    auto eout = zeros(F, {1, 0});
    check_ok(Args().t(e).i(0).t(eout).run(kUnsqueeze));
    check_error(Args().t(a).i(3).t(last).run(kUnsqueeze), ErrorCode::InvalidArgument,
                "dim 3 is out of range for a rank-3 tensor");
    check_error(Args().t(a).i(0).t(last).run(kUnsqueeze), ErrorCode::InvalidArgument,
                "out has sizes [2, 3, 1], expected [1, 2, 3]");
  }
  SUBCASE("squeeze") {
    auto t = make(F, {2, 1, 3, 1}, iota(6), {3, 1, 2, 0});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(t).ints({1, -1}).t(out).run(kSqueeze));
    check_tensor(out.tensor(), F, {2, 3}, iota(6));
    auto keep = zeros(F, {2, 1, 3, 1});
    check_ok(Args().t(t).ints({0, 2}).t(keep).run(kSqueeze));  // sizes 2 and 3 stay
    check_tensor(keep.tensor(), F, {2, 1, 3, 1}, iota(6));
    auto s = make(L, {}, {4});
    auto sout = zeros(L, {});
    check_ok(Args().t(s).ints({0}).t(sout).run(kSqueeze));
    check_tensor(sout.tensor(), L, {}, {4});
    auto e = zeros(F, {0, 1});
    auto eout = zeros(F, {0});
    check_ok(Args().t(e).ints({1}).t(eout).run(kSqueeze));
    check_error(Args().t(t).ints({1, 1}).t(out).run(kSqueeze), ErrorCode::InvalidArgument,
                "dim 1 appears more than once");
    check_error(Args().t(t).ints({4}).t(out).run(kSqueeze), ErrorCode::InvalidArgument,
                "dim 4 is out of range");
    check_error(Args().t(t).ints({1}).t(out).run(kSqueeze), ErrorCode::InvalidArgument,
                "out has sizes [2, 3], expected [2, 3, 1]");
  }
}

TEST_CASE("kernel shape: cat") {
  SUBCASE("along the last dim, any dim orders") {
    auto a = make(F, {2, 1}, {1, 2});
    auto b = make(F, {2, 2}, {3, 4, 5, 6}, {1, 0});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().tensors({&a, &b}).i(-1).t(out).run(kCat));
    check_tensor(out.tensor(), F, {2, 3}, {1, 3, 4, 2, 5, 6});
  }
  SUBCASE("along dim 0, skipping 1-D empty tensors") {
    auto a = make(L, {1, 2}, {1, 2});
    auto skip = zeros(L, {0});
    auto b = make(L, {2, 2}, {3, 4, 5, 6});
    auto out = zeros(L, {3, 2});
    check_ok(Args().tensors({&skip, &a, &skip, &b}).i(0).t(out).run(kCat));
    check_tensor(out.tensor(), L, {3, 2}, {1, 2, 3, 4, 5, 6});
    auto only = zeros(L, {0});
    check_ok(Args().tensors({&skip, &skip}).i(0).t(only).run(kCat));
    CHECK(only.tensor().numel() == 0);
  }
  SUBCASE("dtypes promote and convert into out") {
    auto a = make(I, {2}, {1, 2});
    auto b = make(F, {1}, {2.5});
    auto out = zeros(F, {3});
    check_ok(Args().tensors({&a, &b}).i(0).t(out).run(kCat));
    check_tensor(out.tensor(), F, {3}, {1, 2, 2.5});
    auto c = make(B, {1}, {1});
    auto lout = zeros(L, {3});
    check_ok(Args().tensors({&a, &c}).i(0).t(lout).run(kCat));
    check_tensor(lout.tensor(), L, {3}, {1, 2, 1});
  }
  SUBCASE("any element size moves as bytes; empty pieces") {
    auto a = make(H, {1, 2}, {0.5, 1.5});
    auto e = zeros(H, {0, 2});
    auto out = zeros(H, {2, 2});
    check_ok(Args().tensors({&a, &e, &a}).i(0).t(out).run(kCat));
    check_tensor(out.tensor(), H, {2, 2}, {0.5, 1.5, 0.5, 1.5});
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 2}, iota(4));
    auto b = make(F, {3, 3}, iota(9));
    auto out = zeros(F, {5, 2});
    check_error(Args().tensors({}).i(0).t(out).run(kCat), ErrorCode::InvalidArgument,
                "tensors is empty");
    check_error(Args().tensors({&a, &b}).i(0).t(out).run(kCat), ErrorCode::InvalidArgument,
                "tensors[1] has sizes [3, 3], expected [2, 2] except in dimension 0");
    check_error(Args().tensors({&a, &a}).i(2).t(out).run(kCat), ErrorCode::InvalidArgument,
                "dim 2 is out of range");
    check_error(Args().tensors({&a, &a}).i(0).t(out).run(kCat), ErrorCode::InvalidArgument,
                "out has sizes [5, 2], expected [4, 2]");
    auto s = make(F, {}, {1});
    check_error(Args().tensors({&s}).i(0).t(out).run(kCat), ErrorCode::InvalidArgument,
                "tensors[0] is zero-dimensional");
    auto iout = zeros(I, {4, 2});
    check_error(Args().tensors({&a, &a}).i(0).t(iout).run(kCat), ErrorCode::InvalidType,
                "tensors promote to float32, which cannot be cast to out's dtype int32");
    check_error(Args().t(a).i(0).t(out).run(kCat), ErrorCode::InvalidType,
                "tensors is a tensor, expected a tensor list");
  }
}

}  // namespace
}  // namespace etkit::test
