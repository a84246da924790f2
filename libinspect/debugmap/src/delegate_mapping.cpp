#include "etkit/debugmap/delegate_mapping.h"

#include <algorithm>
#include <utility>

#include "etkit/debugmap/json_path.h"

namespace etkit::debugmap {

namespace {

// "3" or "\"fused\"": how identifiers appear in messages.
std::string shown(const DelegateIdentifier& id) {
  if (std::holds_alternative<int64_t>(id)) return identifier_text(id);
  return json_quoted(std::get<std::string>(id));
}

std::string handle_list(const std::vector<uint32_t>& handles) {
  std::string s;
  for (uint32_t h : handles) s += (s.empty() ? "" : ", ") + std::to_string(h);
  return s;
}

Error invalid(const std::string& text) {
  return Error(ErrorCode::InvalidArgument, "%s", text.c_str());
}

}  // namespace

Result<DelegateIdentifier> DelegateMappingBuilder::insert(
    std::span<const uint32_t> handles, std::optional<DelegateIdentifier> identifier) {
  if (generated_ && identifier) {
    return invalid("identifier " + shown(*identifier) +
                   " given in generated mode (the builder assigns identifiers)");
  }
  if (!generated_ && !identifier) return invalid("no identifier given in manual mode");
  const DelegateIdentifier id = generated_ ? DelegateIdentifier(next_generated_) : *identifier;
  const IdentifierKind kind =
      std::holds_alternative<int64_t>(id) ? IdentifierKind::Int : IdentifierKind::String;
  if (Error e = check_identifier(id); !e.ok()) return e;
  if (kind_ && *kind_ != kind) {
    return invalid("identifier " + shown(id) + " is " +
                   (kind == IdentifierKind::Int ? "an integer, but earlier identifiers are strings"
                                                : "a string, but earlier identifiers are integers"));
  }
  if (auto it = mapping_.find(id); it != mapping_.end()) {
    return invalid("identifier " + shown(id) + " is already mapped (to debug handles " +
                   handle_list(it->second) + ")");
  }
  if (handles.empty()) return invalid("empty handle list for identifier " + shown(id));
  std::vector<uint32_t> sorted(handles.begin(), handles.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.front() == 0) {
    return invalid("identifier " + shown(id) +
                   ": debug handle 0 is the unset handle (handles start at 1)");
  }
  mapping_.emplace(id, std::move(sorted));
  kind_ = kind;
  if (generated_) ++next_generated_;
  return id;
}

Result<DelegateEntry> DelegateMappingBuilder::build(int32_t chain, int32_t instruction,
                                                    std::string backend) const {
  if (chain < 0 || instruction < 0) {
    return invalid("delegate call position (chain " + std::to_string(chain) + ", instruction " +
                   std::to_string(instruction) + ") is negative");
  }
  if (backend.empty()) return invalid("delegate call at instruction " +
                                      std::to_string(instruction) + ": backend name is empty");
  DelegateEntry entry;
  entry.chain = chain;
  entry.instruction = instruction;
  entry.backend = std::move(backend);
  entry.identifier_kind = identifier_kind();
  entry.identifiers = mapping_;
  return entry;
}

}  // namespace etkit::debugmap
