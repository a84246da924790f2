#include "etkit/inspect/profiler_counters.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <tuple>

#include "etkit/devtools/profiler_event_name.h"
#include "etkit/runtime/block_name.h"

namespace etkit::inspect {

namespace {

constexpr std::string_view kMagic = prof::kDeviceMetadataMagic;


}  // namespace

bool parse_profiler_metadata(std::string_view metadata, std::string* device,
                             std::vector<std::pair<std::string, uint64_t>>* counters) {
  if (metadata.substr(0, kMagic.size()) != kMagic) return false;
  if (metadata.size() > kMagic.size() && metadata[kMagic.size()] != ';') return false;
  counters->clear();
  device->clear();
  size_t pos = kMagic.size();
  while (pos < metadata.size()) {
    ++pos;  // the ';'
    const size_t end = std::min(metadata.find(';', pos), metadata.size());
    const std::string_view field = metadata.substr(pos, end - pos);
    pos = end;
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string_view key = field.substr(0, eq);
    const std::string_view value = field.substr(eq + 1);
    if (key == "device") {
      *device = std::string(value);
      continue;
    }
    if (key == "clipped") continue;
    uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size()) continue;
    counters->emplace_back(std::string(key), v);
  }
  return true;
}

// Counts one event whose metadata `parse_profiler_metadata` has put in `device_`/`counters_`.
void CounterAccumulator::count(const std::string& method, int64_t instruction,
                               std::string_view id) {
  const std::string key = by_instruction_ ? std::to_string(instruction) : std::string(id);
  auto [it, added] = index_.emplace(
      std::tuple{method, by_instruction_ ? instruction : -1, by_instruction_ ? device_ : key},
      out_.groups.size());
  if (added) {
    CounterGroup g;
    g.method = method;
    g.key = key;
    g.device = device_;
    out_.groups.push_back(std::move(g));
  }
  CounterGroup& g = out_.groups[it->second];
  ++g.count;
  for (const auto& [name, value] : counters_) {
    auto n = std::find(out_.names.begin(), out_.names.end(), name);
    if (n == out_.names.end()) n = out_.names.insert(out_.names.end(), name);
    const auto k = static_cast<size_t>(n - out_.names.begin());
    if (g.totals.size() <= k) g.totals.resize(k + 1, 0);
    g.totals[k] += value;
  }
}

void CounterAccumulator::add(const Trace& trace, const std::vector<size_t>& events) {
  for (size_t i : events) {
    const TraceEvent& e = trace.events[i];
    if (e.metadata.empty() || trace.blocks[e.block].load) continue;
    if (!parse_profiler_metadata(e.metadata, &device_, &counters_) || counters_.empty()) continue;
    count(trace.blocks[e.block].method, e.instruction, e.delegate_id);
  }
}

ProfilerCounters CounterAccumulator::finish() const {
  ProfilerCounters out;
  out.names = out_.names;
  out.groups.reserve(out_.groups.size());
  for (const auto& [key, i] : index_) out.groups.push_back(out_.groups[i]);
  for (CounterGroup& g : out.groups) g.totals.resize(out.names.size(), 0);
  return out;
}

ProfilerCounters profiler_counters(const ETDump& dump, bool by_instruction) {
  CounterAccumulator acc(by_instruction);
  for (const RunBlock& block : dump.blocks) {
    const BlockName name = parse_block_name(block.name);
    if (name.load) continue;
    const std::string method(name.method);
    for (const Event& event : block.events) {
      if (event.kind != Event::Kind::Profile) continue;
      const ProfileEvent& p = event.profile;
      if (p.delegate_debug_metadata.empty()) continue;
      const std::string_view md(reinterpret_cast<const char*>(p.delegate_debug_metadata.data()),
                                p.delegate_debug_metadata.size());
      if (!parse_profiler_metadata(md, &acc.device_, &acc.counters_) || acc.counters_.empty()) {
        continue;
      }
      acc.count(method, p.instruction_id, p.delegate_debug_id_str);
    }
  }
  return acc.finish();
}

Table profiler_counters_table(const ProfilerCounters& counters, bool by_instruction,
                              std::string title) {
  Table t;
  t.name = "profiler_counters";
  t.title = std::move(title);
  t.columns = {{"method", 0}, {by_instruction ? "instruction" : "name", 0}, {"device", 0},
               {"count", 0}};
  for (const std::string& n : counters.names) {
    t.columns.push_back({n, 0});
    t.columns.push_back({n + "_per_event", 1});
  }
  for (const CounterGroup& g : counters.groups) {
    std::vector<Cell> row;
    row.emplace_back(g.method);
    if (by_instruction) {
      row.emplace_back(static_cast<int64_t>(std::stoll(g.key)));
    } else {
      row.emplace_back(g.key);
    }
    row.emplace_back(g.device);
    row.emplace_back(static_cast<int64_t>(g.count));
    for (uint64_t total : g.totals) {
      row.emplace_back(static_cast<int64_t>(total));
      row.emplace_back(g.count == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(g.count));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

bool add_counter_columns(Table& stats, const ProfilerCounters& counters) {
  if (stats.columns.size() < 2 || counters.empty()) return false;
  const std::string key = stats.columns[1].name;
  if (key != "name" && key != "instruction" && key != "operator") return false;
  // Grouped by shape: device events are not counted, so no row could take a device's counters.
  if (stats.columns.size() > 2 && stats.columns[2].name == "input_shapes") return false;
  const bool by_instruction = key == "instruction";
  // The column holding each row's op (instruction rows: `device:<device>` for a device).
  size_t op_column = 0;
  for (size_t c = 0; c < stats.columns.size(); ++c) {
    if (stats.columns[c].name == "op") op_column = c;
  }
  if (by_instruction && op_column == 0) return false;
  constexpr std::string_view kDevice = "device:";
  const size_t first = stats.columns.size();
  for (const std::string& n : counters.names) {
    bool taken = false;
    for (size_t c = 0; c < first; ++c) {
      taken = taken || stats.columns[c].name == n || stats.columns[c].name == n + "_per_event";
    }
    const std::string name = taken ? "counter_" + n : n;
    stats.columns.push_back({name, 0});
    stats.columns.push_back({name + "_per_event", 1});
  }
  for (std::vector<Cell>& row : stats.rows) {
    const auto* method = std::get_if<std::string>(&row[0]);
    uint64_t count = 0;
    std::vector<uint64_t> totals(counters.names.size(), 0);
    for (const CounterGroup& g : counters.groups) {
      if (method == nullptr || g.method != *method) continue;
      bool match = false;
      if (key == "name") {
        const auto* name = std::get_if<std::string>(&row[1]);
        match = name != nullptr && *name == g.key;
      } else {
        const auto* op = std::get_if<std::string>(&row[key == "operator" ? 1 : op_column]);
        match = op != nullptr && op->starts_with(kDevice) && op->substr(kDevice.size()) == g.device;
        if (match && by_instruction) {
          const auto* instruction = std::get_if<int64_t>(&row[1]);
          match = instruction != nullptr && std::to_string(*instruction) == g.key;
        }
      }
      if (!match) continue;
      count += g.count;
      for (size_t i = 0; i < totals.size() && i < g.totals.size(); ++i) totals[i] += g.totals[i];
    }
    for (uint64_t total : totals) {
      if (count == 0) {
        row.emplace_back(std::monostate{});
        row.emplace_back(std::monostate{});
      } else {
        row.emplace_back(static_cast<int64_t>(total));
        row.emplace_back(static_cast<double>(total) / static_cast<double>(count));
      }
    }
  }
  return true;
}

}  // namespace etkit::inspect
