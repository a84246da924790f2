// Decoding and verifying XNNPACK delegate blobs: the real fixtures' graphs as their upstream
// JSON shows them, the header and headerless (inline constant) forms, named constants, and
// corrupt blobs: truncation at every 1/16, byte flips everywhere, out-of-range value ids,
// constant offsets and dims. Every corrupt blob is a clean error or a graph that runs (ASan in
// CI checks the "clean").

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "test_support.h"
#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;

class ProgramData final : public NamedDataMap {
 public:
  explicit ProgramData(const Program& p) : p_(p) {}
  Result<NamedTensorData> find(std::string_view key) const override { return p_.named_data(key); }

 private:
  const Program& p_;
};

const char* const kFixtures[] = {"np-xnnpack-add.pte", "djl-xnnpack-add-unplanned.pte",
                                 "djl-xnnpack-conv.pte", "np-xnnpack-dynamic-bound.pte",
                                 "np-xnnpack-quantized.pte"};

struct FixtureBlob {
  ProgramFile file;
  std::vector<uint8_t> blob;
  static FixtureBlob open(const std::string& name) {
    Result<ProgramFile> f = ProgramFile::open(etkit::testing::fixture("pte/" + name));
    REQUIRE_MESSAGE(f.ok(), f.error().message());
    Result<std::span<const uint8_t>> b = f->program().segment_data(1);
    REQUIRE(b.ok());
    std::vector<uint8_t> bytes(b->begin(), b->end());
    return FixtureBlob{std::move(f.get()), std::move(bytes)};
  }
};

TEST_CASE("xnnpack graph: the fixtures decode as their upstream JSON shows them") {
  std::vector<uint8_t> memory;
  {
    FixtureBlob f = FixtureBlob::open("np-xnnpack-add.pte");
    Result<const Graph*> g = decode(f.blob, memory);
    REQUIRE_MESSAGE(g.ok(), g.error().message());
    CHECK((*g)->has_header);
    REQUIRE((*g)->num_nodes == 1);
    CHECK((*g)->nodes[0].kind == NodeKind::Add);
    CHECK((*g)->nodes[0].debug_handle == 1);
    CHECK((*g)->num_values == 3);
    CHECK((*g)->num_inputs == 2);
    CHECK((*g)->num_outputs == 1);
    CHECK((*g)->arguments[0] == 0);
    CHECK((*g)->arguments[2] == 2);
    CHECK((*g)->value(2).dims[0] == 3);
  }
  {
    FixtureBlob f = FixtureBlob::open("djl-xnnpack-conv.pte");
    // The weights are named data: without the program's map the blob cannot be decoded.
    Result<const Graph*> alone = decode(f.blob, memory);
    REQUIRE_FALSE(alone.ok());
    CHECK(std::string(alone.error().message()).find("named data") != std::string::npos);
    ProgramData named(f.file.program());
    Result<const Graph*> g = decode(f.blob, memory, &named);
    REQUIRE_MESSAGE(g.ok(), g.error().message());
    const Node& conv = (*g)->nodes[1];
    CHECK(conv.kind == NodeKind::Conv2d);
    CHECK(conv.kernel_h == 3);
    CHECK(conv.pad_top == 1);
    CHECK(conv.group_output_channels == 8);
    CHECK((*g)->nodes[0].debug_handle == 65535);
    CHECK((*g)->value(conv.inputs[1]).constant.size() == 8 * 3 * 3 * 3 * 4);
  }
  {
    FixtureBlob f = FixtureBlob::open("np-xnnpack-quantized.pte");
    ProgramData named(f.file.program());
    Result<const Graph*> g = decode(f.blob, memory, &named);
    REQUIRE_MESSAGE(g.ok(), g.error().message());
    const Value& x = (*g)->value(1);
    CHECK(x.dtype == Datatype::QInt8);
    CHECK(x.quant == QuantScheme::PerTensor);
    CHECK(x.zero_point == -27);
    CHECK(x.scale == doctest::Approx(0.007988).epsilon(1e-3));
  }
}

TEST_CASE("xnnpack graph: headerless blobs keep constants inline") {
  for (bool header : {true, false}) {
    CAPTURE(header);
    TestGraph g;
    const uint32_t x = g.input({2});
    const uint32_t c = g.constant({2}, {3, 4});
    const uint32_t o = g.output({2});
    g.binary(U::XNNMultiply, x, c, o);
    std::vector<uint8_t> blob = g.finish(header);
    std::vector<uint8_t> memory;
    Result<const Graph*> d = decode(blob, memory);
    REQUIRE_MESSAGE(d.ok(), d.error().message());
    CHECK((*d)->has_header == header);
    Runner r(blob);
    REQUIRE(r.run({{{2}, {1, 2}}}, {{2}}).ok());
    CHECK(r.output(0) == std::vector<float>{3, 8});
  }
}

// Decodes, and when that succeeds, builds and runs the delegate at the blob's sizes: neither
// may crash, whatever the bytes.
// `memory` is one MiB reused from call to call and zeroed each time, as a fresh one was:
// allocating and freeing a MiB per flip had been most of this test's time under ASan.
void decode_and_maybe_run(const std::vector<uint8_t>& blob, const NamedDataMap* named,
                          std::vector<uint8_t>& memory) {
  std::fill(memory.begin(), memory.end(), uint8_t{0});
  MemoryAllocator allocator(memory);
  Result<const Graph*> g = decode_xnnpack_graph(blob, named, allocator);
  if (!g.ok()) {
    CHECK(std::string(g.error().message()).size() > 0);
    return;
  }
  BackendInitContext ctx{&allocator, "forward", nullptr, named};
  Result<DelegateHandle*> h = xnnpack_backend().init(ctx, blob, {});
  if (!h.ok()) return;
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<EValue> values;
  std::vector<EValue*> ptrs;
  const Graph& graph = **g;
  for (uint32_t i = 0; i < graph.num_inputs + graph.num_outputs; ++i) {
    const Value& v = graph.value(graph.arguments[i]);
    if (v.numel > (1 << 20)) return;  // flipped into something big: not worth the memory
    tensors.push_back(std::make_unique<OwnedTensor>(std::vector<int32_t>(v.dims, v.dims + v.rank)));
  }
  for (auto& t : tensors) values.push_back(EValue::from_tensor(&t->tensor));
  for (auto& v : values) ptrs.push_back(&v);
  BackendExecutionContext ectx{nullptr, nullptr, "forward"};
  (void)xnnpack_backend().execute(ectx, *h, ptrs);
}

TEST_CASE("xnnpack graph: truncation at every 1/16 of every fixture is a clean error") {
  for (const char* name : kFixtures) {
    CAPTURE(name);
    FixtureBlob f = FixtureBlob::open(name);
    ProgramData named(f.file.program());
    for (size_t k = 0; k < 16; ++k) {
      CAPTURE(k);
      std::vector<uint8_t> cut(f.blob.begin(), f.blob.begin() + static_cast<long>(f.blob.size() * k / 16));
      std::vector<uint8_t> memory;
      Result<const Graph*> g = decode(cut, memory, &named);
      REQUIRE_FALSE(g.ok());
      const std::string msg = g.error().message();
      CHECK((msg.find("truncated") != std::string::npos || msg.find("too short") != std::string::npos ||
             msg.find("shorter") != std::string::npos));
    }
  }
}

TEST_CASE("xnnpack graph: byte flips anywhere are clean errors or graphs that run") {
  for (const char* name : kFixtures) {
    CAPTURE(name);
    FixtureBlob f = FixtureBlob::open(name);
    ProgramData named(f.file.program());
    std::vector<uint8_t> memory(1 << 20);
    std::vector<uint8_t> bad = f.blob;
    for (size_t i = 0; i < f.blob.size(); ++i) {
      for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
        bad[i] = f.blob[i] ^ mask;  // one byte flipped, the others as in the fixture
        decode_and_maybe_run(bad, &named, memory);
      }
      bad[i] = f.blob[i];
    }
  }
}

TEST_CASE("xnnpack graph: out-of-range value ids, constant offsets and dims are named") {
  std::vector<uint8_t> memory;
  {
    TestGraph g;
    const uint32_t x = g.input({2});
    const uint32_t o = g.output({2});
    g.binary(U::XNNAdd, x, 99, o);
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()) ==
          "node 0 (Add): input 2 names value id 99, out of range (the graph has 2 values)");
  }
  {
    TestGraph g;
    const uint32_t x = g.input({2});
    const uint32_t o = g.output({2});
    g.binary(U::XNNAdd, x, x, 7);
    (void)o;
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()).find("output names value id 7, out of range") !=
          std::string::npos);
  }
  {
    // The constant area is cut short in the header: the constant's offset is past it.
    TestGraph g;
    const uint32_t x = g.input({16});
    const uint32_t c = g.constant({16}, std::vector<float>(16, 1.0f));
    const uint32_t o = g.output({16});
    g.binary(U::XNNAdd, x, c, o);
    std::vector<uint8_t> blob = g.finish();
    for (int i = 0; i < 8; ++i) blob[22 + static_cast<size_t>(i)] = i == 0 ? 8 : 0;  // 8 bytes
    Result<const Graph*> d = decode(blob, memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()).find("value 1: constant 1 at offset 0, 64 bytes, is outside the 8-byte constant area") !=
          std::string::npos);
  }
  {
    TestGraph g;
    const uint32_t x = g.input({1, 1, 1, 1, 1, 1, 2});
    const uint32_t o = g.output({2});
    g.unary(U::XNNAbs, x, o);
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()).find("value 0: 7 dims") != std::string::npos);
  }
  {
    TestGraph g;
    const uint32_t x = g.input({65536, 65536});
    const uint32_t o = g.output({65536, 65536});
    g.unary(U::XNNAbs, x, o);
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()).find("more than") != std::string::npos);
  }
  {
    // An output whose dims its inputs do not give.
    TestGraph g;
    const uint32_t x = g.input({2, 3});
    const uint32_t o = g.output({3, 2});
    g.unary(U::XNNAbs, x, o);
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()) ==
          "node 0 (Abs): output value 1 has dims [3, 2], its inputs give [2, 3]");
  }
  {
    // A node reading a value that nothing wrote yet.
    TestGraph g;
    const uint32_t x = g.input({2});
    const uint32_t mid = g.internal({2});
    const uint32_t o = g.output({2});
    g.binary(U::XNNAdd, x, mid, o);
    Result<const Graph*> d = decode(g.finish(), memory);
    REQUIRE_FALSE(d.ok());
    CHECK(std::string(d.error().message()).find("input 2 (value 1) is not a constant, an input") !=
          std::string::npos);
  }
}

TEST_CASE("xnnpack graph: quantization parameters named but absent are a clean error") {
  // A fuzzer's find: FlatBuffers verifies a union with a type and no table as valid.
  std::vector<uint8_t> memory;
  TestGraph g;
  const uint32_t x = g.input({2});
  const uint32_t q = g.qvalue_without_params(fbx::XNNDatatype::xnn_datatype_qint8, {2});
  const uint32_t o = g.output({2});
  g.unary(U::XNNConvert, x, q);
  g.unary(U::XNNConvert, q, o);
  Result<const Graph*> d = decode(g.finish(), memory);
  REQUIRE_FALSE(d.ok());
  CHECK(std::string(d.error().message()) == "value 1: a quantized qint8 value without parameters");
}

}  // namespace
}  // namespace etkit::xnn::testing
