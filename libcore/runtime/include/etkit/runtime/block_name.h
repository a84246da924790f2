#pragma once

// How an ETDump's run blocks are named, written once for every writer and reader.
//
// etkit's runtime names a method's loading `<method>:load` and each of its executions
// `<method>` (`Method::load`, `Method::execute`). ExecuTorch's runtime names no method: its
// blocks are `Default` (loading) and `Execute` (an execution), so a reader takes `Default` as
// the load block of method `Execute`. Formatting writes into a caller buffer and never
// allocates (it runs inside `Method::load`); parsing returns views into the name it was given.

#include <cstddef>
#include <cstring>
#include <span>
#include <string_view>

namespace etkit {

/// Suffix of a load block's name: `forward:load`.
inline constexpr std::string_view kLoadBlockSuffix = ":load";
/// ExecuTorch's name of an execution block (it names no method).
inline constexpr std::string_view kExecuTorchExecuteBlock = "Execute";
/// ExecuTorch's name of a load block: the load block of method `Execute`.
inline constexpr std::string_view kExecuTorchLoadBlock = "Default";

/// A block name taken apart: the method it belongs to and whether it records loading.
struct BlockName {
  std::string_view method;  ///< Views the parsed name (or `kExecuTorchExecuteBlock`).
  bool load = false;
};

/// Writes the block name of `method` (`<method>`, or `<method>:load` with `load`) into `out`,
/// NUL-terminated, cut to fit (an empty `out` gets nothing). Returns the length written, without
/// the NUL. Never allocates.
inline size_t format_block_name(std::string_view method, bool load, std::span<char> out) {
  if (out.empty()) return 0;
  const size_t room = out.size() - 1;
  size_t n = method.size() < room ? method.size() : room;
  std::memcpy(out.data(), method.data(), n);
  if (load) {
    const size_t s = kLoadBlockSuffix.size() < room - n ? kLoadBlockSuffix.size() : room - n;
    std::memcpy(out.data() + n, kLoadBlockSuffix.data(), s);
    n += s;
  }
  out[n] = '\0';
  return n;
}

/// Parses a block name: `Default` is the load block of `Execute`; `<method>:load` (a non-empty
/// method) the load block of `<method>`; any other name an execution of the method it names.
inline BlockName parse_block_name(std::string_view name) {
  if (name == kExecuTorchLoadBlock) return {kExecuTorchExecuteBlock, true};
  if (name.size() > kLoadBlockSuffix.size() && name.ends_with(kLoadBlockSuffix)) {
    return {name.substr(0, name.size() - kLoadBlockSuffix.size()), true};
  }
  return {name, false};
}

}  // namespace etkit
