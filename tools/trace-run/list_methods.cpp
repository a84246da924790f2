// trace-run --list: each method's inputs and outputs, without running anything.

#include <algorithm>
#include <cstdio>

#include "etkit/host/shared_memory.h"

#include "etkit/host/shape_text.h"
#include "etkit/tools/diagnostics.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

std::string info_text(const ValueSummary& s) {
  if (s.kind == "tensor") {
    return "tensor " + s.dtype + " " + shape_text(s.shape) + " " + s.dynamism;
  }
  return value_text(s);
}

// The buffers `method` uses (all when empty): text lines, and JSON objects into `json`.
std::string shared_buffers(const SharedMemoryManager& shared, const std::string& method,
                           nlohmann::ordered_json* json) {
  std::string lines;
  for (const SharedBufferInfo& b : shared.buffers()) {
    std::vector<std::string> users;
    for (const SharedBufferPlacement& p : b.placements) {
      if (users.empty() || users.back() != p.method) users.push_back(p.method);
    }
    if (!method.empty() && std::find(users.begin(), users.end(), method) == users.end()) continue;
    std::vector<int64_t> shape(b.sizes.begin(), b.sizes.end());
    const std::string dtype = b.has_layout ? scalar_type_name(b.dtype) : "";
    lines += "  " + b.name + ": memory id " + std::to_string(b.memory_id) + ", offset " +
             std::to_string(b.offset) + ", " + std::to_string(b.actual_bytes) + " bytes (" +
             std::to_string(b.allocated_bytes) + " allocated)";
    if (b.has_layout) lines += ", " + dtype + " " + shape_text(shape);
    if (b.has_initial_value) lines += ", initial value";
    std::string used;
    for (const std::string& u : users) used += (used.empty() ? "" : ", ") + u;
    lines += ", used by " + (used.empty() ? std::string("no method") : used) + "\n";
    nlohmann::ordered_json j;
    j["name"] = b.name;
    j["memory_id"] = b.memory_id;
    j["offset"] = b.offset;
    j["size"] = b.actual_bytes;
    j["allocated"] = b.allocated_bytes;
    if (b.has_layout) {
      j["dtype"] = dtype;
      j["shape"] = shape;
    }
    j["initial_value"] = b.has_initial_value;
    j["methods"] = users;
    json->push_back(j);
  }
  if (lines.empty()) return "";
  return "shared buffers:\n" + lines;
}

}  // namespace

int list_methods(const ProgramFile& file, const TraceRunOptions& options) {
  const Program& program = file.program();
  nlohmann::ordered_json methods = nlohmann::ordered_json::array();
  std::string text;
  for (size_t m = 0; m < program.num_methods(); ++m) {
    const std::string_view name = program.method_name(m);
    if (!options.method.empty() && name != options.method) continue;
    Result<MethodMeta> meta = program.method_meta(name);
    // Listing verifies each method it describes (a damaged one is reported here, by name).
    if (!meta.ok()) return report(kTraceRun, meta.error().with_context("%s", file.path().c_str()));
    nlohmann::ordered_json jm;
    jm["name"] = std::string(name);
    jm["instructions"] = meta->num_instructions();
    jm["planned_bytes"] = meta->planned_bytes();
    text += "method " + std::string(name) + ": " + std::to_string(meta->num_instructions()) +
            (meta->num_instructions() == 1 ? " instruction" : " instructions") +
            ", planned memory " + std::to_string(meta->planned_bytes()) + " bytes\n";
    for (int side = 0; side < 2; ++side) {
      const bool inputs = side == 0;
      const size_t n = inputs ? meta->num_inputs() : meta->num_outputs();
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (size_t i = 0; i < n; ++i) {
        Result<ValueInfo> info = inputs ? meta->input(i) : meta->output(i);
        if (!info.ok()) {
          return report(kTraceRun, info.error().with_context("%s: method '%.*s'",
                                                             file.path().c_str(),
                                                             static_cast<int>(name.size()),
                                                             name.data()));
        }
        const ValueSummary s = summarize_info(*info);
        text += std::string("  ") + (inputs ? "input " : "output ") + std::to_string(i) + ": " +
                info_text(s) + "\n";
        nlohmann::ordered_json j = value_json(s);
        j["index"] = i;
        list.push_back(j);
      }
      jm[inputs ? "inputs" : "outputs"] = list;
    }
    methods.push_back(jm);
  }
  if (!options.method.empty() && methods.empty()) {
    print_error(kTraceRun, program.method_meta(options.method)
                               .error()
                               .with_context("%s", file.path().c_str())
                               .message());
    return kExitUsage;
  }
  // Shared buffers (issue #6), only when the program has some: other listings stay as they were.
  Result<SharedMemoryManager> shared = SharedMemoryManager::create(program);
  nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
  if (shared.ok()) text += shared_buffers(*shared, options.method, &buffers);
  if (options.format == OutputFormat::Json) {
    nlohmann::ordered_json root;
    root["program"] = file.path();
    root["methods"] = methods;
    if (!buffers.empty()) root["shared_buffers"] = buffers;
    std::printf("%s\n", root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::fputs(text.c_str(), stdout);
  }
  if (!shared.ok()) return report(kTraceRun, shared.error().with_context("%s", file.path().c_str()));
  return kExitOk;
}

}  // namespace etkit::tools
