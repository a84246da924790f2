#include "memory_report.h"

#include <cinttypes>
#include <cstdio>

#include "etkit/host/process_memory.h"

namespace etkit::tools {
namespace {

uint64_t shared_bytes(const MethodMemoryUse& use) {
  uint64_t total = 0;
  for (const PlannedBufferUse& p : use.planned) total += p.shared ? p.bytes : 0;
  return total;
}

uint64_t planned_total(const MethodMemoryUse& use) {
  uint64_t total = 0;
  for (const PlannedBufferUse& p : use.planned) total += p.bytes;
  return total;
}

}  // namespace

void print_memory_text(const MethodMemoryList& methods) {
  for (const auto& [name, use] : methods) {
    std::printf("memory of method %s:\n", name.c_str());
    std::string ids;
    for (const PlannedBufferUse& p : use.planned) {
      ids += (ids.empty() ? "" : ", ") + std::string("id ") + std::to_string(p.memory_id) + ": " +
             std::to_string(p.bytes) + (p.shared ? " shared" : "");
    }
    std::printf("  planned: %" PRIu64 " bytes in %zu buffer%s%s%s%s\n", planned_total(use),
                use.planned.size(), use.planned.size() == 1 ? "" : "s", ids.empty() ? "" : " (",
                ids.c_str(), ids.empty() ? "" : ")");
    std::printf("  method allocator: %" PRIu64 " of %" PRIu64 " bytes used, %" PRIu64
                " by delegate init\n",
                use.method_allocator_used, use.method_allocator_capacity,
                use.delegate_init_bytes);
    std::printf("  temp allocator: peak %" PRIu64 " of %" PRIu64 " bytes\n", use.temp_peak,
                use.temp_capacity);
    std::printf("  shared state: %" PRIu64 " bytes\n", shared_bytes(use));
    std::printf("  unplanned outputs: %" PRIu64 " bytes\n", use.unplanned_output_bytes);
  }
  std::printf("process: peak RSS %" PRIu64 " bytes\n", peak_rss_bytes());
}

nlohmann::ordered_json memory_json(const MethodMemoryList& methods) {
  nlohmann::ordered_json jmethods = nlohmann::ordered_json::array();
  for (const auto& [name, use] : methods) {
    nlohmann::ordered_json jm;
    jm["method"] = name;
    nlohmann::ordered_json jplanned = nlohmann::ordered_json::array();
    for (const PlannedBufferUse& p : use.planned) {
      jplanned.push_back({{"memory_id", p.memory_id}, {"bytes", p.bytes}, {"shared", p.shared}});
    }
    jm["planned"] = jplanned;
    jm["planned_bytes"] = planned_total(use);
    jm["method_allocator_used"] = use.method_allocator_used;
    jm["method_allocator_capacity"] = use.method_allocator_capacity;
    jm["delegate_init_bytes"] = use.delegate_init_bytes;
    jm["temp_peak"] = use.temp_peak;
    jm["temp_capacity"] = use.temp_capacity;
    jm["shared_bytes"] = shared_bytes(use);
    jm["unplanned_output_bytes"] = use.unplanned_output_bytes;
    jmethods.push_back(jm);
  }
  nlohmann::ordered_json j;
  j["methods"] = jmethods;
  j["peak_rss_bytes"] = peak_rss_bytes();
  return j;
}

}  // namespace etkit::tools
