#include "etkit/host/shared_memory.h"

#include <doctest/doctest.h>
#include <flatbuffers/idl.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "etkit/host/host_tensor.h"
#include "etkit/host/runner.h"
#include "test_support.h"

// The test program is tests/data/stateful_shared.json (read its header): set_cache writes
// `cache` and increments `step`; get_cache copies both out. Variants are made from its text and
// compiled here with flatc's own parser, so each test shows the one thing it changes.

namespace etkit {
namespace {

using testing::AlignedBytes;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string& base_json() {
  static const std::string json = read_text(ETKIT_SOURCE_DIR "/tests/data/stateful_shared.json");
  return json;
}

// Replaces `count` occurrences of `from` (all of them; there must be exactly that many).
std::string replace(std::string text, const std::string& from, const std::string& to,
                    size_t count = 1) {
  size_t found = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++found;
  }
  REQUIRE_MESSAGE(found == count, "'" << from << "' occurs " << found << " times, expected " << count);
  return text;
}

// Compiles a program's JSON text as the build's flatc does.
std::vector<uint8_t> compile(const std::string& json) {
  const std::string formats = ETKIT_SOURCE_DIR "/formats";
  const std::string schema = read_text(formats + "/program.fbs");
  const char* includes[] = {formats.c_str(), nullptr};
  flatbuffers::Parser parser;
  REQUIRE_MESSAGE(parser.Parse(schema.c_str(), includes, "program.fbs"), parser.error_);
  REQUIRE_MESSAGE(parser.Parse(json.c_str()), parser.error_);
  const uint8_t* data = parser.builder_.GetBufferPointer();
  return {data, data + parser.builder_.GetSize()};
}

// Inserts ExecuTorch's 32-byte `eh00` extended header after the file identifier (the root offset
// moves by as much, every other FlatBuffer offset is relative) and appends `segment` as the
// program's segment data, 16-byte aligned.
std::vector<uint8_t> with_segment(const std::vector<uint8_t>& fb, const std::vector<uint8_t>& segment) {
  constexpr uint32_t kHeader = 32;
  auto put = [](std::vector<uint8_t>& b, size_t at, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  uint32_t root = 0;
  std::memcpy(&root, fb.data(), 4);
  std::vector<uint8_t> out(fb.size() + kHeader);
  put(out, 0, root + kHeader, 4);
  std::memcpy(out.data() + 4, fb.data() + 4, 4);
  std::memcpy(out.data() + 8, "eh00", 4);
  put(out, 12, kHeader, 4);
  const uint64_t program_size = out.size();
  const uint64_t segment_base = (program_size + 15) / 16 * 16;
  put(out, 16, program_size, 8);
  put(out, 24, segment_base, 8);
  put(out, 32, segment.size(), 8);
  std::memcpy(out.data() + 8 + kHeader, fb.data() + 8, fb.size() - 8);
  out.resize(segment_base);
  out.insert(out.end(), segment.begin(), segment.end());
  return out;
}

std::vector<uint8_t> float_bytes(std::initializer_list<float> values) {
  std::vector<uint8_t> b(values.size() * 4);
  std::memcpy(b.data(), values.begin(), b.size());
  return b;
}

constexpr const char* kStepTensor =
    "\"sizes\": [1], \"dim_order\": [0],\n          \"allocation_info\": {\"memory_id\": 2, "
    "\"memory_offset_low\": 32}}}";

// The test program with initial values for `step` in both methods: mutable data 1 (and 2) in a
// segment after the FlatBuffer, as ExecuTorch stores a mutable buffer's initial state.
std::vector<uint8_t> with_initial_step(float set_cache_value, float get_cache_value) {
  const std::string with_idx =
      "\"sizes\": [1], \"dim_order\": [0], \"data_buffer_idx\": IDX,\n          "
      "\"allocation_info\": {\"memory_id\": 2, \"memory_offset_low\": 32}}}";
  std::string json = base_json();
  // get_cache comes first in the file.
  const size_t first = json.find(kStepTensor);
  REQUIRE(first != std::string::npos);
  json.replace(first, std::strlen(kStepTensor), replace(with_idx, "IDX", "2"));
  json = replace(json, kStepTensor, replace(with_idx, "IDX", "1"));
  json = replace(json, "\"constant_buffer\": [",
                 "\"segments\": [{\"offset\": 0, \"size\": 8}],\n"
                 "  \"mutable_data_segments\": [{\"segment_index\": 0, \"offsets\": [0, 0, 4]}],\n"
                 "  \"constant_buffer\": [");
  return with_segment(compile(json), float_bytes({set_cache_value, get_cache_value}));
}

struct Loaded {
  AlignedBytes bytes;
  std::optional<BufferDataLoader> loader;
  std::optional<Program> program;
};

// The program with its bytes and loader, which must outlive it.
std::unique_ptr<Loaded> load(const std::vector<uint8_t>& bytes) {
  auto out = std::make_unique<Loaded>();
  out->bytes.assign(bytes);
  out->loader.emplace(out->bytes.span());
  Result<Program> program = Program::load(*out->loader);
  REQUIRE_MESSAGE(program.ok(), program.error().message());
  out->program.emplace(std::move(program).get());
  return out;
}

std::string create_error(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<Loaded> p = load(bytes);
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code() == ErrorCode::InvalidProgram);
  return m.error().message();
}

std::vector<float> floats_of(std::span<const uint8_t> bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

std::vector<float> floats_of(const EValue& value) {
  const Tensor& t = value.to_tensor();
  return floats_of({static_cast<const uint8_t*>(t.data()), t.nbytes()});
}

RunnerOptions with_manager(SharedMemoryManager* m) {
  RunnerOptions o;
  o.shared_memory = m;
  return o;
}

const std::vector<float> kData = {1.5f, -2, 3, 4.25f, 5, -6};

Error run(LoadedMethod& m, const std::vector<float>& input) {
  static const int32_t sizes[] = {2, 3};
  HostTensor x(ScalarType::Float, sizes);
  std::memcpy(x.data(), input.data(), input.size() * 4);
  ETKIT_TRY(m.method().set_input(0, EValue::from_tensor(&x.tensor())));
  return m.method().execute();
}

TEST_CASE("shared memory: a program without the discovery methods shares nothing") {
  Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(file.ok());
  Result<SharedMemoryManager> m = SharedMemoryManager::create(file->program());
  REQUIRE(m.ok());
  CHECK(m->buffers().empty());
  CHECK(m->memory_ids().empty());
  CHECK(m->arena(1).empty());
  CHECK(m->buffer_bytes("cache").error().code() == ErrorCode::NotFound);
  Result<LoadedMethod> forward = LoadedMethod::load(file->program(), "forward", with_manager(&*m));
  REQUIRE(forward.ok());
  CHECK(forward->planned_bytes() > 0);
}

TEST_CASE("shared memory: the tables list every buffer at one memory id and offset") {
  std::unique_ptr<Loaded> p = load(compile(base_json()));
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  REQUIRE(m->buffers().size() == 2);
  REQUIRE(m->memory_ids().size() == 1);
  CHECK(m->memory_ids()[0] == 2);
  CHECK(m->arena(2).size() == 48);
  CHECK(m->arena(1).empty());

  const SharedBufferInfo& cache = m->buffers()[0];
  CHECK(cache.name == "cache");
  CHECK(cache.memory_id == 2);
  CHECK(cache.mem_obj_id == 0);
  CHECK(cache.offset == 0);
  CHECK(cache.allocated_bytes == 32);
  CHECK(cache.actual_bytes == 24);
  CHECK(cache.numel == 6);
  CHECK(cache.has_layout);
  CHECK(cache.dtype == ScalarType::Float);
  CHECK(cache.sizes == std::vector<int32_t>{2, 3});
  CHECK_FALSE(cache.has_initial_value);
  const SharedBufferInfo& step = m->buffers()[1];
  CHECK(step.name == "step");
  CHECK(step.offset == 32);
  CHECK(step.actual_bytes == 4);
  CHECK(m->find("step") == &step);
  CHECK(m->find("nothing") == nullptr);

  // Both methods plan each buffer themselves, at the same memory id and offset.
  for (const SharedBufferInfo* b : {&cache, &step}) {
    REQUIRE(b->placements.size() == 2);
    CHECK(b->placements[0].method == "get_cache");
    CHECK(b->placements[1].method == "set_cache");
    for (const SharedBufferPlacement& at : b->placements) {
      CHECK(at.memory_id == 2);
      CHECK(at.offset == b->offset);
      CHECK(at.bytes == b->actual_bytes);
    }
  }
  CHECK(cache.placements[0].value == 1);
  CHECK(step.placements[1].value == 2);
  CHECK(is_shared_buffer_discovery_method("et_get_shared_buffer_names"));
  CHECK(is_shared_buffer_discovery_method("et_get_shared_buffer_memory_plan"));
  CHECK_FALSE(is_shared_buffer_discovery_method("get_cache"));
}

TEST_CASE("shared memory: state written by one method is read by the next") {
  std::unique_ptr<Loaded> p = load(compile(base_json()));
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE(m.ok());
  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set_cache", with_manager(&*m));
  Result<LoadedMethod> get = LoadedMethod::load(*p->program, "get_cache", with_manager(&*m));
  REQUIRE_MESSAGE(set.ok(), set.error().message());
  REQUIRE_MESSAGE(get.ok(), get.error().message());

  // A reader run before any writer sees the zeros the arena starts with.
  REQUIRE(run(*get, std::vector<float>(6, 7.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == std::vector<float>(6, 0.0f));
  CHECK(floats_of(get->method().output(1)) == std::vector<float>{0});

  REQUIRE(run(*set, kData).ok());
  CHECK(floats_of(*m->buffer_bytes("cache")) == kData);
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{1});
  REQUIRE(run(*get, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == kData);
  CHECK(floats_of(get->method().output(1)) == std::vector<float>{1});
  REQUIRE(run(*set, std::vector<float>(6, 9.0f)).ok());
  REQUIRE(run(*get, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == std::vector<float>(6, 9.0f));
  CHECK(floats_of(get->method().output(1)) == std::vector<float>{2});
}

TEST_CASE("shared memory: without a manager every method keeps its own state") {
  std::unique_ptr<Loaded> p = load(compile(base_json()));
  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set_cache", RunnerOptions());
  Result<LoadedMethod> get = LoadedMethod::load(*p->program, "get_cache", RunnerOptions());
  REQUIRE(set.ok());
  REQUIRE(get.ok());
  REQUIRE(run(*set, kData).ok());
  REQUIRE(run(*get, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == std::vector<float>(6, 0.0f));
}

TEST_CASE("shared memory: initial values are written once, when the arena is created") {
  const std::vector<uint8_t> bytes = with_initial_step(10, 10);
  std::unique_ptr<Loaded> p = load(bytes);
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  CHECK(m->find("step")->has_initial_value);
  CHECK_FALSE(m->find("cache")->has_initial_value);
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{10});
  CHECK(floats_of(*m->buffer_bytes("cache")) == std::vector<float>(6, 0.0f));

  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set_cache", with_manager(&*m));
  REQUIRE(set.ok());
  REQUIRE(run(*set, kData).ok());
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{11});

  // get_cache loads after set_cache has written: its load must not copy 10 back.
  Result<LoadedMethod> get = LoadedMethod::load(*p->program, "get_cache", with_manager(&*m));
  REQUIRE(get.ok());
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{11});
  REQUIRE(run(*get, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == kData);
  CHECK(floats_of(get->method().output(1)) == std::vector<float>{11});

  // Loading again (a second method object over the same arena) keeps the state too.
  Result<LoadedMethod> set2 = LoadedMethod::load(*p->program, "set_cache", with_manager(&*m));
  REQUIRE(set2.ok());
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{11});

  // Without the manager, method load copies the initial value into the method's own memory.
  Result<LoadedMethod> alone = LoadedMethod::load(*p->program, "get_cache", RunnerOptions());
  REQUIRE(alone.ok());
  REQUIRE(run(*alone, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(alone->method().output(1)) == std::vector<float>{10});

  // A fresh manager starts from the initial value again; a reader run first sees it.
  Result<SharedMemoryManager> fresh = SharedMemoryManager::create(*p->program);
  REQUIRE(fresh.ok());
  Result<LoadedMethod> reader = LoadedMethod::load(*p->program, "get_cache", with_manager(&*fresh));
  REQUIRE(reader.ok());
  REQUIRE(run(*reader, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(reader->method().output(1)) == std::vector<float>{10});
}

TEST_CASE("shared memory: reset puts back zeros and initial values, under loaded methods") {
  const std::vector<uint8_t> bytes = with_initial_step(10, 10);
  std::unique_ptr<Loaded> p = load(bytes);
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set_cache", with_manager(&*m));
  Result<LoadedMethod> get = LoadedMethod::load(*p->program, "get_cache", with_manager(&*m));
  REQUIRE(set.ok());
  REQUIRE(get.ok());
  REQUIRE(run(*set, kData).ok());
  REQUIRE(run(*set, kData).ok());
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{12});
  CHECK(floats_of(*m->buffer_bytes("cache")) == kData);

  m->reset();
  // As created: step holds its initial 10, the cache (no initial value) zeros.
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{10});
  CHECK(floats_of(*m->buffer_bytes("cache")) == std::vector<float>(6, 0.0f));
  // The loaded methods still read and write the same arena.
  REQUIRE(run(*get, std::vector<float>(6, 0.0f)).ok());
  CHECK(floats_of(get->method().output(0)) == std::vector<float>(6, 0.0f));
  CHECK(floats_of(get->method().output(1)) == std::vector<float>{10});
  REQUIRE(run(*set, kData).ok());
  CHECK(floats_of(*m->buffer_bytes("step")) == std::vector<float>{11});
  CHECK(m->arena_bytes() > 0);
}

TEST_CASE("shared memory: a manager lends only the ids it shares, and only as large as planned") {
  std::unique_ptr<Loaded> p = load(compile(base_json()));
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE(m.ok());
  // A method of another program whose memory id 2 is larger than this manager's arena (the
  // manager must come from the method's own program).
  const std::string bigger =
      replace(replace(base_json(), "\"non_const_buffer_sizes\": [0, 80, 48]",
                      "\"non_const_buffer_sizes\": [0, 80, 64]"),
              "\"non_const_buffer_sizes\": [0, 32, 48]", "\"non_const_buffer_sizes\": [0, 32, 64]");
  std::unique_ptr<Loaded> other = load(compile(bigger));
  Result<LoadedMethod> refused = LoadedMethod::load(*other->program, "set_cache", with_manager(&*m));
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.error().message()) ==
        "method 'set_cache': memory id 2 plans 64 bytes, its shared arena has 48");
  // Memory id 1 is not shared: a method gets its own, and the arena is untouched by it.
  Result<LoadedMethod> set = LoadedMethod::load(*p->program, "set_cache", with_manager(&*m));
  REQUIRE(set.ok());
  REQUIRE(run(*set, kData).ok());
  CHECK(floats_of(*m->buffer_bytes("cache")) == kData);
  CHECK(m->arena(2).size() == 48);
}

TEST_CASE("shared memory: planned memory marked pre-initialised") {
  PlannedMemory planned;
  CHECK_FALSE(planned.is_preinitialized(2));
  CHECK(planned.set_preinitialized(2).ok());
  CHECK(planned.is_preinitialized(2));
  CHECK_FALSE(planned.is_preinitialized(1));
  CHECK(planned.set_preinitialized(64).ok());
  CHECK(planned.is_preinitialized(64));
  CHECK(planned.set_preinitialized(0).code() == ErrorCode::InvalidArgument);
  CHECK(std::string(planned.set_preinitialized(65).message()) ==
        "memory id 65 cannot be marked pre-initialised (ids 1..64 can)");
  CHECK_FALSE(planned.is_preinitialized(0));
  CHECK_FALSE(planned.is_preinitialized(65));
}

TEST_CASE("shared memory: methods must agree on the arena and buffers must fit it") {
  const std::string& json = base_json();
  CHECK(create_error(compile(replace(json, "\"non_const_buffer_sizes\": [0, 80, 48]",
                                     "\"non_const_buffer_sizes\": [0, 80, 64]"))) ==
        "method 'set_cache' plans 48 bytes for shared memory id 2, method 'get_cache' plans 64 "
        "(they must agree)");
  // A stale plan: an arena too small for a buffer the table lists (hazard of devtools.md §8).
  const std::string small = replace(
      replace(json, "\"non_const_buffer_sizes\": [0, 80, 48]", "\"non_const_buffer_sizes\": [0, 80, 40]"),
      "\"non_const_buffer_sizes\": [0, 32, 48]", "\"non_const_buffer_sizes\": [0, 32, 40]");
  CHECK(create_error(compile(small)) ==
        "shared buffer 'step' [32, +16) does not fit memory id 2 of method 'set_cache' (40 bytes)");
  // The table places `step` past the end of the arena.
  CHECK(create_error(compile(replace(json, "1, 0, 0, 0, 0, 0, 0, 0,  32,", "1, 0, 0, 0, 0, 0, 0, 0,  48,"))) ==
        "shared buffer 'step' [48, +16) does not fit memory id 2 of method 'set_cache' (48 bytes)");
  // A tensor of a shared memory id outside every listed buffer.
  CHECK(create_error(compile(replace(
            json, "\"allocation_info\": {\"memory_id\": 1, \"memory_offset_low\": 32}}},\n"
                  "        {\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": \"FLOAT\", \"sizes\": [1]",
            "\"allocation_info\": {\"memory_id\": 2, \"memory_offset_low\": 24}}},\n"
            "        {\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": \"FLOAT\", \"sizes\": [1]"))) ==
        "method 'get_cache': value 3: 24 bytes at offset 24 of shared memory id 2 lie in no listed "
        "shared buffer (other methods would overwrite them)");
  // Overlapping buffers: `step` moved into `cache`.
  CHECK(create_error(compile(replace(json, "1, 0, 0, 0, 0, 0, 0, 0,  32,", "1, 0, 0, 0, 0, 0, 0, 0,  16,"))) ==
        "shared buffers 'cache' and 'step' overlap in memory id 2");
  // A shared memory id that no method plans.
  CHECK(create_error(compile(replace(json, "[2, 0, 0, 0, 0, 0, 0, 0,  0,", "[3, 0, 0, 0, 0, 0, 0, 0,  0,"))) ==
        "shared memory id 3 is planned by no method");
}

TEST_CASE("shared memory: malformed discovery tables are load errors") {
  const std::string& json = base_json();
  // Only one of the two methods.
  CHECK(create_error(compile(replace(json, "\"name\": \"et_get_shared_buffer_memory_plan\"",
                                     "\"name\": \"plan\""))) ==
        "the program has method 'et_get_shared_buffer_names' but no "
        "'et_get_shared_buffer_memory_plan'");
  // Row counts disagree: the names table has three rows of four bytes.
  CHECK(create_error(compile(replace(json, "\"BYTE\", \"sizes\": [2, 6]", "\"BYTE\", \"sizes\": [3, 4]"))) ==
        "method 'et_get_shared_buffer_memory_plan' lists 2 buffer(s) but "
        "'et_get_shared_buffer_names' names 3");
  CHECK(create_error(compile(replace(json, "\"LONG\", \"sizes\": [2, 6]", "\"LONG\", \"sizes\": [3, 4]"))) ==
        "method 'et_get_shared_buffer_memory_plan': rows have 4 columns, expected 6");
  CHECK(create_error(compile(replace(json, "\"LONG\", \"sizes\": [2, 6]", "\"INT\", \"sizes\": [2, 6]"))) ==
        "method 'et_get_shared_buffer_memory_plan': the output is int32 with 2 dimension(s), "
        "expected int64 [n, m]");
  CHECK(create_error(compile(replace(json, "\"BYTE\", \"sizes\": [2, 6], \"dim_order\": [0, 1]",
                                     "\"BYTE\", \"sizes\": [12], \"dim_order\": [0]"))) ==
        "method 'et_get_shared_buffer_names': the output is uint8 with 1 dimension(s), expected "
        "uint8 [n, m]");
  // The table must be a constant, not planned memory.
  CHECK(create_error(compile(replace(
            replace(json, "\"dim_order\": [0, 1],\n          \"data_buffer_idx\": 3}",
                    "\"dim_order\": [0, 1],\n          \"allocation_info\": "
                    "{\"memory_id\": 1, \"memory_offset_low\": 0}}"),
            "\"non_const_buffer_sizes\": [0]\n    },\n    {\n      \"name\": \"et_get_shared_buffer_names\"",
            "\"non_const_buffer_sizes\": [0, 96]\n    },\n    {\n      \"name\": \"et_get_shared_buffer_names\""))) ==
        "method 'et_get_shared_buffer_memory_plan': the output is not a constant tensor");
  // A discovery method that takes an input.
  CHECK(create_error(compile(replace(json, "\"inputs\": [],\n      \"outputs\": [0],\n      \"chains\": "
                                           "[{\"instructions\": []}],\n      \"operators\": [],\n"
                                           "      \"delegates\": [],\n      \"non_const_buffer_sizes\": "
                                           "[0]\n    },\n    {\n      \"name\": \"get_cache\"",
                                     "\"inputs\": [0],\n      \"outputs\": [0],\n      \"chains\": "
                                     "[{\"instructions\": []}],\n      \"operators\": [],\n"
                                     "      \"delegates\": [],\n      \"non_const_buffer_sizes\": "
                                     "[0]\n    },\n    {\n      \"name\": \"get_cache\""))) ==
        "method 'et_get_shared_buffer_names': a shared-buffer table takes no inputs");
  // Names: empty and duplicate.
  CHECK(create_error(compile(replace(json, "[99, 97, 99, 104, 101, 0,", "[0, 97, 99, 104, 101, 0,"))) ==
        "method 'et_get_shared_buffer_names': row 0 has an empty name");
  CHECK(create_error(compile(replace(json, "115, 116, 101, 112, 0, 0]", "99, 97, 99, 104, 101, 0]"))) ==
        "method 'et_get_shared_buffer_names': rows 0 and 1 are both 'cache'");
  // Bad rows: a negative offset, actual bytes above allocated bytes, memory id 0.
  CHECK(create_error(compile(replace(json, "1, 0, 0, 0, 0, 0, 0, 0,  32, 0, 0, 0, 0, 0, 0, 0,",
                                     "1, 0, 0, 0, 0, 0, 0, 0,  32, 0, 0, 0, 0, 0, 0, 128,"))) ==
        "shared buffer 'step': bad row (mem_id 2, offset -9223372036854775776, allocated 16, "
        "actual 4, numel 1): sizes must not be negative, mem_id in 1..64");
  CHECK(create_error(compile(replace(json, "32, 0, 0, 0, 0, 0, 0, 0,  24,", "32, 0, 0, 0, 0, 0, 0, 0,  40,"))) ==
        "shared buffer 'cache': 40 actual bytes exceed its 32 allocated bytes");
  CHECK(create_error(compile(replace(json, "[2, 0, 0, 0, 0, 0, 0, 0,  0,", "[0, 0, 0, 0, 0, 0, 0, 0,  0,"))) ==
        "shared buffer 'cache': bad row (mem_id 0, offset 0, allocated 32, actual 24, numel 6): "
        "sizes must not be negative, mem_id in 1..64");
}

TEST_CASE("shared memory: two methods giving different initial values is a load error") {
  std::unique_ptr<Loaded> p = load(with_initial_step(10, 20));
  Result<SharedMemoryManager> m = SharedMemoryManager::create(*p->program);
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.error().message()) ==
        "method 'set_cache': value 2: initial value of shared buffer 'step' differs from the one "
        "method 'get_cache' gives");
}

}  // namespace
}  // namespace etkit
