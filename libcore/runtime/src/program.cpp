#include "etkit/runtime/program.h"

#include <cinttypes>
#include <cstring>
#include <string>

#include "etkit/runtime/bytes.h"
#include "program_internal.h"

namespace etkit {

namespace fb = ::executorch_flatbuffer;
using detail::fb_program;
using detail::fb_string;

namespace {

constexpr size_t kHeaderOffset = 8;
constexpr size_t kMinHeaderLength = 24;
constexpr size_t kMinimumAlignment = 16;
// flatbuffers' FLATBUFFERS_MIN_BUFFER_SIZE: root offset, table offset, vtable size and length.
constexpr uint64_t kMinFlatBufferSize =
    sizeof(flatbuffers::uoffset_t) + sizeof(flatbuffers::soffset_t) + 2 * sizeof(uint16_t);

flatbuffers::Verifier::Options verifier_options() {
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = 10'000'000;
  return options;
}

// The generated `Program::Verify`, field by field, except that of each method only the table
// and its name are verified: the rest of a method is verified the first time it is asked for
// (`Program::verify_method`). Keep in step with the Program table of formats/program.fbs: a
// field added there must be verified here.
bool verify_program_table(flatbuffers::Verifier& v, const fb::Program* p) {
  using P = fb::Program;
  // The generated tables derive privately from `flatbuffers::Table` and are its bytes, which is
  // how flatbuffers itself reads them.
  const auto* t = reinterpret_cast<const flatbuffers::Table*>(p);
  if (!(t->VerifyTableStart(v) && t->VerifyField<uint32_t>(v, P::VT_VERSION, 4) &&
        t->VerifyOffset(v, P::VT_EXECUTION_PLAN) && v.VerifyVector(p->execution_plan()))) {
    return false;
  }
  if (const auto* plans = p->execution_plan()) {
    for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
      const fb::ExecutionPlan* plan = plans->Get(i);
      const auto* pt = reinterpret_cast<const flatbuffers::Table*>(plan);
      if (!(pt->VerifyTableStart(v) && pt->VerifyOffset(v, fb::ExecutionPlan::VT_NAME) &&
            v.VerifyString(plan->name()) && v.EndTable())) {
        return false;
      }
    }
  }
  return t->VerifyOffset(v, P::VT_CONSTANT_BUFFER) && v.VerifyVector(p->constant_buffer()) &&
         v.VerifyVectorOfTables(p->constant_buffer()) &&
         t->VerifyOffset(v, P::VT_BACKEND_DELEGATE_DATA) &&
         v.VerifyVector(p->backend_delegate_data()) &&
         v.VerifyVectorOfTables(p->backend_delegate_data()) && t->VerifyOffset(v, P::VT_SEGMENTS) &&
         v.VerifyVector(p->segments()) && v.VerifyVectorOfTables(p->segments()) &&
         t->VerifyOffset(v, P::VT_CONSTANT_SEGMENT) && v.VerifyTable(p->constant_segment()) &&
         t->VerifyOffset(v, P::VT_MUTABLE_DATA_SEGMENTS) &&
         v.VerifyVector(p->mutable_data_segments()) &&
         v.VerifyVectorOfTables(p->mutable_data_segments()) &&
         t->VerifyOffset(v, P::VT_NAMED_DATA) && v.VerifyVector(p->named_data()) &&
         v.VerifyVectorOfTables(p->named_data()) && v.EndTable();
}

const fb::EValue* plan_value(const fb::ExecutionPlan* plan, int32_t index) {
  return plan->values()->Get(static_cast<flatbuffers::uoffset_t>(index));
}

Result<ValueInfo> value_info(const fb::ExecutionPlan* plan, int32_t index) {
  const fb::EValue* v = plan_value(plan, index);
  ValueInfo info;
  switch (v->val_type()) {
    case fb::KernelTypes::Null:
      info.tag = Tag::None;
      break;
    case fb::KernelTypes::Int:
      info.tag = Tag::Int;
      info.int_value = v->val_as_Int()->int_val();
      break;
    case fb::KernelTypes::Bool:
      info.tag = Tag::Bool;
      info.bool_value = v->val_as_Bool()->bool_val();
      break;
    case fb::KernelTypes::Double:
      info.tag = Tag::Double;
      info.double_value = v->val_as_Double()->double_val();
      break;
    case fb::KernelTypes::String:
      info.tag = Tag::String;
      info.string_value = fb_string(v->val_as_String()->string_val());
      break;
    case fb::KernelTypes::Tensor: {
      const fb::Tensor* t = v->val_as_Tensor();
      info.tag = Tag::Tensor;
      info.dtype = static_cast<ScalarType>(t->scalar_type());
      info.sizes = {t->sizes()->data(), t->sizes()->size()};
      info.dim_order = {t->dim_order()->data(), t->dim_order()->size()};
      info.dynamism = static_cast<ShapeDynamism>(t->shape_dynamism());
      info.planned = t->allocation_info() != nullptr;
      info.constant = !info.planned && (t->data_buffer_idx() > 0 || detail::is_external(t));
      break;
    }
    default:
      return Error(ErrorCode::NotSupported, "value %d is a %s, which methods cannot take or return",
                   index, fb::EnumNameKernelTypes(v->val_type()));
  }
  return info;
}

}  // namespace

// --- MethodMeta ---

namespace {
const fb::ExecutionPlan* as_plan(const void* p) { return static_cast<const fb::ExecutionPlan*>(p); }
}  // namespace

std::string_view MethodMeta::name() const { return fb_string(as_plan(plan_)->name()); }
size_t MethodMeta::num_inputs() const { return as_plan(plan_)->inputs()->size(); }
size_t MethodMeta::num_outputs() const { return as_plan(plan_)->outputs()->size(); }

Result<ValueInfo> MethodMeta::input(size_t i) const {
  if (i >= num_inputs()) {
    return Error(ErrorCode::InvalidArgument, "input %zu out of range (method has %zu)", i,
                 num_inputs());
  }
  return value_info(as_plan(plan_), as_plan(plan_)->inputs()->Get(static_cast<uint32_t>(i)));
}

Result<ValueInfo> MethodMeta::output(size_t i) const {
  if (i >= num_outputs()) {
    return Error(ErrorCode::InvalidArgument, "output %zu out of range (method has %zu)", i,
                 num_outputs());
  }
  return value_info(as_plan(plan_), as_plan(plan_)->outputs()->Get(static_cast<uint32_t>(i)));
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  for (const fb::Chain* c : *as_plan(plan_)->chains()) {
    if (c->instructions() != nullptr) n += c->instructions()->size();
  }
  return n;
}

size_t MethodMeta::num_values() const {
  const auto* values = as_plan(plan_)->values();
  return values == nullptr ? 0 : values->size();
}

bool MethodMeta::planned_tensor(size_t v, PlannedTensor* out) const {
  if (v >= num_values()) return false;
  const fb::EValue* value = as_plan(plan_)->values()->Get(static_cast<uint32_t>(v));
  if (value->val_type() != fb::KernelTypes::Tensor) return false;
  const fb::Tensor* t = value->val_as_Tensor();
  const fb::AllocationDetails* a = t->allocation_info();
  if (a == nullptr) return false;
  // The validation pass checked sizes, dtype and the name of external tensors.
  PlannedTensor p;
  p.value = static_cast<uint32_t>(v);
  p.memory_id = a->memory_id();
  p.offset = detail::planned_offset(a);
  p.nbytes = detail::tensor_nbytes(t);
  p.dtype = static_cast<ScalarType>(t->scalar_type());
  p.sizes = std::span<const int32_t>(t->sizes()->data(), t->sizes()->size());
  if (detail::is_external(t)) {
    p.external_key = fb_string(t->extra_tensor_info()->fully_qualified_name());
  }
  p.data_buffer_idx = t->data_buffer_idx();
  *out = p;
  return true;
}

std::string MethodMeta::instruction_name(size_t i) const {
  for (const fb::Chain* c : *as_plan(plan_)->chains()) {
    const size_t n = c->instructions() == nullptr ? 0 : c->instructions()->size();
    if (i >= n) {
      i -= n;
      continue;
    }
    const fb::Instruction* ins = c->instructions()->Get(static_cast<uint32_t>(i));
    switch (ins->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        // Indices were validated when the program was loaded.
        const auto* op = as_plan(plan_)->operators()->Get(
            static_cast<uint32_t>(ins->instr_args_as_KernelCall()->op_index()));
        char name[128];
        return std::string(name, detail::operator_full_name(op, name, sizeof(name)));
      }
      case fb::InstructionArguments::DelegateCall: {
        const auto* d = as_plan(plan_)->delegates()->Get(
            static_cast<uint32_t>(ins->instr_args_as_DelegateCall()->delegate_index()));
        return "delegate " + std::string(fb_string(d->id()));
      }
      case fb::InstructionArguments::MoveCall: return "move";
      case fb::InstructionArguments::JumpFalseCall: return "jump_false";
      case fb::InstructionArguments::FreeCall: return "free";
      default: return "";
    }
  }
  return "";
}

size_t MethodMeta::num_planned_buffers() const {
  const auto* sizes = as_plan(plan_)->non_const_buffer_sizes();
  return sizes->size() == 0 ? 0 : sizes->size() - 1;
}

uint64_t MethodMeta::planned_buffer_size(size_t i) const {
  return static_cast<uint64_t>(
      as_plan(plan_)->non_const_buffer_sizes()->Get(static_cast<uint32_t>(i + 1)));
}

uint64_t MethodMeta::planned_bytes() const {
  uint64_t total = 0;
  for (size_t i = 0; i < num_planned_buffers(); ++i) {
    const uint64_t s = planned_buffer_size(i);
    if (s > UINT64_MAX - total) return UINT64_MAX;
    total += s;
  }
  return total;
}

uint64_t MethodMeta::float16_copy_bytes() const {
  // Values and argument indices were validated when the program was loaded.
  const fb::ExecutionPlan* plan = as_plan(plan_);
  const auto* values = plan->values();
  if (values == nullptr || plan->chains() == nullptr) return 0;
  constexpr uint64_t kAlignment = 64;  // above MemoryAllocator's worst padding per copy (16)
  uint64_t most = 0;
  for (const fb::Chain* c : *plan->chains()) {
    if (c->instructions() == nullptr) continue;
    for (const fb::Instruction* ins : *c->instructions()) {
      if (ins->instr_args_type() != fb::InstructionArguments::KernelCall) continue;
      const auto* args = ins->instr_args_as_KernelCall()->args();
      if (args == nullptr) continue;
      uint64_t total = 0;
      for (uint32_t a = 0; a < args->size(); ++a) {
        const int32_t v = args->Get(a);
        bool seen = false;  // an out is also the return slot: one copy
        for (uint32_t b = 0; b < a && !seen; ++b) seen = args->Get(b) == v;
        if (seen || v < 0 || static_cast<uint32_t>(v) >= values->size()) continue;
        const fb::EValue* value = values->Get(static_cast<uint32_t>(v));
        if (value->val_type() != fb::KernelTypes::Tensor) continue;
        const fb::Tensor* t = value->val_as_Tensor();
        const auto dtype = static_cast<ScalarType>(t->scalar_type());
        if (dtype != ScalarType::Half && dtype != ScalarType::BFloat16) continue;
        const uint64_t bytes = detail::tensor_nbytes(t);
        if (bytes > (UINT64_MAX - kAlignment) / 2 || total > UINT64_MAX - (2 * bytes + kAlignment)) {
          return UINT64_MAX;
        }
        total += 2 * bytes + kAlignment;
      }
      most = total > most ? total : most;
    }
  }
  return most;
}

// --- Program ---

bool Program::is_program(std::span<const uint8_t> data) {
  return data.size() >= 8 && std::memcmp(data.data() + 4, "ET12", 4) == 0;
}

Result<Program> Program::load(const DataLoader& loader, const NamedDataMap* external) {
  const std::span<const uint8_t> file = loader.data();
  if (file.size() < 8) {
    return Error(ErrorCode::InvalidProgram, "not an ExecuTorch program: file is only %zu bytes",
                 file.size());
  }
  if (std::memcmp(file.data() + 4, "ET12", 4) != 0) {
    const std::string id = printable_identifier(file.data() + 4);
    if (file[4] == 'E' && file[5] == 'T') {
      return Error(ErrorCode::InvalidProgram,
                   "incompatible program version: identifier '%s', this build reads 'ET12'",
                   id.c_str());
    }
    return Error(ErrorCode::InvalidProgram,
                 "not an ExecuTorch program: bytes 4..7 are '%s', expected 'ET12'", id.c_str());
  }
  if (reinterpret_cast<uintptr_t>(file.data()) % kMinimumAlignment != 0) {
    return Error(ErrorCode::InvalidArgument, "program bytes are not %zu-byte aligned",
                 kMinimumAlignment);
  }

  Program program;
  program.file_ = file;
  program.external_ = external;
  uint64_t program_size = file.size();
  if (file.size() >= kHeaderOffset + 8 && std::memcmp(file.data() + kHeaderOffset, "eh00", 4) == 0) {
    const uint32_t header_length = read_u32_le(file.data() + kHeaderOffset + 4);
    if (header_length < kMinHeaderLength) {
      return Error(ErrorCode::InvalidProgram,
                   "extended header length %u is below the minimum of %zu", header_length,
                   kMinHeaderLength);
    }
    if (kHeaderOffset + header_length > file.size()) {
      return Error(ErrorCode::InvalidProgram,
                   "truncated: extended header needs %zu bytes, file has %zu",
                   kHeaderOffset + header_length, file.size());
    }
    program_size = read_u64_le(file.data() + kHeaderOffset + 8);
    const uint64_t segment_base = read_u64_le(file.data() + kHeaderOffset + 16);
    const uint64_t segment_data_size =
        header_length >= 32 ? read_u64_le(file.data() + kHeaderOffset + 24) : 0;
    if (program_size < kHeaderOffset + header_length || program_size > file.size()) {
      return Error(ErrorCode::InvalidProgram,
                   "truncated or corrupt: header says the program is %" PRIu64
                   " bytes, file has %zu",
                   program_size, file.size());
    }
    if (segment_base != 0 && segment_base < program_size) {
      return Error(ErrorCode::InvalidProgram,
                   "segment base offset %" PRIu64 " lies inside the program (%" PRIu64 " bytes)",
                   segment_base, program_size);
    }
    if (segment_data_size > 0 &&
        (segment_base > file.size() || segment_data_size > file.size() - segment_base)) {
      return Error(ErrorCode::InvalidProgram,
                   "truncated: segments end at byte %" PRIu64 ", file has %zu",
                   segment_base + segment_data_size, file.size());
    }
    program.header_length_ = header_length;
    program.segment_base_ = segment_base;
  }

  // As `VerifyProgramBuffer` (minimum size, identifier, root offset), then the root table
  // without the methods' contents.
  flatbuffers::Verifier verifier(file.data(), static_cast<size_t>(program_size),
                                 verifier_options());
  const flatbuffers::uoffset_t root_offset =
      program_size >= kMinFlatBufferSize ? verifier.VerifyOffset(0) : 0;
  const auto* root = reinterpret_cast<const fb::Program*>(file.data() + root_offset);
  if (root_offset == 0 || !verify_program_table(verifier, root)) {
    return Error(ErrorCode::InvalidProgram,
                 "corrupt program: the FlatBuffer in the first %" PRIu64 " bytes does not verify",
                 program_size);
  }
  program.flatbuffer_size_ = program_size;
  program.root_ = root;
  ETKIT_TRY(detail::validate_program(program));
  return program;
}

size_t Program::num_methods() const { return fb_program(*this)->execution_plan()->size(); }

std::string_view Program::method_name(size_t i) const {
  return fb_string(fb_program(*this)->execution_plan()->Get(static_cast<uint32_t>(i))->name());
}

Result<MethodMeta> Program::method_meta(std::string_view name) const {
  for (size_t i = 0; i < num_methods(); ++i) {
    if (method_name(i) != name) continue;
    ETKIT_TRY(verify_method(i));
    return MethodMeta(fb_program(*this)->execution_plan()->Get(static_cast<uint32_t>(i)));
  }
  std::string names;
  for (size_t i = 0; i < num_methods(); ++i) {
    if (i > 0) names += ", ";
    names += method_name(i);
  }
  return Error(ErrorCode::NotFound, "no method '%.*s' (the program has: %s)",
               static_cast<int>(name.size()), name.data(), names.c_str());
}

Error Program::verify_method(size_t i) const {
  const uint64_t bit = i < 64 ? uint64_t{1} << i : 0;
  if ((verified_.load(std::memory_order_acquire) & bit) != 0) return Error();
  const fb::ExecutionPlan* plan =
      fb_program(*this)->execution_plan()->Get(static_cast<uint32_t>(i));
  // A fresh verifier over the same bytes: offsets, bounds and alignment are checked exactly as
  // when the whole program is verified at once; depth and table count are per method.
  flatbuffers::Verifier verifier(file_.data(), static_cast<size_t>(flatbuffer_size_),
                                 verifier_options());
  if (!plan->Verify(verifier)) {
    return Error(ErrorCode::InvalidProgram,
                 "method '%s': corrupt program: the method's FlatBuffer tables do not verify",
                 plan->name()->c_str());
  }
  ETKIT_TRY(detail::validate_method(*this, plan));
  verified_.fetch_or(bit, std::memory_order_acq_rel);
  return Error();
}

Program& Program::operator=(const Program& other) {
  file_ = other.file_;
  flatbuffer_size_ = other.flatbuffer_size_;
  root_ = other.root_;
  external_ = other.external_;
  segment_base_ = other.segment_base_;
  header_length_ = other.header_length_;
  verified_.store(other.verified_.load(std::memory_order_acquire), std::memory_order_release);
  return *this;
}

Result<std::span<const uint8_t>> Program::segment_data(uint32_t index) const {
  const auto* segments = fb_program(*this)->segments();
  if (segments == nullptr || index >= segments->size()) {
    return Error(ErrorCode::InvalidProgram, "segment %u does not exist (program has %u)", index,
                 segments == nullptr ? 0u : segments->size());
  }
  const fb::DataSegment* s = segments->Get(index);
  if (s->size() == 0) return std::span<const uint8_t>();
  if (segment_base_ == 0) {
    return Error(ErrorCode::InvalidProgram,
                 "segment %u has %" PRIu64 " bytes but the file has no extended header", index,
                 s->size());
  }
  const uint64_t start = segment_base_ + s->offset();
  if (s->offset() > file_.size() || start > file_.size() || s->size() > file_.size() - start) {
    return Error(ErrorCode::InvalidProgram,
                 "segment %u [%" PRIu64 ", +%" PRIu64 ") lies outside the %zu-byte file", index,
                 start, s->size(), file_.size());
  }
  return file_.subspan(static_cast<size_t>(start), static_cast<size_t>(s->size()));
}

namespace {

Result<std::span<const uint8_t>> subsegment(const Program& program,
                                            const fb::SubsegmentOffsets* sub, uint32_t index,
                                            size_t nbytes, const char* what) {
  if (sub->offsets() == nullptr || index >= sub->offsets()->size()) {
    return Error(ErrorCode::InvalidProgram, "%s data index %u is outside its %u offsets", what,
                 index, sub->offsets() == nullptr ? 0u : sub->offsets()->size());
  }
  ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> seg, program.segment_data(sub->segment_index()));
  const uint64_t offset = sub->offsets()->Get(index);
  if (offset > seg.size() || nbytes > seg.size() - offset) {
    return Error(ErrorCode::InvalidProgram,
                 "%s %u [%" PRIu64 ", +%zu) lies outside its %zu-byte segment", what, index,
                 offset, nbytes, seg.size());
  }
  return seg.subspan(static_cast<size_t>(offset), nbytes);
}

}  // namespace

Result<std::span<const uint8_t>> Program::constant_data(uint32_t index, size_t nbytes) const {
  const fb::Program* p = fb_program(*this);
  const fb::SubsegmentOffsets* cs = p->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    return subsegment(*this, cs, index, nbytes, "constant");
  }
  const auto* buffers = p->constant_buffer();
  if (buffers == nullptr || index >= buffers->size()) {
    return Error(ErrorCode::InvalidProgram, "constant %u does not exist (program has %u)", index,
                 buffers == nullptr ? 0u : buffers->size());
  }
  const auto* storage = buffers->Get(index)->storage();
  const size_t have = storage == nullptr ? 0 : storage->size();
  if (nbytes > have) {
    return Error(ErrorCode::InvalidProgram, "constant %u holds %zu bytes, the tensor needs %zu",
                 index, have, nbytes);
  }
  return std::span<const uint8_t>(storage == nullptr ? nullptr : storage->data(), nbytes);
}

Result<std::span<const uint8_t>> Program::mutable_data(uint32_t index, size_t nbytes) const {
  const auto* segs = fb_program(*this)->mutable_data_segments();
  if (segs == nullptr || segs->size() == 0) {
    return Error(ErrorCode::InvalidProgram,
                 "mutable data %u is referenced but the program has no mutable data segments",
                 index);
  }
  // Like ExecuTorch, always the first entry (the exporter writes exactly one).
  return subsegment(*this, segs->Get(0), index, nbytes, "mutable data");
}

Result<NamedTensorData> Program::named_data(std::string_view key) const {
  const auto* named = fb_program(*this)->named_data();
  if (named != nullptr) {
    for (const fb::NamedData* nd : *named) {
      if (fb_string(nd->key()) != key) continue;
      ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, segment_data(nd->segment_index()));
      NamedTensorData out;
      out.key = fb_string(nd->key());
      out.bytes = bytes;
      return out;
    }
  }
  if (external_ != nullptr) {
    Result<NamedTensorData> found = external_->find(key);
    // The data file was given for this program but lacks its data: not this program's file
    // (invalid input), where a name the user typed that is not found is a usage error.
    if (!found.ok() && found.error().code() == ErrorCode::NotFound) {
      return Error(ErrorCode::InvalidData, "%s", found.error().message());
    }
    return found;
  }
  return Error(ErrorCode::NotFound,
               "no data named '%.*s' in the program and no external data file (.ptd) was given",
               static_cast<int>(key.size()), key.data());
}

}  // namespace etkit
