#pragma once

// `DelegateMappingBuilder`: what a delegate backend records ahead of time about the identifiers
// it will log, as ExecuTorch's `DelegateMappingBuilder` does (reference/devtools.md §5.1).
//
// A lowering creates one builder per DelegateCall. Each entry maps one or more debug handles
// (the model operations a fused step stands for) to a delegate debug identifier, which the
// backend passes to the tracer at run time. In manual mode (the default) the caller names every
// identifier, integers or strings but not both; in generated mode the builder hands out
// 0, 1, 2 ... in call order. `build` turns the entries into a delegate entry of a debug map
// (etkit/debugmap/debug_map.h).
//
// Unlike ExecuTorch's builder, which raises bare exceptions and lets a manual map mix integer
// and string keys, every mistake here is an `InvalidArgument` error, and a failed call leaves the
// builder unchanged. Host code; not thread-safe.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/debugmap/debug_map.h"

namespace etkit::debugmap {

/// Builds the identifier -> debug handles map of one delegate call.
class DelegateMappingBuilder {
 public:
  /// Manual identifiers (the default) or generated ones.
  explicit DelegateMappingBuilder(bool generated_identifiers = false)
      : generated_(generated_identifiers) {}

  bool generated_identifiers() const { return generated_; }

  /// Maps `handles` (each >= 1; repeats are kept once) to `identifier`, which must be given in
  /// manual mode and must not be in generated mode. Returns the identifier recorded. Errors,
  /// all `InvalidArgument`:
  /// - "identifier 3 given in generated mode (the builder assigns identifiers)";
  /// - "no identifier given in manual mode";
  /// - "identifier 3 is already mapped (to debug handles 1, 2)";
  /// - "identifier \"a\" is a string, but earlier identifiers are integers" (and the converse);
  /// - an identifier equal to a runtime sentinel (see `check_identifier`: -1, outside int32,
  ///   the empty string);
  /// - "empty handle list for identifier 3", "debug handle 0 ... (handles start at 1)".
  Result<DelegateIdentifier> insert(std::span<const uint32_t> handles,
                                    std::optional<DelegateIdentifier> identifier = std::nullopt);
  Result<DelegateIdentifier> insert(std::initializer_list<uint32_t> handles,
                                    std::optional<DelegateIdentifier> identifier = std::nullopt) {
    return insert(std::span<const uint32_t>(handles.begin(), handles.size()), std::move(identifier));
  }

  /// The identifier kind of the entries so far: integers in generated mode or when the first
  /// manual identifier was an integer, strings when it was a string; `Int` for an empty manual
  /// builder.
  IdentifierKind identifier_kind() const { return kind_.value_or(IdentifierKind::Int); }

  /// Identifier -> sorted debug handles (ExecuTorch's `get_delegate_mapping`).
  const std::map<DelegateIdentifier, std::vector<uint32_t>>& mapping() const { return mapping_; }

  /// The debug-map entry of the DelegateCall at (chain, instruction) that calls `backend`.
  /// Errors: `InvalidArgument` for a negative position or an empty backend name.
  Result<DelegateEntry> build(int32_t chain, int32_t instruction, std::string backend) const;

 private:
  bool generated_;
  int64_t next_generated_ = 0;
  std::optional<IdentifierKind> kind_;
  std::map<DelegateIdentifier, std::vector<uint32_t>> mapping_;
};

}  // namespace etkit::debugmap
