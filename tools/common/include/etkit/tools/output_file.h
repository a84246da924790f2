#pragma once

// Files written by tools go to a temporary name beside the target and are renamed into place,
// so an interrupted run never leaves a half-written file under the real name.

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "etkit/runtime/error.h"
#include "etkit/host/file_util.h"

namespace etkit::tools {

using etkit::write_file_atomic;  // from etkit/host/file_util.h

/// Writes `text` to `path`, or to stdout if `path` is "-" (the tools' -o/--output convention).
/// Errors: `AccessFailed` naming the file, or stdout when it takes less than all of `text`.
Error write_output(const std::string& path, std::string_view text);

/// Output written in pieces as it is made, to stdout for "-" or, as `write_output` writes a whole
/// text, to a temporary name beside `path` that `finish` renames into place once complete (the
/// same messages); the temporary file is removed when `finish` was not reached or failed. After
/// the first error nothing more is written. Not copyable.
class StreamedOutput {
 public:
  explicit StreamedOutput(const std::string& path);
  StreamedOutput(const StreamedOutput&) = delete;
  StreamedOutput& operator=(const StreamedOutput&) = delete;
  ~StreamedOutput();
  void write(std::string_view text);
  /// Completes the file (or flushes stdout); the first error met. Call it once.
  Error finish();

 private:
  void fail(int err);
  std::string path_;
  std::string tmp_;
  FILE* file_ = nullptr;
  bool done_ = false;
  Error error_;
};

/// Creates directory `path` if it does not exist (not its parents). Errors: `AccessFailed`.
Error ensure_directory(const std::string& path);

}  // namespace etkit::tools
