#include "etkit/devtools/etdump_writer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/host/host_tensor.h"
#include "etkit/formats/etdump_generated.h"

namespace etkit {
namespace {

const ::etdump::ETDump* verified(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier v(bytes.data(), bytes.size());
  REQUIRE(::etdump::VerifySizePrefixedETDumpBuffer(v));
  return ::etdump::GetSizePrefixedETDump(bytes.data());
}

TEST_CASE("etdump writer: blocks, profile events, values and the metadata block") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  std::vector<uint8_t> payload(1024);
  Result<BufferDataSink> sink = BufferDataSink::create(payload);
  REQUIRE(sink.ok());
  w.set_data_sink(&*sink);
  w.set_debug_level(DebugLevel::IntermediateOutputs);
  w.create_event_block("forward");
  w.set_chain_debug_handle(0, 3);
  TracerEntry e = w.start_profiling("OPERATOR_CALL");
  w.end_profiling(e);
  const int32_t sizes[] = {2};
  HostTensor t = HostTensor::from<float>(ScalarType::Float, sizes, {1.5f, -2.f});
  REQUIRE(*w.log_evalue(EValue::from_tensor(&t.tensor()), LoggedValueKind::IntermediateOutput));
  REQUIRE(*w.log_evalue(EValue::from_int(7), LoggedValueKind::IntermediateOutput));
  w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
  REQUIRE(*w.log_evalue(EValue::from_double(0.25), LoggedValueKind::ProgramOutput));

  const std::vector<uint8_t> bytes = w.serialize();
  const ::etdump::ETDump* d = verified(bytes);
  REQUIRE(d->run_data()->size() == 2);
  const ::etdump::RunData* run = d->run_data()->Get(0);
  CHECK(run->name()->str() == "forward");
  REQUIRE(run->events()->size() == 4);
  const ::etdump::ProfileEvent* p = run->events()->Get(0)->profile_event();
  REQUIRE(p != nullptr);
  CHECK(p->name()->str() == "OPERATOR_CALL");
  CHECK(p->chain_index() == 0);
  CHECK(p->instruction_id() == 3);
  CHECK(p->start_time() == 1000);
  CHECK(p->end_time() == 2000);
  const ::etdump::DebugEvent* tv = run->events()->Get(1)->debug_event();
  REQUIRE(tv != nullptr);
  CHECK(tv->instruction_id() == 3);
  CHECK(tv->debug_entry()->val() == ::etdump::ValueType::Tensor);
  CHECK(tv->debug_entry()->tensor()->offset() == 0);
  CHECK(tv->debug_entry()->output() == nullptr);
  float back[2];
  std::memcpy(back, payload.data(), 8);
  CHECK(back[0] == 1.5f);
  CHECK(back[1] == -2.f);
  CHECK(run->events()->Get(2)->debug_event()->debug_entry()->int_value()->int_val() == 7);
  const ::etdump::DebugEvent* out = run->events()->Get(3)->debug_event();
  CHECK(out->chain_index() == UINT64_MAX);
  CHECK(out->debug_entry()->output()->bool_val());
  CHECK(out->debug_entry()->double_value()->double_val() == 0.25);
  const ::etdump::RunData* meta = d->run_data()->Get(1);
  CHECK(meta->name()->str() == "etkit:metadata");
  CHECK(meta->allocators()->Get(1)->name()->str() == "clock=fake");
}

TEST_CASE("etdump writer: exhausted event memory drops and counts, the dump stays valid") {
  std::vector<uint8_t> memory(6 << 10);  // the header takes 5 KiB
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  for (int i = 0; i < 1000; ++i) w.end_profiling(w.start_profiling("OPERATOR_CALL"));
  CHECK(w.dropped_events() > 900);
  const size_t kept = w.recorded_records();
  CHECK(kept > 1);
  const std::vector<uint8_t> bytes = w.serialize();
  const ::etdump::ETDump* d = verified(bytes);
  CHECK(d->run_data()->Get(0)->events()->size() == kept - 1);
  const ::etdump::RunData* meta = d->run_data()->Get(d->run_data()->size() - 1);
  CHECK(meta->allocators()->Get(3)->name()->str() ==
        "dropped_events=" + std::to_string(w.dropped_events()));
}

TEST_CASE("etdump writer: memory too small for anything still gives a valid dump") {
  std::vector<uint8_t> memory(64);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  w.end_profiling(w.start_profiling("OPERATOR_CALL"));
  CHECK(w.dropped_events() == 2);
  const std::vector<uint8_t> bytes = w.serialize();
  const ::etdump::ETDump* d = verified(bytes);
  CHECK(d->run_data()->size() == 1);  // only the metadata block
}

TEST_CASE("etdump writer: payloads without a sink or beyond it are marked missing") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  const int32_t sizes[] = {4};
  HostTensor t(ScalarType::Float, sizes);
  REQUIRE(*w.log_evalue(EValue::from_tensor(&t.tensor()), LoggedValueKind::IntermediateOutput));
  CHECK(w.dropped_payloads() == 1);
  const std::vector<uint8_t> bytes = w.serialize();
  const ::etdump::ETDump* d = verified(bytes);
  CHECK(d->run_data()->Get(0)->events()->Get(0)->debug_event()->debug_entry()->tensor()->offset() == -1);
  // Empty tensors have no payload and are not counted as dropped.
  const int32_t empty[] = {0};
  HostTensor e(ScalarType::Float, empty);
  REQUIRE(*w.log_evalue(EValue::from_tensor(&e.tensor()), LoggedValueKind::IntermediateOutput));
  CHECK(w.dropped_payloads() == 1);
}

TEST_CASE("etdump writer: what cannot be logged is an error, not an abort") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.set_debug_level(DebugLevel::IntermediateOutputs);
  w.create_event_block("forward");
  CHECK(w.log_evalue(EValue::from_string("x"), LoggedValueKind::IntermediateOutput).error().code() ==
        ErrorCode::InvalidArgument);
  Result<bool> both = w.log_intermediate_output_delegate("name", 3, EValue::from_int(1));
  CHECK(both.error().code() == ErrorCode::InvalidArgument);
  Result<bool> neither = w.log_intermediate_output_delegate("", kUnsetDelegateDebugIntId,
                                                            EValue::from_int(1));
  CHECK(neither.error().code() == ErrorCode::InvalidArgument);
  // A delegate event with both ids is not recorded (and counted).
  w.log_profiling_delegate("name", 3, 1, 2);
  CHECK(w.dropped_events() == 1);
}

TEST_CASE("etdump writer: debug and profiling levels gate what is recorded") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  // Debug level None: delegate outputs and program outputs are not logged.
  CHECK_FALSE(*w.log_intermediate_output_delegate("x", kUnsetDelegateDebugIntId, EValue::from_int(1)));
  CHECK_FALSE(*w.log_evalue(EValue::from_int(1), LoggedValueKind::ProgramOutput));
  CHECK_FALSE(*w.log_instruction_output("aten::add.out", 0, EValue::from_int(1)));
  w.set_profiling_level(ProfilingLevel::MethodOnly);
  w.log_profiling_delegate("x", kUnsetDelegateDebugIntId, 1, 2);
  CHECK(w.recorded_records() == 1);  // only the block
}

TEST_CASE("etdump writer: names are shared, not copied per event") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  std::string name = "native_call_add.out";
  for (int i = 0; i < 100; ++i) w.end_profiling(w.start_profiling(name));
  std::vector<uint8_t> bytes = w.serialize();
  // 100 events with one shared string: far below 100 copies of the 19-byte name.
  CHECK(bytes.size() < 100 * 19 + 100 * 40);
  const ::etdump::ETDump* d = verified(bytes);
  CHECK(d->run_data()->Get(0)->events()->size() == 100);
}

TEST_CASE("etdump writer: an operator event takes 40 bytes of dump and reads back whole") {
  // Events as the interpreter records them (chain 0, an instruction id, start and end), 1000
  // and 3000 of them: the difference in dump size is 2000 events' worth, names shared.
  auto dump = [](int events, std::vector<uint8_t>* memory) {
    FakeClock clock;
    ETDumpWriter w(*memory, clock);
    w.create_event_block("forward");
    for (int i = 0; i < events; ++i) {
      w.set_chain_debug_handle(0, static_cast<DebugHandle>(i));
      w.end_profiling(w.start_profiling(i % 2 == 0 ? "OPERATOR_CALL" : "native_call_add.out"));
    }
    w.set_chain_debug_handle(2, 7);  // one event with a chain index: a field more
    w.end_profiling(w.start_profiling("OPERATOR_CALL"));
    return w.serialize();
  };
  std::vector<uint8_t> memory(1 << 20);
  const std::vector<uint8_t> small = dump(1000, &memory);
  const std::vector<uint8_t> large = dump(3000, &memory);
  CHECK((large.size() - small.size()) <= 2000 * 40);
  const ::etdump::ETDump* d = verified(large);
  const auto* events = d->run_data()->Get(0)->events();
  REQUIRE(events->size() == 3001);
  // FakeClock: each read advances 1000 ticks, start then end.
  for (uint32_t i = 0; i < 3000; ++i) {
    const ::etdump::ProfileEvent* e = events->Get(i)->profile_event();
    REQUIRE(e != nullptr);
    CHECK(e->name()->str() == (i % 2 == 0 ? "OPERATOR_CALL" : "native_call_add.out"));
    CHECK(e->chain_index() == 0);
    CHECK(e->instruction_id() == static_cast<int32_t>(i));
    CHECK(e->delegate_debug_id_int() == -1);
    CHECK(e->delegate_debug_id_str() == nullptr);
    CHECK(e->start_time() == 2000 * uint64_t{i} + 1000);
    CHECK(e->end_time() == 2000 * uint64_t{i} + 2000);
  }
  const ::etdump::ProfileEvent* last = events->Get(3000)->profile_event();
  CHECK(last->chain_index() == 2);
  CHECK(last->instruction_id() == 7);
  CHECK(last->end_time() == 2000 * uint64_t{3001});
}

}  // namespace
}  // namespace etkit

namespace etkit {
namespace {

// The metadata block's entries, as "key=value" strings.
std::vector<std::string> metadata_entries(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier v(bytes.data(), bytes.size());
  REQUIRE(::etdump::VerifySizePrefixedETDumpBuffer(v));
  const ::etdump::ETDump* d = ::etdump::GetSizePrefixedETDump(bytes.data());
  const ::etdump::RunData* meta = d->run_data()->Get(d->run_data()->size() - 1);
  std::vector<std::string> out;
  for (const auto* a : *meta->allocators()) out.push_back(a->name()->str());
  return out;
}

bool has_entry(const std::vector<std::string>& entries, const std::string& e) {
  return std::find(entries.begin(), entries.end(), e) != entries.end();
}

bool has_key(const std::vector<std::string>& entries, const std::string& key) {
  for (const std::string& e : entries) {
    if (e.rfind(key + "=", 0) == 0) return true;
  }
  return false;
}

TEST_CASE("etdump writer: warm-up blocks are listed as ranges of run indices") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward:load");  // run 0
  w.set_warmup(true);
  w.create_event_block("forward");  // runs 1, 2: warm-up
  w.create_event_block("forward");
  w.set_warmup(false);
  w.create_event_block("forward");  // run 3
  w.set_warmup(true);
  w.create_event_block("forward");  // run 4: warm-up again
  w.set_warmup(false);
  const std::vector<std::string> entries = metadata_entries(w.serialize());
  CHECK(has_entry(entries, "warmup_blocks=1:3,4:5"));
  CHECK_FALSE(has_key(entries, "incomplete_from"));
  CHECK_FALSE(has_key(entries, "interrupted"));
}

TEST_CASE("etdump writer: a dump that dropped events says from which block on") {
  std::vector<uint8_t> memory(6 << 10);  // the header takes 5 KiB: room for a few dozen records
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  size_t blocks_before_drop = 0;
  for (int b = 0; b < 100; ++b) {
    w.create_event_block("forward");
    for (int i = 0; i < 5; ++i) {
      if (w.dropped_events() == 0) blocks_before_drop = static_cast<size_t>(b) + 1;
      w.end_profiling(w.start_profiling("OPERATOR_CALL"));
    }
  }
  REQUIRE(w.dropped_events() > 0);
  REQUIRE(blocks_before_drop > 1);
  const std::vector<uint8_t> bytes = w.serialize();
  const std::vector<std::string> entries = metadata_entries(bytes);
  // The block open at the first drop is the last block that started before it.
  CHECK(has_entry(entries, "incomplete_from=" + std::to_string(blocks_before_drop - 1)));
  // Every earlier block is whole: 5 events each.
  const ::etdump::ETDump* d = ::etdump::GetSizePrefixedETDump(bytes.data());
  for (size_t b = 0; b + 1 < blocks_before_drop; ++b) {
    CHECK(d->run_data()->Get(static_cast<flatbuffers::uoffset_t>(b))->events()->size() == 5);
  }
}

TEST_CASE("etdump writer: an interrupted run is marked") {
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter w(memory, clock);
  w.create_event_block("forward");
  CHECK_FALSE(w.interrupted());
  w.set_interrupted();
  CHECK(w.interrupted());
  CHECK(has_entry(metadata_entries(w.serialize()), "interrupted=1"));
}

}  // namespace
}  // namespace etkit
