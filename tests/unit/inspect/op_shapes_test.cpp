#include "etkit/inspect/op_shapes.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

ArgInfo t(std::vector<int64_t> sizes, std::string dtype = "float32", bool dynamic = false) {
  ArgInfo a;
  a.kind = ArgKind::Tensor;
  a.dtype = std::move(dtype);
  a.sizes = std::move(sizes);
  a.dynamic = dynamic;
  return a;
}

TEST_CASE("op_shapes: outputs are the last arguments") {
  CHECK(kernel_output_count("aten::add.out") == 1);
  CHECK(kernel_output_count("aten::max.dim_max") == 2);
  CHECK(kernel_output_count("aten::native_layer_norm.out") == 3);

  InstructionEntry add;
  add.kind = InstructionKind::Kernel;
  add.op = "aten::add.out";
  ArgInfo alpha;
  alpha.kind = ArgKind::Double;
  // add.out(self, other, *, alpha, out) and the return slot (the out again).
  add.args = {t({2, 3}), t({3}), alpha, t({2, 3}), t({2, 3})};
  const CallArgs split = split_call_args(add);
  REQUIRE(split.inputs.size() == 3);
  REQUIRE(split.outputs.size() == 1);
  CHECK(split.outputs[0] == &add.args[3]);
  CHECK(split.ret == &add.args[4]);
  // Scalars are not shown.
  CHECK(call_shapes_text(add) == "float32[2, 3], float32[3] -> float32[2, 3]");
  CHECK(input_shapes_text(add) == "float32[2, 3], float32[3]");

  InstructionEntry max;
  max.kind = InstructionKind::Kernel;
  max.op = "aten::max.dim_max";
  ArgInfo dim;
  dim.kind = ArgKind::Int;
  ArgInfo list;
  list.kind = ArgKind::Other;
  list.type = "tensor_list";
  max.args = {t({4, 5}), dim, ArgInfo{}, t({4}), t({4}, "int64"), list};
  CHECK(call_shapes_text(max) == "float32[4, 5] -> float32[4], int64[4]");
}

TEST_CASE("op_shapes: delegate outputs, dynamic tensors, no arguments") {
  InstructionEntry call;
  call.kind = InstructionKind::Delegate;
  call.op = "XnnpackBackend";
  call.args = {t({1, 4}, "float32", true), t({1, 4}), t({1, 4}, "float32", true)};
  // No return slot: the last argument is an output.
  CHECK(split_call_args(call).ret == nullptr);
  CHECK(call_shapes_text(call) == "float32<=[1, 4], float32[1, 4] -> float32<=[1, 4]");
  CHECK(call_shapes_text(call, 2) == "float32<=[1, 4] -> float32[1, 4], float32<=[1, 4]");
  InstructionEntry none;
  none.kind = InstructionKind::Kernel;
  none.op = "aten::add.out";
  CHECK(call_shapes_text(none).empty());
  CHECK(input_shapes_text(none).empty());
}

}  // namespace
}  // namespace etkit::inspect
