// The registry table of portable kernels.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"
#include "etkit/kernels/portable_kernels.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel table: sorted, unique, and holding every operator the fixtures use") {
  // The operators of the runnable fixtures; each family test checks its own operators too.
  const std::set<std::string> want = {
      "aten::add.out",
      "aten::addmm.out",
      "aten::alias_copy.out",
      "aten::expand_copy.out",
      "aten::full_like.out",
      "aten::mm.out",
      "aten::mul.Scalar_out",
      "aten::mul.out",
      "aten::neg.out",
      "aten::permute_copy.out",
      "aten::pow.Tensor_Scalar_out",
      "aten::sub.out",
      "aten::sum.IntList_out",
      "aten::tanh.out",
      "aten::view_copy.out",
      "dim_order_ops::_clone_dim_order.out",
      "dim_order_ops::_to_dim_order_copy.out",
  };
  const auto table = portable_kernels();
  std::set<std::string> got;
  for (size_t i = 0; i < table.size(); ++i) {
    got.emplace(table[i].name);
    const bool has_fn = table[i].fn != nullptr;
    CHECK(has_fn);
    if (i > 0) CHECK(table[i - 1].name < table[i].name);  // sorted and unique
  }
  for (const auto& name : want) CHECK_MESSAGE(got.count(name) == 1, name);
  for (const auto& name : want) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel table: every kernel rejects a wrong argument count") {
  for (const KernelEntry& e : portable_kernels()) {
    CAPTURE(std::string(e.name));
    KernelContext ctx;
    std::vector<EValue*> none;
    e.fn(ctx, none);
    check_error(ctx, ErrorCode::InvalidArgument, "arguments");
    HostTensor t(ScalarType::Float, std::vector<int32_t>{1});
    EValue v = EValue::from_tensor(&t.tensor());
    // More than any schema has (cortex_m::quantized_depthwise_conv2d: 15 + 1).
    std::vector<EValue*> many(20, &v);
    KernelContext ctx2;
    e.fn(ctx2, many);
    check_error(ctx2, ErrorCode::InvalidArgument, "got 20");
  }
}

}  // namespace
}  // namespace etkit::test
