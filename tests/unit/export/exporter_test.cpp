#include "etkit/export/exporter.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "etkit/runtime/data_loader.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/method.h"
#include "etkit/runtime/program.h"
#include "etkit/host/runner.h"
#include "etkit/host/shared_memory.h"
#include "etkit/export/debug_map_export.h"
#include "etkit/debugmap/debug_map_json.h"
#include "etkit/formats/program_generated.h"
#include "test_support.h"

namespace etkit::exporter {
namespace {

namespace fb = executorch_flatbuffer;
using testing::AlignedBytes;
using testing::fixture;

// A written program kept in aligned memory with its loader, loaded with libcore.
struct Loaded {
  AlignedBytes bytes;
  std::unique_ptr<BufferDataLoader> loader;
  Result<Program> program = Error(ErrorCode::Internal, "not loaded");
  const fb::Program* root() const {
    return static_cast<const fb::Program*>(program->flatbuffer_root());
  }
};

std::unique_ptr<Loaded> load(std::span<const uint8_t> bytes) {
  auto l = std::make_unique<Loaded>();
  l->bytes.assign(bytes);
  l->loader = std::make_unique<BufferDataLoader>(l->bytes.span());
  l->program = Program::load(*l->loader);
  return l;
}

ExportedProgram export_text(const std::string& text) {
  Result<Model> model = parse_model(text, "", "t.json");
  REQUIRE_MESSAGE(model.ok(), model.error().message());
  Result<ExportedProgram> p = export_program(*model);
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  return std::move(*p);
}

const fb::ExecutionPlan* plan_named(const fb::Program* p, const std::string& name) {
  for (const auto* plan : *p->execution_plan()) {
    if (plan->name()->str() == name) return plan;
  }
  return nullptr;
}

const fb::Tensor* tensor_at(const fb::ExecutionPlan* plan, size_t i) {
  return plan->values()->Get(static_cast<flatbuffers::uoffset_t>(i))->val_as_Tensor();
}

TEST_CASE("exporter: an add program matches ExecuTorch's et-add.pte field for field") {
  ExportedProgram ours = export_text(R"({"format": "etkit-model", "version": 1, "methods": [
    {"name": "forward",
     "inputs": [{"name": "x", "dtype": "float32", "shape": [1]}, {"name": "y", "dtype": "float32", "shape": [1]}],
     "ops": [{"op": "aten::add.out", "args": ["x", "y"], "name": "z"}],
     "outputs": ["z"]}]})");
  auto mine = load(ours.bytes);
  REQUIRE_MESSAGE(mine->program.ok(), mine->program.error().message());
  AlignedBytes theirs_bytes = AlignedBytes::read(fixture("pte/et-add.pte"));
  auto theirs = load(theirs_bytes.span());
  REQUIRE(theirs->program.ok());

  CHECK_FALSE(mine->program->has_extended_header());  // no segment data: no eh00, as ExecuTorch
  const fb::Program* a = mine->root();
  const fb::Program* b = theirs->root();
  CHECK(a->version() == b->version());
  REQUIRE(a->constant_buffer() != nullptr);
  CHECK(a->constant_buffer()->size() == b->constant_buffer()->size());
  REQUIRE(a->backend_delegate_data() != nullptr);
  CHECK(a->backend_delegate_data()->size() == b->backend_delegate_data()->size());
  REQUIRE(a->segments()->size() == b->segments()->size());
  CHECK(a->segments()->Get(0)->offset() == b->segments()->Get(0)->offset());
  CHECK(a->segments()->Get(0)->size() == b->segments()->Get(0)->size());
  CHECK(a->constant_segment()->segment_index() == b->constant_segment()->segment_index());
  CHECK(a->constant_segment()->offsets()->size() == b->constant_segment()->offsets()->size());
  CHECK(a->mutable_data_segments() == nullptr);
  CHECK(b->mutable_data_segments() == nullptr);
  CHECK(a->named_data() == nullptr);

  REQUIRE(a->execution_plan()->size() == 1);
  const fb::ExecutionPlan* pa = a->execution_plan()->Get(0);
  const fb::ExecutionPlan* pb = b->execution_plan()->Get(0);
  CHECK(pa->name()->str() == pb->name()->str());
  CHECK(pa->container_meta_type()->encoded_inp_str()->str() ==
        pb->container_meta_type()->encoded_inp_str()->str());
  CHECK(pa->container_meta_type()->encoded_out_str()->str() ==
        pb->container_meta_type()->encoded_out_str()->str());
  REQUIRE(pa->values()->size() == pb->values()->size());
  for (flatbuffers::uoffset_t i = 0; i < pa->values()->size(); ++i) {
    CAPTURE(i);
    const fb::EValue* va = pa->values()->Get(i);
    const fb::EValue* vb = pb->values()->Get(i);
    REQUIRE(va->val_type() == vb->val_type());
    if (va->val_type() == fb::KernelTypes::Int) {
      CHECK(va->val_as_Int()->int_val() == vb->val_as_Int()->int_val());
      continue;
    }
    const fb::Tensor* ta = va->val_as_Tensor();
    const fb::Tensor* tb = vb->val_as_Tensor();
    CHECK(ta->scalar_type() == tb->scalar_type());
    CHECK(std::vector<int32_t>(ta->sizes()->begin(), ta->sizes()->end()) ==
          std::vector<int32_t>(tb->sizes()->begin(), tb->sizes()->end()));
    CHECK(std::vector<uint8_t>(ta->dim_order()->begin(), ta->dim_order()->end()) ==
          std::vector<uint8_t>(tb->dim_order()->begin(), tb->dim_order()->end()));
    CHECK(ta->data_buffer_idx() == tb->data_buffer_idx());
    CHECK(ta->shape_dynamism() == tb->shape_dynamism());
    REQUIRE(ta->allocation_info() != nullptr);
    CHECK(ta->allocation_info()->memory_id() == tb->allocation_info()->memory_id());
    CHECK(ta->allocation_info()->memory_offset_low() == tb->allocation_info()->memory_offset_low());
  }
  CHECK(std::vector<int32_t>(pa->inputs()->begin(), pa->inputs()->end()) ==
        std::vector<int32_t>(pb->inputs()->begin(), pb->inputs()->end()));
  CHECK(std::vector<int32_t>(pa->outputs()->begin(), pa->outputs()->end()) ==
        std::vector<int32_t>(pb->outputs()->begin(), pb->outputs()->end()));
  REQUIRE(pa->chains()->size() == 1);
  const auto* ia = pa->chains()->Get(0)->instructions();
  const auto* ib = pb->chains()->Get(0)->instructions();
  REQUIRE(ia->size() == ib->size());
  const fb::KernelCall* ka = ia->Get(0)->instr_args_as_KernelCall();
  const fb::KernelCall* kb = ib->Get(0)->instr_args_as_KernelCall();
  CHECK(ka->op_index() == kb->op_index());
  CHECK(std::vector<int32_t>(ka->args()->begin(), ka->args()->end()) ==
        std::vector<int32_t>(kb->args()->begin(), kb->args()->end()));
  REQUIRE(pa->operators()->size() == pb->operators()->size());
  CHECK(pa->operators()->Get(0)->name()->str() == pb->operators()->Get(0)->name()->str());
  CHECK(pa->operators()->Get(0)->overload()->str() == pb->operators()->Get(0)->overload()->str());
  CHECK(pa->delegates()->size() == pb->delegates()->size());
  CHECK(std::vector<int64_t>(pa->non_const_buffer_sizes()->begin(), pa->non_const_buffer_sizes()->end()) ==
        std::vector<int64_t>(pb->non_const_buffer_sizes()->begin(), pb->non_const_buffer_sizes()->end()));
}

TEST_CASE("exporter: constant segment and extended header as ExecuTorch writes them") {
  // np-const-methods.pte holds an int64 scalar 1 (constant 1) and int64 [1, 2, 3] (constant 2).
  ExportedProgram ours = export_text(R"({"format": "etkit-model", "version": 1,
    "constants": [{"name": "one", "dtype": "int64", "shape": [], "values": [1]},
                  {"name": "three", "dtype": "int64", "shape": [3], "values": [1, 2, 3]}],
    "methods": [{"name": "get", "outputs": ["one", "three"]}]})");
  auto mine = load(ours.bytes);
  REQUIRE_MESSAGE(mine->program.ok(), mine->program.error().message());
  AlignedBytes theirs_bytes = AlignedBytes::read(fixture("pte/np-const-methods.pte"));
  auto theirs = load(theirs_bytes.span());
  REQUIRE(theirs->program.ok());

  CHECK(mine->program->has_extended_header());
  CHECK(mine->program->header_length() == theirs->program->header_length());
  // The same bytes at the same offsets: offsets [0, 0, 16], the scalar padded to 16.
  const auto* oa = mine->root()->constant_segment()->offsets();
  const auto* ob = theirs->root()->constant_segment()->offsets();
  CHECK(std::vector<uint64_t>(oa->begin(), oa->end()) == std::vector<uint64_t>(ob->begin(), ob->end()));
  Result<std::span<const uint8_t>> sa = mine->program->segment_data(0);
  Result<std::span<const uint8_t>> sb = theirs->program->segment_data(0);
  REQUIRE(sa.ok());
  REQUIRE(sb.ok());
  CHECK(std::vector<uint8_t>(sa->begin(), sa->end()) == std::vector<uint8_t>(sb->begin(), sb->end()));

  // Header: root offset 60, program size, segment base at 128 alignment, file size.
  const uint8_t* h = ours.bytes.data();
  uint32_t root = 0;
  uint64_t program_size = 0;
  uint64_t base = 0;
  uint64_t data_size = 0;
  std::memcpy(&root, h, 4);
  std::memcpy(&program_size, h + 16, 8);
  std::memcpy(&base, h + 24, 8);
  std::memcpy(&data_size, h + 32, 8);
  CHECK(std::memcmp(h + 4, "ET12eh00", 8) == 0);
  CHECK(root == 60);
  CHECK(base % 128 == 0);
  CHECK(base >= program_size);
  CHECK(base - program_size < 128);
  CHECK(data_size == 40);
  CHECK(ours.bytes.size() == base + data_size);
  // Constant getter shape of ExecuTorch: no inputs, no instructions, outputs the constants.
  const fb::ExecutionPlan* get = plan_named(mine->root(), "get");
  REQUIRE(get != nullptr);
  CHECK(get->inputs()->size() == 0);
  CHECK(get->chains()->Get(0)->instructions()->size() == 0);
  CHECK(tensor_at(get, 0)->data_buffer_idx() == 1);
  CHECK(tensor_at(get, 1)->data_buffer_idx() == 2);
  CHECK(tensor_at(get, 0)->allocation_info() == nullptr);
}

const char* kStateful = R"({"format": "etkit-model", "version": 1, "methods": [
  {"name": "set", "inputs": [{"name": "data", "dtype": "float32", "shape": [2, 3]}],
   "buffers": [{"name": "step", "dtype": "int64", "shape": [1], "values": [7]},
               {"name": "cache", "dtype": "float32", "shape": [2, 3]}],
   "ops": [{"op": "aten::copy.out", "args": ["cache", "data"], "out": "cache"}]},
  {"name": "get", "inputs": [{"name": "like", "dtype": "float32", "shape": [2, 3]}],
   "buffers": [{"name": "cache", "dtype": "float32", "shape": [2, 3]},
               {"name": "step", "dtype": "int64", "shape": [1]}],
   "ops": [{"op": "aten::copy.out", "args": ["like", "cache"], "name": "out"},
           {"op": "aten::clone.out", "args": ["step"], "name": "step_out"}],
   "outputs": ["out", "step_out"]}]})";

TEST_CASE("exporter: shared buffers sit at one offset of memory id 2 in every method") {
  ExportedProgram ours = export_text(kStateful);
  auto p = load(ours.bytes);
  REQUIRE_MESSAGE(p->program.ok(), p->program.error().message());
  REQUIRE(ours.buffers.size() == 2);
  CHECK(ours.buffers[0].name == "step");  // declaration order
  CHECK(ours.buffers[0].offset == 0);
  CHECK(ours.buffers[1].offset == 16);
  CHECK(ours.arena_bytes == 48);
  // Methods sorted by name, the two tables among them.
  std::vector<std::string> names;
  for (const auto* plan : *p->root()->execution_plan()) names.push_back(plan->name()->str());
  CHECK(names == std::vector<std::string>{"et_get_shared_buffer_memory_plan",
                                          "et_get_shared_buffer_names", "get", "set"});
  for (const char* m : {"get", "set"}) {
    CAPTURE(std::string(m));
    const fb::ExecutionPlan* plan = plan_named(p->root(), m);
    REQUIRE(plan != nullptr);
    const auto* sizes = plan->non_const_buffer_sizes();
    REQUIRE(sizes->size() == 3);
    CHECK(sizes->Get(0) == 0);
    CHECK(sizes->Get(2) == 48);
    for (const auto* v : *plan->values()) {
      const fb::Tensor* t = v->val_as_Tensor();
      if (t == nullptr || t->extra_tensor_info() == nullptr) continue;
      const std::string fqn = t->extra_tensor_info()->fully_qualified_name()->str();
      REQUIRE(t->allocation_info() != nullptr);
      CHECK(t->allocation_info()->memory_id() == 2);
      CHECK(t->allocation_info()->memory_offset_low() == (fqn == "step" ? 0u : 16u));
      // Initial values: data_buffer_idx > 0 with allocation_info (mutable data), every method.
      CHECK(t->data_buffer_idx() == (fqn == "step" ? 1u : 0u));
    }
  }
  REQUIRE(p->root()->mutable_data_segments() != nullptr);
  CHECK(p->root()->mutable_data_segments()->Get(0)->segment_index() == 1);

  // libcore's shared-memory manager reads the tables as written.
  Result<SharedMemoryManager> shared = SharedMemoryManager::create(*p->program);
  REQUIRE_MESSAGE(shared.ok(), shared.error().message());
  REQUIRE(shared->buffers().size() == 2);
  CHECK(shared->buffers()[0].name == "step");
  CHECK(shared->buffers()[1].name == "cache");
  CHECK(shared->buffers()[1].offset == 16);
  CHECK(shared->buffers()[1].actual_bytes == 24);

  // Run: set writes the cache, get reads it back; step keeps its initial value 7.
  RunnerOptions options;
  options.shared_memory = &*shared;
  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set", options);
  REQUIRE_MESSAGE(set.ok(), set.error().message());
  Result<LoadedMethod> get = LoadedMethod::load(*p->program, "get", options);
  REQUIRE_MESSAGE(get.ok(), get.error().message());
  const int32_t shape[] = {2, 3};
  HostTensor data = HostTensor::from<float>(ScalarType::Float, shape, {1, 2, 3, 4, 5, 6});
  HostTensor zeros(ScalarType::Float, shape);
  REQUIRE(set->method().set_input(0, EValue::from_tensor(&data.tensor())).ok());
  REQUIRE(set->method().execute().ok());
  REQUIRE(get->method().set_input(0, EValue::from_tensor(&zeros.tensor())).ok());
  REQUIRE(get->method().execute().ok());
  const Tensor& out = get->method().output(0).to_tensor();
  REQUIRE(out.nbytes() == 24);
  CHECK(std::memcmp(out.data(), data.data(), 24) == 0);
  const Tensor& step = get->method().output(1).to_tensor();
  int64_t step_value = 0;
  std::memcpy(&step_value, step.data(), 8);
  CHECK(step_value == 7);
}

TEST_CASE("exporter: the plan shares activations; the report compares with the unshared sum") {
  ExportedProgram ours = export_text(R"({"format": "etkit-model", "version": 1, "methods": [
    {"name": "chain", "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 4]}],
     "ops": [{"op": "aten::tanh.out", "args": ["x"], "name": "a"},
             {"op": "aten::relu.out", "args": ["a"], "name": "b"},
             {"op": "aten::neg.out", "args": ["b"], "name": "c"},
             {"op": "aten::exp.out", "args": ["c"], "name": "d"}],
     "outputs": ["d"]}]})");
  REQUIRE(ours.methods.size() == 1);
  CHECK(ours.methods[0].planned_tensors == 5);
  CHECK(ours.methods[0].unshared_bytes == 5 * 64);
  CHECK(ours.methods[0].planned_bytes == 2 * 64);
  CHECK(format_report(ours) == "method chain: 5 tensors, planned 128 bytes of 320 unshared (40.0%)\n");
  auto p = load(ours.bytes);
  REQUIRE(p->program.ok());
  Result<LoadedMethod> m = LoadedMethod::load(*p->program, "chain", RunnerOptions{});
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  const int32_t shape[] = {4, 4};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, shape, {0.5f, -1, 2, 0, 1, 1, 1, 1, 1,
                                                                    1, 1, 1, 1, 1, 1, -3});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(m->method().execute().ok());
  const auto* d = static_cast<const float*>(m->method().output(0).to_tensor().data());
  CHECK(d[0] == doctest::Approx(std::exp(-std::tanh(0.5f))));
  CHECK(d[1] == doctest::Approx(1.0f));  // relu clamps tanh(-1)
}

TEST_CASE("exporter: debug handles and the debug map") {
  ExportedProgram ours = export_text(kStateful);
  debugmap::DebugMap map = make_debug_map(ours, "s.pte");
  CHECK(map.program == "s.pte");
  Result<const debugmap::InstructionEntry*> e = map.instruction("get", 0, 1);
  REQUIRE(e.ok());
  CHECK((*e)->op == "aten::clone.out");
  CHECK((*e)->debug_handles == std::vector<uint32_t>{3});
  Result<const debugmap::NodeInfo*> n = map.node("set", 1);
  REQUIRE(n.ok());
  CHECK((*n)->name == "aten::copy.out -> cache");
  CHECK(debugmap::write_debug_map(map).ok());
}

TEST_CASE("exporter: delegate-marked ops are refused until a lowering exists") {
  Result<Model> model = parse_model(R"({"format": "etkit-model", "version": 1,
    "delegates": {"fused": {"backend": "EtkitFusedBackend"}},
    "methods": [{"name": "f", "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
      "ops": [{"op": "aten::relu.out", "args": ["x"], "name": "y", "delegate": "fused"}],
      "outputs": ["y"]}]})", "", "t.json");
  REQUIRE(model.ok());
  Result<ExportedProgram> p = export_program(*model);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code() == ErrorCode::NotImplemented);
  CHECK(std::string(p.error().message()) ==
        "methods.f.ops[0].delegate: delegate lowering is not available yet (group 'fused', "
        "backend 'EtkitFusedBackend'); remove the mark to export the op as a kernel call");
}

}  // namespace
}  // namespace etkit::exporter

namespace etkit::exporter {
namespace {

// A lowering that records the region it was given and returns a fixed blob.
class FakeLowering : public DelegateLowering {
 public:
  mutable Region seen;
  bool fail = false;
  Result<Lowered> lower(const Region& region) const override {
    if (fail) return Error(ErrorCode::NotSupported, "backend cannot lower %zu ops", region.ops.size());
    seen = region;
    Lowered l;
    l.processed = {'B', 'L', 'O', 'B'};
    l.compile_specs.push_back({"mode", {1, 2}});
    l.identifiers[int64_t{0}] = {1};
    l.identifiers[int64_t{1}] = {2};
    return l;
  }
};

const char* kDelegated = R"({"format": "etkit-model", "version": 1,
  "delegates": {"g": {"backend": "EtkitFusedBackend"}},
  "methods": [{"name": "f", "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
    "ops": [{"op": "aten::relu.out", "args": ["x"], "name": "r", "delegate": "g"},
            {"op": "aten::tanh.out", "args": ["r"], "name": "t", "delegate": "g"},
            {"op": "aten::neg.out", "args": ["t"], "name": "n"}],
    "outputs": ["n"]}]})";

TEST_CASE("exporter: a lowering turns a delegate region into one DelegateCall") {
  Result<Model> model = parse_model(kDelegated, "", "t.json");
  REQUIRE(model.ok());
  FakeLowering lowering;
  ExportOptions options;
  options.lowering = &lowering;
  Result<ExportedProgram> ours = export_program(*model, options);
  REQUIRE_MESSAGE(ours.ok(), ours.error().message());
  const Method& f = model->methods[0];
  CHECK(lowering.seen.ops == std::vector<size_t>{0, 1});
  REQUIRE(lowering.seen.inputs.size() == 1);
  CHECK(f.values[static_cast<size_t>(lowering.seen.inputs[0])].name == "x");
  REQUIRE(lowering.seen.outputs.size() == 1);
  CHECK(f.values[static_cast<size_t>(lowering.seen.outputs[0])].name == "t");

  auto p = load(ours->bytes);
  REQUIRE_MESSAGE(p->program.ok(), p->program.error().message());
  const fb::ExecutionPlan* plan = plan_named(p->root(), "f");
  REQUIRE(plan != nullptr);
  const auto* instructions = plan->chains()->Get(0)->instructions();
  REQUIRE(instructions->size() == 2);
  const fb::DelegateCall* call = instructions->Get(0)->instr_args_as_DelegateCall();
  REQUIRE(call != nullptr);
  CHECK(call->delegate_index() == 0);
  CHECK(std::vector<int32_t>(call->args()->begin(), call->args()->end()) ==
        std::vector<int32_t>{lowering.seen.inputs[0], lowering.seen.outputs[0]});
  CHECK(instructions->Get(1)->instr_args_as_KernelCall() != nullptr);
  const fb::BackendDelegate* d = plan->delegates()->Get(0);
  CHECK(d->id()->str() == "EtkitFusedBackend");
  CHECK(d->processed()->location() == fb::DataLocation::SEGMENT);
  CHECK(d->compile_specs()->Get(0)->key()->str() == "mode");
  Result<std::span<const uint8_t>> blob = p->program->segment_data(d->processed()->index());
  REQUIRE(blob.ok());
  CHECK(std::string(blob->begin(), blob->end()) == "BLOB");
  // The call reads x while it writes t: they must not share memory.
  const fb::Tensor* x = tensor_at(plan, static_cast<size_t>(lowering.seen.inputs[0]));
  const fb::Tensor* t = tensor_at(plan, static_cast<size_t>(lowering.seen.outputs[0]));
  CHECK(x->allocation_info()->memory_offset_low() != t->allocation_info()->memory_offset_low());

  debugmap::DebugMap map = make_debug_map(*ours, "d.pte");
  Result<const debugmap::InstructionEntry*> e = map.instruction("f", 0, 0);
  REQUIRE(e.ok());
  CHECK((*e)->kind == debugmap::InstructionKind::Delegate);
  CHECK((*e)->debug_handles == std::vector<uint32_t>{1, 2});
  Result<std::span<const uint32_t>> handles = map.delegate_handles("f", 0, 0, int64_t{1});
  REQUIRE(handles.ok());
  CHECK(std::vector<uint32_t>(handles->begin(), handles->end()) == std::vector<uint32_t>{2});
  CHECK(debugmap::write_debug_map(map).ok());
}

TEST_CASE("exporter: a lowering's error names the region's first op") {
  Result<Model> model = parse_model(kDelegated, "", "t.json");
  REQUIRE(model.ok());
  FakeLowering lowering;
  lowering.fail = true;
  ExportOptions options;
  options.lowering = &lowering;
  Result<ExportedProgram> ours = export_program(*model, options);
  REQUIRE_FALSE(ours.ok());
  CHECK(std::string(ours.error().message()) == "methods.f.ops[0]: backend cannot lower 2 ops");
}

}  // namespace
}  // namespace etkit::exporter
