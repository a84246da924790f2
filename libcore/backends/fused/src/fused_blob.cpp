// Checks of an EtkitFusedBackend blob (see fused_blob.h).

#include "fused_blob.h"

#include <cstring>

#include "etkit/runtime/event_tracer.h"

namespace etkit::fused {

namespace {

const char* dtype_name(executorch_flatbuffer::ScalarType t) {
  const char* name = executorch_flatbuffer::EnumNameScalarType(t);
  return name != nullptr && name[0] != '\0' ? name : "unknown";
}

}  // namespace

std::span<const int32_t> sizes_of(const flatbuffers::Vector<int32_t>* v) {
  if (v == nullptr) return {};
  return {v->data(), v->size()};
}

SizesText::SizesText(std::span<const int32_t> sizes) { format_sizes(sizes, text, sizeof(text)); }

Result<int64_t> checked_numel(std::span<const int32_t> sizes) {
  if (sizes.size() > static_cast<size_t>(kMaxRank)) {
    return Error(ErrorCode::DelegateFailed, "rank %zu is over the limit of %d", sizes.size(),
                 kMaxRank);
  }
  int64_t numel = 1;
  for (const int32_t s : sizes) {
    if (s < 0) {
      return Error(ErrorCode::DelegateFailed, "negative size in %s", SizesText(sizes).text);
    }
    numel *= s;
    if (numel > kMaxElements) {
      return Error(ErrorCode::DelegateFailed, "sizes %s hold more than %lld elements",
                   SizesText(sizes).text, static_cast<long long>(kMaxElements));
    }
  }
  return numel;
}

Error check_float(executorch_flatbuffer::ScalarType dtype, const char* what) {
  if (dtype != executorch_flatbuffer::ScalarType::FLOAT) {
    return Error(ErrorCode::NotSupported, "%s has dtype %s; EtkitFusedBackend computes float32 only",
                 what, dtype_name(dtype));
  }
  return Error();
}

Result<const fb::FusedProgram*> open_blob(std::span<const uint8_t> blob, MemoryAllocator& allocator) {
  if (blob.size() < 8) {
    return Error(ErrorCode::DelegateFailed, "the blob is %zu bytes, too short for a fused program",
                 blob.size());
  }
  if (!fb::FusedProgramBufferHasIdentifier(blob.data())) {
    char id[5] = {};
    for (size_t i = 0; i < 4; ++i) {
      const char c = static_cast<char>(blob[4 + i]);
      id[i] = c >= 0x20 && c < 0x7f ? c : '?';
    }
    return Error(ErrorCode::DelegateFailed, "the blob's identifier is '%s', expected '%s'", id,
                 fb::FusedProgramIdentifier());
  }
  // FlatBuffers reads scalars in place. No scalar of the schema is wider than 4 bytes and inline
  // delegate data is 4-byte aligned, so blobs are read where they are; one at an address that is
  // not a multiple of 4 is copied first.
  const uint8_t* data = blob.data();
  if (reinterpret_cast<uintptr_t>(data) % 4 != 0) {
    auto* copy = static_cast<uint8_t*>(allocator.allocate(blob.size(), 8));
    if (copy == nullptr) {
      return Error(ErrorCode::OutOfMemory, "the init allocator has no room for an aligned copy "
                   "of the %zu-byte blob", blob.size());
    }
    std::memcpy(copy, blob.data(), blob.size());
    data = copy;
  }
  flatbuffers::Verifier verifier(data, blob.size());
  if (!fb::VerifyFusedProgramBuffer(verifier)) {
    return Error(ErrorCode::DelegateFailed,
                 "the blob (%zu bytes) is not a valid fused program: FlatBuffers verification "
                 "failed (truncated or corrupt)", blob.size());
  }
  const fb::FusedProgram* program = fb::GetFusedProgram(data);
  if (program->version() != 1) {
    return Error(ErrorCode::DelegateFailed, "blob version %u is not supported (expected 1)",
                 program->version());
  }
  if (program->identifiers() > fb::IdentifierKind::MAX) {
    return Error(ErrorCode::DelegateFailed, "unknown identifier kind %d",
                 static_cast<int>(program->identifiers()));
  }
  if (program->timing() > fb::Timing::MAX) {
    return Error(ErrorCode::DelegateFailed, "unknown timing mode %d",
                 static_cast<int>(program->timing()));
  }
  return program;
}

Error check_constants(const fb::FusedProgram& program) {
  const auto* constants = program.constants();
  if (constants == nullptr) return Error();
  for (uint32_t i = 0; i < constants->size(); ++i) {
    const fb::Constant* c = constants->Get(i);
    Result<int64_t> checked = checked_numel(sizes_of(c->sizes()));
    if (!checked.ok()) return checked.error().with_context("constant %u", i);
    const int64_t numel = *checked;
    const int64_t have = c->data() == nullptr ? 0 : c->data()->size();
    if (have != numel) {
      return Error(ErrorCode::DelegateFailed,
                   "constant %u: sizes %s need %lld floats, the blob holds %lld", i,
                   SizesText(sizes_of(c->sizes())).text, static_cast<long long>(numel),
                   static_cast<long long>(have));
    }
  }
  return Error();
}

Error check_identifiers(const Plan& plan) {
  for (uint32_t s = 0; s < plan.num_steps; ++s) {
    const StepPlan& p = plan.steps[s];
    if (plan.string_ids) {
      if (p.name.empty()) {
        return Error(ErrorCode::DelegateFailed,
                     "step %u: the blob uses string identifiers and the step has no name", s);
      }
      if (p.id != kUnsetDelegateDebugIntId) {
        return Error(ErrorCode::DelegateFailed,
                     "step %u: a string-identified step must have integer id -1, not %d", s, p.id);
      }
      if (p.name.find('\0') != std::string_view::npos) {
        return Error(ErrorCode::DelegateFailed, "step %u: the name contains a NUL byte", s);
      }
    } else {
      if (p.id < 0) {
        return Error(ErrorCode::DelegateFailed,
                     "step %u: integer identifier %d is negative (-1 is the runtime's 'unset' "
                     "sentinel)", s, p.id);
      }
      if (!p.name.empty()) {
        return Error(ErrorCode::DelegateFailed,
                     "step %u: the blob uses integer identifiers and the step also has a name", s);
      }
    }
    for (uint32_t t = 0; t < s; ++t) {
      const StepPlan& q = plan.steps[t];
      if (plan.string_ids ? q.name == p.name : q.id == p.id) {
        return Error(ErrorCode::DelegateFailed, "steps %u and %u have the same identifier", t, s);
      }
    }
  }
  return Error();
}

}  // namespace etkit::fused
