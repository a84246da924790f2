#include "etkit/host/external_data.h"
#include "etkit/host/file_data_loader.h"

#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "host_test_util.h"

namespace etkit {
namespace {

using test::AlignedBytes;
using test::contains;
using test::floats;

constexpr const char* kCurrent = "real/ptd/rs-datamap-external.ptd";
constexpr const char* kOld = "real/ptd/et-linear-external-oldschema.ptd";

// ExternalData keeps pointers into the bytes (not into the loader): tests keep `bytes` alive.
Result<ExternalData> load_bytes(const AlignedBytes& bytes) {
  BufferDataLoader loader(bytes.span());
  return ExternalData::load(loader);
}

Error load_error(const std::vector<uint8_t>& bytes) {
  AlignedBytes aligned(bytes);
  BufferDataLoader loader(aligned.span());
  Result<ExternalData> r = ExternalData::load(loader);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

// --- Building .ptd files for the error cases, field by field (ids as in formats.md 1.17). ---

using TableOffset = flatbuffers::Offset<flatbuffers::Table>;
flatbuffers::voffset_t slot(int id) { return static_cast<flatbuffers::voffset_t>(4 + 2 * id); }

struct Segment {
  uint64_t offset;
  uint64_t size;
};
struct Layout {
  int8_t dtype = 6;  // FLOAT
  std::vector<int32_t> sizes;
  std::optional<std::vector<uint8_t>> dim_order;
};
struct Named {
  std::optional<std::string> key;
  uint32_t segment = 0;
  std::optional<Layout> layout;
};
struct OldTensor {
  std::optional<std::string> name;
  int8_t dtype = 6;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  int32_t segment = 0;
  uint64_t offset = 0;
};

TableOffset add_layout(flatbuffers::FlatBufferBuilder& b, const Layout& l) {
  const auto sizes = b.CreateVector(l.sizes);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> order;
  if (l.dim_order) order = b.CreateVector(*l.dim_order);
  const auto start = b.StartTable();
  b.AddOffset(slot(1), sizes);
  if (l.dim_order) b.AddOffset(slot(2), order);
  b.AddElement<int8_t>(slot(0), l.dtype, 0);
  return TableOffset(b.EndTable(start));
}

flatbuffers::Offset<flatbuffers::Vector<TableOffset>> add_segments(
    flatbuffers::FlatBufferBuilder& b, const std::vector<Segment>& segments) {
  std::vector<TableOffset> out;
  for (const Segment& s : segments) {
    const auto start = b.StartTable();
    b.AddElement<uint64_t>(slot(0), s.offset, 0);
    b.AddElement<uint64_t>(slot(1), s.size, 0);
    out.push_back(TableOffset(b.EndTable(start)));
  }
  return b.CreateVector(out);
}

// Wraps a finished flatbuffer into a .ptd: the FH01 header is inserted at offset 8 (the root
// offset moves by its 40 bytes), then the segment data at a 16-aligned segment_base_offset.
std::vector<uint8_t> wrap_ptd(flatbuffers::FlatBufferBuilder& b,
                              const std::vector<uint8_t>& segment_data) {
  const uint8_t* fb = b.GetBufferPointer();
  const size_t fb_size = b.GetSize();
  std::vector<uint8_t> out(fb, fb + 8);
  out.resize(48, 0);
  std::memcpy(out.data() + 8, "FH01", 4);
  test::put_u32(out, 12, 40);
  test::put_u64(out, 16, 48);
  test::put_u64(out, 24, fb_size - 8);
  out.insert(out.end(), fb + 8, fb + fb_size);
  test::put_u32(out, 0, test::get_u32(out, 0) + 40);
  out.resize((out.size() + 15) / 16 * 16, 0);
  test::put_u64(out, 32, out.size());
  test::put_u64(out, 40, segment_data.size());
  out.insert(out.end(), segment_data.begin(), segment_data.end());
  return out;
}

std::vector<uint8_t> make_current(const std::vector<Segment>& segments,
                                  const std::vector<Named>& named,
                                  const std::vector<uint8_t>& segment_data) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<TableOffset> entries;
  for (const Named& n : named) {
    flatbuffers::Offset<flatbuffers::String> key;
    if (n.key) key = b.CreateString(*n.key);
    TableOffset layout;
    if (n.layout) layout = add_layout(b, *n.layout);
    const auto start = b.StartTable();
    if (n.key) b.AddOffset(slot(0), key);
    if (n.layout) b.AddOffset(slot(2), layout);
    b.AddElement<uint32_t>(slot(1), n.segment, 0);
    entries.push_back(TableOffset(b.EndTable(start)));
  }
  const auto seg_vec = add_segments(b, segments);
  const auto named_vec = b.CreateVector(entries);
  const auto start = b.StartTable();
  b.AddOffset(slot(1), seg_vec);
  b.AddOffset(slot(2), named_vec);
  b.AddElement<uint32_t>(slot(0), 0, 1);  // version 0, written explicitly
  b.Finish(TableOffset(b.EndTable(start)), "FT01");
  return wrap_ptd(b, segment_data);
}

std::vector<uint8_t> make_old(const std::vector<Segment>& segments,
                              const std::vector<OldTensor>& tensors,
                              const std::vector<uint8_t>& segment_data,
                              bool write_segments = true, uint32_t tensor_alignment = 16) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<TableOffset> entries;
  for (const OldTensor& t : tensors) {
    flatbuffers::Offset<flatbuffers::String> name;
    if (t.name) name = b.CreateString(*t.name);
    const auto sizes = b.CreateVector(t.sizes);
    const auto order = b.CreateVector(t.dim_order);
    const auto start = b.StartTable();
    b.AddElement<uint64_t>(slot(5), t.offset, 1);
    if (t.name) b.AddOffset(slot(0), name);
    b.AddOffset(slot(2), sizes);
    b.AddOffset(slot(3), order);
    b.AddElement<int32_t>(slot(4), t.segment, -1);
    b.AddElement<int8_t>(slot(1), t.dtype, -1);
    entries.push_back(TableOffset(b.EndTable(start)));
  }
  const auto tensors_vec = b.CreateVector(entries);
  const auto seg_vec = add_segments(b, segments);
  const auto start = b.StartTable();
  b.AddOffset(slot(2), tensors_vec);
  if (write_segments) b.AddOffset(slot(3), seg_vec);
  b.AddElement<uint32_t>(slot(0), 0, 1);
  b.AddElement<uint32_t>(slot(1), tensor_alignment, 0);
  b.Finish(TableOffset(b.EndTable(start)), "FT01");
  return wrap_ptd(b, segment_data);
}

std::vector<uint8_t> float_bytes(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// --- The real files. ---

TEST_CASE("external_data: current layout fixture (rs-datamap-external.ptd)") {
  AlignedBytes bytes(test::read_fixture(kCurrent));
  Result<ExternalData> data = load_bytes(bytes);
  REQUIRE_MESSAGE(data.ok(), data.error().message());
  CHECK(data->layout_version() == 1);
  REQUIRE(data->size() == 2);

  Result<NamedTensorData> a = data->entry(0);
  REQUIRE(a.ok());
  CHECK(a->key == "a");
  CHECK(a->has_layout);
  CHECK(a->dtype == ScalarType::Float);
  CHECK(std::vector<int32_t>(a->sizes.begin(), a->sizes.end()) == std::vector<int32_t>{2, 2});
  CHECK(std::vector<uint8_t>(a->dim_order.begin(), a->dim_order.end()) ==
        std::vector<uint8_t>{0, 1});
  // Segment 0 at segment_base_offset 304: a = [[3, 3], [3, 3]].
  CHECK(a->bytes.data() == bytes.span().data() + 304);
  CHECK(floats(a->bytes) == std::vector<float>{3, 3, 3, 3});

  Result<NamedTensorData> b = data->find("b");
  REQUIRE(b.ok());
  CHECK(b->dtype == ScalarType::Float);
  CHECK(b->sizes.size() == 2);
  // Segment 1 at 304 + 16: b = [[2, 2], [2, 2]].
  CHECK(b->bytes.data() == bytes.span().data() + 320);
  CHECK(floats(b->bytes) == std::vector<float>{2, 2, 2, 2});

  Result<NamedTensorData> missing = data->find("c");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::NotFound);
  CHECK(contains(missing.error().message(), "'c'"));
  Result<NamedTensorData> out_of_range = data->entry(2);
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.error().code() == ErrorCode::InvalidArgument);
}

TEST_CASE("external_data: older layout fixture (et-linear-external-oldschema.ptd)") {
  AlignedBytes bytes(test::read_fixture(kOld));
  Result<ExternalData> data = load_bytes(bytes);
  REQUIRE_MESSAGE(data.ok(), data.error().message());
  CHECK(data->layout_version() == 0);
  REQUIRE(data->size() == 2);

  Result<NamedTensorData> w = data->find("linear.weight");
  REQUIRE(w.ok());
  CHECK(w->has_layout);
  CHECK(w->dtype == ScalarType::Float);
  CHECK(std::vector<int32_t>(w->sizes.begin(), w->sizes.end()) == std::vector<int32_t>{3, 3});
  CHECK(w->bytes.size() == 36);
  CHECK(w->bytes.data() == bytes.span().data() + 272);  // segment_base_offset 272, offset 0
  const std::vector<float> weight = floats(w->bytes);
  const float expected_weight[] = {0.252575606f,   0.244129121f, -0.490723014f,
                                   -0.31180951f,   -0.00460119219f, 0.387732804f,
                                   0.0152926166f,  0.123140335f, -0.44762826f};
  for (size_t i = 0; i < 9; ++i) CHECK(weight[i] == doctest::Approx(expected_weight[i]).epsilon(1e-7));

  Result<NamedTensorData> bias = data->find("linear.bias");
  REQUIRE(bias.ok());
  CHECK(std::vector<int32_t>(bias->sizes.begin(), bias->sizes.end()) == std::vector<int32_t>{3});
  CHECK(bias->bytes.size() == 12);
  CHECK(bias->bytes.data() == bytes.span().data() + 272 + 48);  // tensor offset 48
  const std::vector<float> b = floats(bias->bytes);
  CHECK(b[0] == doctest::Approx(0.254369527f).epsilon(1e-7));
  CHECK(b[1] == doctest::Approx(-0.10306979f).epsilon(1e-7));
  CHECK(b[2] == doctest::Approx(0.238154247f).epsilon(1e-7));
}

// A missing .ptd file is the loader's error (FileDataLoader::open, AccessFailed); it is not
// exercised here because test code that touches FileDataLoader needs its RTTI under UBSan's vptr
// check, which the -fno-rtti library does not emit. read_npy covers the missing-file path.

// --- Header errors, on the real file. ---

TEST_CASE("external_data: identifier and header errors") {
  const std::vector<uint8_t> good = test::read_fixture(kCurrent);
  SUBCASE("wrong identifier") {
    auto b = good;
    std::memcpy(b.data() + 4, "ET12", 4);
    const Error e = load_error(b);
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK(contains(e.message(), "identifier at bytes 4..7 is 'ET12', expected 'FT01'"));
  }
  SUBCASE("non-printable identifier bytes are escaped") {
    auto b = good;
    b[5] = 0xff;
    CHECK(contains(load_error(b).message(), "'F\\xff01'"));
  }
  SUBCASE("shorter than the identifier") {
    CHECK(contains(load_error({good.begin(), good.begin() + 6}).message(), "too short"));
    CHECK(contains(load_error({}).message(), "file is 0 bytes"));
  }
  SUBCASE("truncated inside the header") {
    CHECK(contains(load_error({good.begin(), good.begin() + 12}).message(),
                   "truncated inside the extended header"));
    CHECK(contains(load_error({good.begin(), good.begin() + 30}).message(),
                   "extended header of 40 bytes at offset 8 extends past the end"));
  }
  SUBCASE("wrong header magic") {
    auto b = good;
    std::memcpy(b.data() + 8, "eh00", 4);
    CHECK(contains(load_error(b).message(), "magic at offset 8 is 'eh00', expected 'FH01'"));
  }
  SUBCASE("header length too small") {
    auto b = good;
    test::put_u32(b, 12, 32);
    CHECK(contains(load_error(b).message(), "length 32 (at offset 12) is less than"));
  }
  SUBCASE("flatbuffer_offset inside the header") {
    auto b = good;
    test::put_u64(b, 16, 40);
    CHECK(contains(load_error(b).message(), "flatbuffer_offset 40 (at offset 16) points inside"));
  }
  SUBCASE("flatbuffer region past the end of the file") {
    auto b = good;
    test::put_u64(b, 24, 1000);
    CHECK(contains(load_error(b).message(),
                   "flatbuffer_offset 48 + flatbuffer_size 1000) extends past the end of the "
                   "file (336 bytes)"));
    test::put_u64(b, 24, UINT64_MAX - 10);  // must not wrap around
    CHECK(contains(load_error(b).message(), "extends past the end"));
  }
  SUBCASE("file truncated before the end of the flatbuffer") {
    CHECK(contains(load_error({good.begin(), good.begin() + 200}).message(),
                   "extends past the end of the file (200 bytes)"));
  }
  SUBCASE("segment_base_offset out of range") {
    auto b = good;
    test::put_u64(b, 32, 400);
    CHECK(contains(load_error(b).message(), "segment_base_offset 400 (at offset 32) is outside"));
    test::put_u64(b, 32, 100);
    CHECK(contains(load_error(b).message(), "segment_base_offset 100 (at offset 32) is outside"));
  }
  SUBCASE("file truncated inside the segment data") {
    const Error e = load_error({good.begin(), good.begin() + 320});
    CHECK_MESSAGE(contains(e.message(), "segments[1] (offset 16, size 16) ends past the end of "
                                        "the file"),
                  e.message());
  }
}

TEST_CASE("external_data: flatbuffer that does not verify") {
  const std::vector<uint8_t> good = test::read_fixture(kCurrent);
  SUBCASE("root offset outside the region") {
    auto b = good;
    test::put_u32(b, 0, 5000);
    CHECK(contains(load_error(b).message(), "root table offset 5000"));
  }
  SUBCASE("vtable outside the region") {
    auto b = good;
    const uint32_t root = test::get_u32(b, 0);
    test::put_u32(b, root, 0x7fff0000u);
    CHECK(contains(load_error(b).message(), "has its vtable at"));
  }
  SUBCASE("a vector length past the end") {
    // Corrupt the length of the named_data vector; no layout can verify it.
    // (root table at 0x44, its named_data field at 0x4c points to the vector at 0x50).
    auto b = good;
    REQUIRE(test::get_u32(b, 0x50) == 2);
    test::put_u32(b, 0x50, 1000000);
    const Error e = load_error(b);
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK_MESSAGE(contains(e.message(), "does not verify as a FlatTensor"), e.message());
  }
}

// --- Layout detection and entry checks, on built files. ---

TEST_CASE("external_data: built current layout loads, with and without tensor layouts") {
  AlignedBytes bytes(make_current({{0, 16}, {16, 8}},
                                  {{"w", 0, Layout{6, {2, 2}, std::vector<uint8_t>{1, 0}}},
                                   {"blob", 1, std::nullopt},
                                   {"scalar", 0, Layout{6, {}, std::nullopt}}},
                                  float_bytes({1, 2, 3, 4, 5, 6})));
  Result<ExternalData> data = load_bytes(bytes);
  REQUIRE_MESSAGE(data.ok(), data.error().message());
  CHECK(data->layout_version() == 1);
  REQUIRE(data->size() == 3);
  Result<NamedTensorData> w = data->find("w");
  REQUIRE(w.ok());
  CHECK(w->dim_order[0] == 1);
  CHECK(floats(w->bytes) == std::vector<float>{1, 2, 3, 4});
  Result<NamedTensorData> blob = data->find("blob");
  REQUIRE(blob.ok());
  CHECK_FALSE(blob->has_layout);
  CHECK(floats(blob->bytes) == std::vector<float>{5, 6});
  Result<NamedTensorData> scalar = data->find("scalar");
  REQUIRE(scalar.ok());
  CHECK(scalar->has_layout);
  CHECK(scalar->sizes.empty());
}

TEST_CASE("external_data: built older layout loads and is told apart by field ids") {
  AlignedBytes bytes(make_old({{0, 32}},
                              {{"t.weight", 6, {2}, {0}, 0, 0}, {"t.bias", 6, {2}, {0}, 0, 16}},
                              float_bytes({1, 2, 0, 0, 3, 4, 0, 0})));
  Result<ExternalData> data = load_bytes(bytes);
  REQUIRE_MESSAGE(data.ok(), data.error().message());
  CHECK(data->layout_version() == 0);
  Result<NamedTensorData> bias = data->find("t.bias");
  REQUIRE(bias.ok());
  CHECK(floats(bias->bytes) == std::vector<float>{3, 4});

  SUBCASE("without field id 3, the older schema is tried when the current one fails") {
    // tensor_alignment (id 1) read as the current schema's `segments` offset points far outside
    // the buffer, so only the older schema verifies.
    AlignedBytes no_segments(make_old({}, {}, {}, /*write_segments=*/false, 0x40000000));
    Result<ExternalData> d = load_bytes(no_segments);
    REQUIRE_MESSAGE(d.ok(), d.error().message());
    CHECK(d->layout_version() == 0);
    CHECK(d->size() == 0);
  }
  SUBCASE("without field id 3, a buffer both schemas accept reads as the current layout") {
    // The documented tie-break: real older writers always emit `segments` (id 3), so a buffer
    // with ids 0..2 only that verifies with the current schema is taken as current.
    AlignedBytes ambiguous(make_old({}, {}, {}, /*write_segments=*/false, 16));
    Result<ExternalData> d = load_bytes(ambiguous);
    REQUIRE_MESSAGE(d.ok(), d.error().message());
    CHECK(d->layout_version() == 1);
    CHECK(d->size() == 0);
  }
  SUBCASE("field id 3 present but not the older layout") {
    auto b = make_old({{0, 16}}, {{"w", 6, {3}, {0}, 0, 0}}, float_bytes({1, 2, 3, 4}));
    // Break the tensors vector length: the older schema no longer verifies.
    const uint32_t root = test::get_u32(b, 0);
    const auto vtable = static_cast<size_t>(root - test::get_u32(b, root));
    const size_t field2 = root + static_cast<size_t>(b[vtable + 8] | (b[vtable + 9] << 8));
    const size_t vec = field2 + test::get_u32(b, field2);
    REQUIRE(test::get_u32(b, vec) == 1);
    test::put_u32(b, vec, 999999);
    const Error e = load_error(b);
    CHECK_MESSAGE(contains(e.message(), "does not verify with the older FlatTensor layout, the only one "
                                        "with root field id 3"),
                  e.message());
  }
}

TEST_CASE("external_data: segment and entry range errors") {
  SUBCASE("segment offset past the data") {
    const Error e = load_error(make_current({{64, 16}}, {{"a", 0, std::nullopt}}, float_bytes({1, 2, 3, 4})));
    CHECK_MESSAGE(contains(e.message(), "segments[0] (offset 64, size 16) ends past the end of the file"),
                  e.message());
  }
  SUBCASE("segment offset + size wraps around") {
    const Error e = load_error(make_current({{8, UINT64_MAX - 4}}, {}, float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "segments[0]"));
  }
  SUBCASE("segment_index out of range") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 3, std::nullopt}}, float_bytes({1, 2, 3, 4})));
    CHECK(e.code() == ErrorCode::InvalidData);
    CHECK_MESSAGE(contains(e.message(), "named_data[0] ('a'): segment_index 3 out of range (1 segments)"),
                  e.message());
  }
  SUBCASE("tensor layout bigger than its segment") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, Layout{6, {3, 3}, std::vector<uint8_t>{0, 1}}}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK_MESSAGE(contains(e.message(), "named_data[0] ('a'): tensor needs 36 bytes but segments[0] holds 16"),
                  e.message());
  }
  SUBCASE("invalid scalar type") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, Layout{99, {2}, std::nullopt}}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "invalid scalar_type 99"));
  }
  SUBCASE("dim order of the wrong length") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, Layout{6, {2, 2}, std::vector<uint8_t>{0}}}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "dim_order has 1 entries, expected 2"));
  }
  SUBCASE("dim order that is not a permutation") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, Layout{6, {2, 2}, std::vector<uint8_t>{1, 1}}}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "not a permutation"));
  }
  SUBCASE("negative size") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, Layout{6, {-1}, std::nullopt}}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "negative size -1"));
  }
  SUBCASE("missing key") {
    const Error e = load_error(make_current({{0, 16}}, {{std::nullopt, 0, std::nullopt}}, float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "named_data[0] has no key"));
  }
  SUBCASE("duplicate key") {
    const Error e = load_error(make_current({{0, 16}}, {{"a", 0, std::nullopt}, {"a", 0, std::nullopt}},
                                            float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "duplicate key 'a'"));
  }
  SUBCASE("older layout: tensor past the end of its segment") {
    const Error e = load_error(make_old({{0, 16}}, {{"w", 6, {3}, {0}, 0, 8}}, float_bytes({1, 2, 3, 4})));
    CHECK_MESSAGE(contains(e.message(), "tensors[0] ('w'): 12 bytes at offset 8 do not fit segments[0] (16 bytes)"),
                  e.message());
  }
  SUBCASE("older layout: negative segment index") {
    const Error e = load_error(make_old({{0, 16}}, {{"w", 6, {3}, {0}, -2, 0}}, float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "tensors[0] ('w'): segment_index -2 out of range (1 segments)"));
  }
  SUBCASE("older layout: missing name") {
    const Error e = load_error(make_old({{0, 16}}, {{std::nullopt, 6, {3}, {0}, 0, 0}}, float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "tensors[0] has no fully_qualified_name"));
  }
  SUBCASE("older layout: offset that wraps around") {
    const Error e = load_error(make_old({{0, 16}}, {{"w", 6, {1}, {0}, 0, UINT64_MAX - 1}}, float_bytes({1, 2, 3, 4})));
    CHECK(contains(e.message(), "do not fit segments[0]"));
  }
}

}  // namespace
}  // namespace etkit
