#include "etkit/runtime/program.h"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "etkit/formats/program_generated.h"
#include "etkit/host/file_data_loader.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/method.h"
#include "test_support.h"

namespace etkit {
namespace {

using testing::AlignedBytes;
using testing::fixture;
using testing::test_data;

Result<Program> load_bytes(const AlignedBytes& bytes) {
  static std::vector<std::unique_ptr<BufferDataLoader>> loaders;  // outlive the programs
  loaders.push_back(std::make_unique<BufferDataLoader>(bytes.span()));
  return Program::load(*loaders.back());
}

std::string message(const Error& e) { return e.message(); }

TEST_CASE("program: every readable .pte fixture loads and verifies") {
  const char* files[] = {
      "berry-identity-no-instructions.pte", "djl-med-output-512mib-plan.pte",
      "djl-openvino-tiny.pte", "djl-xnnpack-add-unplanned.pte", "djl-xnnpack-conv.pte",
      "dnf-training-mutable-data.pte", "et-add.pte", "et-arduino-add-const.pte",
      "et-arduino-kws-cortexm.pte", "et-linear-deprecated-constant-buffer.pte",
      "et-linear-external.pte", "et-stories260k-qnn-multimethod.pte", "np-const-methods.pte",
      "np-lstm-custom-op.pte", "np-xnnpack-add.pte", "np-xnnpack-dynamic-bound.pte",
      "np-xnnpack-quantized.pte", "rs-datamap-external.pte"};
  for (const char* f : files) {
    CAPTURE(std::string(f));
    Result<FileDataLoader> loader = FileDataLoader::open(fixture(std::string("pte/") + f));
    REQUIRE(loader.ok());
    Result<Program> program = Program::load(*loader);
    REQUIRE_MESSAGE(program.ok(), std::string(program.error().message()));
    // Methods are verified when first asked for: each one must verify too.
    for (size_t m = 0; m < program->num_methods(); ++m) {
      Result<MethodMeta> meta = program->method_meta(program->method_name(m));
      CHECK_MESSAGE(meta.ok(), std::string(meta.error().message()));
    }
  }
}

TEST_CASE("program: a method with a bad index is refused when asked for, the others still run") {
  Result<FileDataLoader> f = FileDataLoader::open(test_data("one_bad_method.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE_MESSAGE(p.ok(), std::string(p.error().message()));
  REQUIRE(p->num_methods() == 2);
  CHECK(p->method_name(0) == "broken");
  CHECK(p->method_name(1) == "forward");
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure is not remembered as a success
    Result<MethodMeta> bad = p->method_meta("broken");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code() == ErrorCode::InvalidProgram);
    CHECK(message(bad.error()) ==
          "method 'broken': chain 0 instruction 0: argument refers to value 7 of 3");
  }
  Result<LoadedMethod> refused = LoadedMethod::load(*p, "broken", RunnerOptions());
  REQUIRE_FALSE(refused.ok());
  CHECK(message(refused.error()).find("method 'broken': chain 0 instruction 0") !=
        std::string::npos);

  Result<MethodMeta> good = p->method_meta("forward");
  REQUIRE_MESSAGE(good.ok(), std::string(good.error().message()));
  CHECK(good->num_instructions() == 1);
  CHECK(good->instruction_name(0) == "aten::mm.out");
  Result<LoadedMethod> m = LoadedMethod::load(*p, "forward", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
  const int32_t a_sizes[] = {2, 3};
  const int32_t b_sizes[] = {3, 2};
  HostTensor a = HostTensor::from<float>(ScalarType::Float, a_sizes, {1, 2, 3, 4, 5, 6});
  HostTensor b = HostTensor::from<float>(ScalarType::Float, b_sizes, {1, 0, 0, 1, 1, 1});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&a.tensor())).ok());
  REQUIRE(m->method().set_input(1, EValue::from_tensor(&b.tensor())).ok());
  REQUIRE(m->method().execute().ok());
  // [[1, 2, 3], [4, 5, 6]] @ [[1, 0], [0, 1], [1, 1]] = [[4, 5], [10, 11]]
  const float* out = m->method().output(0).to_tensor().data_as<float>();
  CHECK(std::vector<float>(out, out + 4) == std::vector<float>{4, 5, 10, 11});
}

TEST_CASE("program: a method with damaged FlatBuffer tables fails when asked for, not at load") {
  AlignedBytes bytes = AlignedBytes::read(fixture("pte/np-const-methods.pte"));
  REQUIRE(bytes.size() > 0);
  // Find get_double's value table in the intact file, then give it an impossible length.
  size_t length_at = 0;
  {
    Result<Program> intact = load_bytes(bytes);
    REQUIRE(intact.ok());
    const auto* root =
        static_cast<const executorch_flatbuffer::Program*>(intact->flatbuffer_root());
    const void* other_values = nullptr;
    for (const auto* plan : *root->execution_plan()) {
      if (plan->name()->string_view() == "get_double") {
        length_at =
            static_cast<size_t>(reinterpret_cast<const uint8_t*>(plan->values()) - bytes.data());
      } else if (plan->name()->string_view() == "get_scalar") {
        other_values = plan->values();
      }
    }
    REQUIRE(length_at > 0);
    REQUIRE(other_values != static_cast<const void*>(bytes.data() + length_at));
  }
  AlignedBytes damaged = bytes;
  const uint32_t huge = 0x7fffffff;
  std::memcpy(damaged.data() + length_at, &huge, sizeof(huge));

  Result<Program> p = load_bytes(damaged);
  REQUIRE_MESSAGE(p.ok(), std::string(p.error().message()));
  CHECK(p->num_methods() == 5);
  Result<MethodMeta> bad = p->method_meta("get_double");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == ErrorCode::InvalidProgram);
  CHECK(message(bad.error()) ==
        "method 'get_double': corrupt program: the method's FlatBuffer tables do not verify");
  Result<MethodMeta> good = p->method_meta("get_scalar");
  REQUIRE_MESSAGE(good.ok(), std::string(good.error().message()));
  REQUIRE(good->num_outputs() == 1);
  CHECK(good->output(0)->int_value == 128);
  Result<LoadedMethod> m = LoadedMethod::load(*p, "get_scalar", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
  REQUIRE(m->method().execute().ok());
  CHECK(m->method().output(0).to_int() == 128);
}

TEST_CASE("program: extended header variants") {
  Result<FileDataLoader> add = FileDataLoader::open(fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  Result<Program> p = Program::load(*add);
  REQUIRE(p.ok());
  CHECK_FALSE(p->has_extended_header());

  Result<FileDataLoader> conv = FileDataLoader::open(fixture("pte/djl-xnnpack-conv.pte"));
  REQUIRE(conv.ok());
  Result<Program> c = Program::load(*conv);
  REQUIRE(c.ok());
  CHECK(c->has_extended_header());
  CHECK(c->header_length() == 32);
  // segments [(0,0), (0,1136) blob, (1152,864), (2048,32)] after segment base 1280.
  REQUIRE(c->segment_data(1).ok());
  CHECK(c->segment_data(1)->size() == 1136);
  CHECK(c->segment_data(1)->data() == conv->data().data() + 1280);
  // The XNNPACK blob header: 4 zero bytes then "XH00".
  CHECK(std::memcmp(c->segment_data(1)->data() + 4, "XH00", 4) == 0);
  CHECK(c->segment_data(3)->size() == 32);
  CHECK_FALSE(c->segment_data(4).ok());

  // The embedded program of the bundle has the old 24-byte header.
  AlignedBytes bundle = AlignedBytes::read(fixture("bpte/et-bundled-add-mul.bpte"));
  REQUIRE(bundle.size() == 4608);
  AlignedBytes embedded(bundle.span().subspan(64, 1696));
  Result<Program> old = load_bytes(embedded);
  REQUIRE_MESSAGE(old.ok(), std::string(old.error().message()));
  CHECK(old->header_length() == 24);
  // Constant segment: INT[2,2] of 3s then INT[2,2] of 2s.
  Result<std::span<const uint8_t>> threes = old->constant_data(1, 16);
  REQUIRE(threes.ok());
  int32_t v[4];
  std::memcpy(v, threes->data(), 16);
  CHECK(v[0] == 3);
  CHECK(v[3] == 3);
}

TEST_CASE("program: method names and metadata") {
  Result<FileDataLoader> f = FileDataLoader::open(fixture("pte/np-const-methods.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE(p.ok());
  REQUIRE(p->num_methods() == 5);
  CHECK(p->method_name(0) == "forward");
  Result<MethodMeta> m = p->method_meta("get_double");
  REQUIRE(m.ok());
  CHECK(m->num_inputs() == 0);
  REQUIRE(m->num_outputs() == 1);
  CHECK(m->output(0)->tag == Tag::Double);
  CHECK(m->output(0)->double_value == 2.5);
  CHECK(m->num_planned_buffers() == 0);
  Result<MethodMeta> t = p->method_meta("get_tensor");
  REQUIRE(t.ok());
  CHECK(t->output(0)->constant);
  CHECK(t->output(0)->dtype == ScalarType::Long);
  Result<MethodMeta> missing = p->method_meta("backward");
  CHECK(missing.error().code() == ErrorCode::NotFound);
  CHECK(message(missing.error()) ==
        "no method 'backward' (the program has: forward, get_scalar, get_double, get_bool, get_tensor)");
  CHECK_FALSE(m->output(1).ok());
}

TEST_CASE("program: planned sizes use 64-bit offsets") {
  Result<FileDataLoader> f = FileDataLoader::open(fixture("pte/djl-med-output-512mib-plan.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE(p.ok());
  Result<MethodMeta> m = p->method_meta("forward");
  REQUIRE(m.ok());
  CHECK(m->num_planned_buffers() == 1);
  CHECK(m->planned_buffer_size(0) == 536870928u);
  CHECK(m->planned_bytes() == 536870928u);
  CHECK(m->input(0)->planned);
}

TEST_CASE("program: temp memory for float32 copies of 16-bit tensors") {
  // half_linear.pte: mm(x [1,4], W [4,3]) -> h [1,3], add(h, b [3]) -> h2, softmax(h2) -> out,
  // all float16. The mm call holds 8 + 24 + 6 bytes of float16 (its out is also the return slot:
  // counted once): 2 * 38 bytes of float32 plus 64 of alignment per tensor = 268; add needs
  // 2 * 18 + 192 = 228, softmax 2 * 12 + 128 = 152.
  Result<FileDataLoader> f = FileDataLoader::open(testing::test_data("half_linear.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE(p.ok());
  Result<MethodMeta> m = p->method_meta("forward");
  REQUIRE(m.ok());
  CHECK(m->float16_copy_bytes() == 268u);
  // A float32 program needs none.
  Result<FileDataLoader> add = FileDataLoader::open(fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  Result<Program> pa = Program::load(*add);
  REQUIRE(pa.ok());
  CHECK(pa->method_meta("forward")->float16_copy_bytes() == 0u);
}

TEST_CASE("program: dim order and dynamism reach the metadata") {
  Result<FileDataLoader> kws = FileDataLoader::open(fixture("pte/et-arduino-kws-cortexm.pte"));
  REQUIRE(kws.ok());
  Result<Program> p = Program::load(*kws);
  REQUIRE(p.ok());
  ValueInfo in = *p->method_meta("forward")->input(0);
  CHECK(std::vector<uint8_t>(in.dim_order.begin(), in.dim_order.end()) ==
        std::vector<uint8_t>{0, 2, 1, 3});
  Result<FileDataLoader> dyn = FileDataLoader::open(fixture("pte/np-xnnpack-dynamic-bound.pte"));
  REQUIRE(dyn.ok());
  Result<Program> d = Program::load(*dyn);
  REQUIRE(d.ok());
  CHECK(d->method_meta("forward")->input(0)->dynamism == ShapeDynamism::DynamicBound);
}

TEST_CASE("program: identifiers tell programs, other versions and other files apart") {
  AlignedBytes add = AlignedBytes::read(fixture("pte/et-add.pte"));
  REQUIRE(add.size() == 728);

  AlignedBytes other_version = add;
  other_version.data()[6] = '1';
  other_version.data()[7] = '3';
  Result<Program> v = load_bytes(other_version);
  CHECK(v.error().code() == ErrorCode::InvalidProgram);
  CHECK(message(v.error()) ==
        "incompatible program version: identifier 'ET13', this build reads 'ET12'");

  Result<FileDataLoader> corrupt = FileDataLoader::open(fixture("pte/djl-corrupt-not-a-pte.pte"));
  REQUIRE(corrupt.ok());
  CHECK(message(Program::load(*corrupt).error()) ==
        "not an ExecuTorch program: bytes 4..7 are 'A_PT', expected 'ET12'");

  AlignedBytes tiny(add.span().first(6));
  CHECK(message(load_bytes(tiny).error()) == "not an ExecuTorch program: file is only 6 bytes");

  AlignedBytes binary = add;
  binary.data()[4] = 0;
  binary.data()[5] = 0xff;
  CHECK(message(load_bytes(binary).error()) ==
        "not an ExecuTorch program: bytes 4..7 are '\\x00\\xff12', expected 'ET12'");
  CHECK(Program::is_program(add.span()));
  CHECK_FALSE(Program::is_program(binary.span()));
}

TEST_CASE("program: extended header errors") {
  AlignedBytes conv = AlignedBytes::read(fixture("pte/djl-xnnpack-conv.pte"));
  REQUIRE(conv.size() == 3360);
  auto put_u32 = [](AlignedBytes& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); };
  auto put_u64 = [](AlignedBytes& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); };

  AlignedBytes short_header = conv;
  put_u32(short_header, 12, 16);
  CHECK(message(load_bytes(short_header).error()) ==
        "extended header length 16 is below the minimum of 24");

  AlignedBytes big_program = conv;
  put_u64(big_program, 16, 100000);
  CHECK(message(load_bytes(big_program).error()) ==
        "truncated or corrupt: header says the program is 100000 bytes, file has 3360");

  AlignedBytes truncated(conv.span().first(3000));
  CHECK(message(load_bytes(truncated).error()) ==
        "truncated: segments end at byte 3360, file has 3000");

  AlignedBytes base_inside = conv;
  put_u64(base_inside, 24, 64);
  CHECK(message(load_bytes(base_inside).error()) ==
        "segment base offset 64 lies inside the program (1232 bytes)");
}

TEST_CASE("program: a buffer that is not 16-byte aligned is refused") {
  AlignedBytes add = AlignedBytes::read(fixture("pte/et-add.pte"));
  REQUIRE(add.size() == 728);
  AlignedBytes shifted = AlignedBytes(std::vector<uint8_t>(add.size() + 1));
  std::memcpy(shifted.data() + 1, add.data(), 728);
  BufferDataLoader loader({shifted.data() + 1, 728});  // 16-aligned + 1
  Result<Program> p = Program::load(loader);
  CHECK(p.error().code() == ErrorCode::InvalidArgument);
}

TEST_CASE("program: constant layouts") {
  // Deprecated constant_buffer: v0, v1 FLOAT[2,2] with data_buffer_idx 1, 2.
  Result<FileDataLoader> f = FileDataLoader::open(fixture("pte/et-linear-deprecated-constant-buffer.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE(p.ok());
  CHECK(p->constant_data(1, 16).ok());
  CHECK(p->constant_data(2, 16).ok());
  Result<std::span<const uint8_t>> too_big = p->constant_data(1, 17);
  CHECK(message(too_big.error()) == "constant 1 holds 16 bytes, the tensor needs 17");
  CHECK_FALSE(p->constant_data(3, 4).ok());

  // Constant segment: offsets [0, 0, 16] over 40 bytes: LONG 1, then LONG[3] {1, 2, 3}.
  Result<FileDataLoader> g = FileDataLoader::open(fixture("pte/np-const-methods.pte"));
  REQUIRE(g.ok());
  Result<Program> q = Program::load(*g);
  REQUIRE(q.ok());
  Result<std::span<const uint8_t>> list = q->constant_data(2, 24);
  REQUIRE(list.ok());
  int64_t v[3];
  std::memcpy(v, list->data(), 24);
  CHECK(v[0] == 1);
  CHECK(v[1] == 2);
  CHECK(v[2] == 3);
  CHECK(message(q->constant_data(2, 32).error()) ==
        "constant 2 [16, +32) lies outside its 40-byte segment");
}

TEST_CASE("program: mutable data segment of the training fixture") {
  Result<FileDataLoader> f = FileDataLoader::open(fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(f.ok());
  Result<Program> p = Program::load(*f);
  REQUIRE(p.ok());
  // mutable_data_segments = [{segment 1, offsets [0, 0, 200]}]: a FLOAT[1,50] then a FLOAT[1].
  CHECK(p->mutable_data(1, 200).ok());
  CHECK(p->mutable_data(2, 4).ok());
  CHECK_FALSE(p->mutable_data(2, 5).ok());
  CHECK_FALSE(p->mutable_data(3, 4).ok());
}

}  // namespace
}  // namespace etkit
