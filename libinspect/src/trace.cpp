#include "etkit/inspect/trace.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

namespace etkit::inspect {

const char* time_unit_name(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return "ns";
    case TimeUnit::Us: return "us";
    case TimeUnit::Ms: return "ms";
    case TimeUnit::S: return "s";
  }
  return "ns";
}

Result<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "ns") return TimeUnit::Ns;
  if (text == "us") return TimeUnit::Us;
  if (text == "ms") return TimeUnit::Ms;
  if (text == "s") return TimeUnit::S;
  return Error(ErrorCode::InvalidArgument, "unknown time unit '%.*s' (expected ns, us, ms or s)",
               static_cast<int>(text.size()), text.data());
}

double from_ns(double ns, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return ns;
    case TimeUnit::Us: return ns / 1e3;
    case TimeUnit::Ms: return ns / 1e6;
    case TimeUnit::S: return ns / 1e9;
  }
  return ns;
}

namespace {

constexpr std::string_view kNativeCallPrefix = "native_call_";
constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

// Method and load flag from a block name (see the header comment).
std::pair<std::string, bool> method_of(const std::string& name) {
  constexpr std::string_view kLoadSuffix = ":load";
  if (name == "Default") return {"Execute", true};
  if (name.size() > kLoadSuffix.size() &&
      std::string_view(name).substr(name.size() - kLoadSuffix.size()) == kLoadSuffix) {
    return {name.substr(0, name.size() - kLoadSuffix.size()), true};
  }
  return {name, false};
}

// Raw (start ticks, elapsed ticks) of an event, unwrapping a 32-bit counter.
Result<std::pair<uint64_t, uint64_t>> span_of(const ProfileEvent& e) {
  if (e.end_time >= e.start_time) return std::pair{e.start_time, e.end_time - e.start_time};
  if (e.start_time <= kMax32 && e.end_time <= kMax32) {
    return std::pair{e.start_time, (kMax32 - e.start_time) + e.end_time};
  }
  return Error(ErrorCode::InvalidData, "end time %llu is before start time %llu",
               static_cast<unsigned long long>(e.end_time),
               static_cast<unsigned long long>(e.start_time));
}

}  // namespace

namespace {

// The join. With `consume`, each block's events are freed once joined, so that the dump and the
// trace are never both whole in memory; otherwise `dump` is only read.
Result<Trace> join(ETDump& dump, const std::string& path, bool consume) {
  Trace trace;
  trace.path = path;
  if (auto it = dump.metadata.find("ticks_per_second"); it != dump.metadata.end()) {
    uint64_t tps = 0;
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), tps);
    if (ec != std::errc() || end != text.data() + text.size() || tps == 0) {
      return Error(ErrorCode::InvalidData,
                   "%s: metadata ticks_per_second '%s' is not a positive integer", path.c_str(),
                   text.c_str());
    }
    trace.ticks_per_second = static_cast<double>(tps);
    trace.ticks_recorded = true;
  }
  const double ns_per_tick = 1e9 / trace.ticks_per_second;

  // A first pass checks every span and finds the dump's first start.
  uint64_t first_start = std::numeric_limits<uint64_t>::max();
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      Result<std::pair<uint64_t, uint64_t>> span = span_of(e.profile);
      // The file position counts the metadata block only when it precedes this one; etkit
      // writes it last, so block indices are file indices.
      if (!span.ok()) return span.error().with_context("%s: run %zu event %zu", path.c_str(), b, i);
      first_start = std::min(first_start, span->first);
    }
  }

  trace.blocks.reserve(dump.blocks.size());
  std::map<std::string, uint32_t> executions;  // method -> execution blocks seen
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    TraceBlock tb;
    tb.name = block.name;
    std::tie(tb.method, tb.load) = method_of(block.name);
    if (!tb.load) tb.iteration = executions[tb.method]++;
    tb.first_event = trace.events.size();

    std::vector<TraceEvent> events;
    std::vector<uint64_t> raw_start;
    std::vector<uint64_t> raw_end;
    events.reserve(block.events.size());
    raw_start.reserve(block.events.size());
    raw_end.reserve(block.events.size());
    for (size_t i = 0; i < block.events.size(); ++i) {
      const Event& e = block.events[i];
      if (e.kind != Event::Kind::Profile) continue;
      const ProfileEvent& p = e.profile;
      TraceEvent te;
      te.block = static_cast<uint32_t>(b);
      te.index = static_cast<uint32_t>(i);
      te.chain = p.chain_index;
      te.instruction = p.chain_index < 0 ? -1 : p.instruction_id;
      if (p.delegate_debug_id_int != -1) {
        te.delegate_id = std::to_string(p.delegate_debug_id_int);
      } else if (!p.delegate_debug_id_str.empty()) {
        te.delegate_id = p.delegate_debug_id_str;
      }
      te.delegate = !te.delegate_id.empty();
      te.name = p.name.empty() ? te.delegate_id : p.name;
      const std::pair<uint64_t, uint64_t> span = *span_of(p);  // checked above
      te.start_ns = static_cast<double>(span.first - first_start) * ns_per_tick;
      te.duration_ns = static_cast<double>(span.second) * ns_per_tick;
      raw_start.push_back(span.first);
      raw_end.push_back(span.first + span.second);
      events.push_back(std::move(te));
    }

    // Operators per (chain, instruction), from native_call_<op> events.
    std::map<std::pair<int32_t, int32_t>, std::string> ops;
    for (const TraceEvent& te : events) {
      if (te.instruction < 0 || te.delegate) continue;
      if (std::string_view(te.name).substr(0, kNativeCallPrefix.size()) == kNativeCallPrefix) {
        ops.emplace(std::pair{te.chain, te.instruction}, te.name.substr(kNativeCallPrefix.size()));
      }
    }
    for (TraceEvent& te : events) {
      if (te.delegate || te.name == "DELEGATE_CALL") {
        te.op = "delegate";
      } else if (te.instruction >= 0) {
        if (auto it = ops.find({te.chain, te.instruction}); it != ops.end()) te.op = it->second;
      }
    }

    // Start order; on equal starts the longer (enclosing) first; on equal intervals the one
    // later in the file (the parent) first.
    std::vector<size_t> order(events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      if (raw_start[x] != raw_start[y]) return raw_start[x] < raw_start[y];
      if (raw_end[x] != raw_end[y]) return raw_end[x] > raw_end[y];
      return x > y;
    });
    const size_t base = trace.events.size();
    std::vector<size_t> stack;  // positions (in `order`) of the open enclosing events
    std::vector<uint64_t> stack_end;
    for (size_t pos = 0; pos < order.size(); ++pos) {
      TraceEvent ev = std::move(events[order[pos]]);
      const uint64_t end = raw_end[order[pos]];
      // Profiler events (`prof:<device>:...`) are device time: they take no part in the host's
      // nesting, so they neither parent nor shorten host events (formats/README.md).
      if (ev.delegate && ev.name.compare(0, 5, "prof:") == 0) {
        ev.self_ns = ev.duration_ns;
        trace.events.push_back(std::move(ev));
        continue;
      }
      while (!stack.empty() && stack_end.back() < end) {
        stack.pop_back();
        stack_end.pop_back();
      }
      // Starts are sorted, so an open event whose end is >= this end contains it.
      ev.self_ns = ev.duration_ns;
      if (!stack.empty()) {
        ev.parent = static_cast<int32_t>(base + stack.back());
        ev.depth = static_cast<uint32_t>(stack.size());
        trace.events[base + stack.back()].self_ns -= ev.duration_ns;
      }
      stack.push_back(pos);
      stack_end.push_back(end);
      trace.events.push_back(std::move(ev));
    }
    tb.num_events = trace.events.size() - tb.first_event;

    uint32_t value_index = 0;
    for (const Event& e : block.events) {
      if (e.kind != Event::Kind::Debug) continue;
      const DebugEvent& d = e.debug;
      TraceValue v;
      v.block = static_cast<uint32_t>(b);
      v.index = value_index++;
      const bool in_instruction = d.chain_index <= static_cast<uint64_t>(INT32_MAX);
      v.instruction = in_instruction ? d.instruction_id : -1;
      if (in_instruction) {
        const auto chain = static_cast<int32_t>(d.chain_index);
        if (auto it = ops.find({chain, d.instruction_id}); it != ops.end()) v.op = it->second;
      }
      if (d.delegate_debug_id_int != -1) {
        v.delegate_id = std::to_string(d.delegate_debug_id_int);
      } else {
        v.delegate_id = d.delegate_debug_id_str;
      }
      v.name = d.name;
      v.is_output = d.value.is_output;
      v.kind = d.value.kind;
      switch (d.value.kind) {
        case LoggedValue::Kind::Int: v.scalar = static_cast<double>(d.value.int_value); break;
        case LoggedValue::Kind::Bool: v.scalar = d.value.bool_value ? 1 : 0; break;
        case LoggedValue::Kind::Float:
        case LoggedValue::Kind::Double: v.scalar = d.value.double_value; break;
        default: break;
      }
      if (d.value.tensors.empty()) {
        trace.values.push_back(std::move(v));
        continue;
      }
      for (size_t t = 0; t < d.value.tensors.size(); ++t) {
        TraceValue tv = v;
        tv.list_index = static_cast<uint32_t>(t);
        tv.tensor = d.value.tensors[t];
        trace.values.push_back(std::move(tv));
      }
    }
    trace.blocks.push_back(std::move(tb));
    if (consume) std::vector<Event>().swap(dump.blocks[b].events);
  }
  return trace;
}

}  // namespace

Result<Trace> build_trace(const ETDump& dump, const std::string& path) {
  // join() only writes to the dump when it consumes it.
  return join(const_cast<ETDump&>(dump), path, false);
}

Result<Trace> build_trace(ETDump&& dump, const std::string& path) {
  return join(dump, path, true);
}

Result<Trace> load_trace(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(ETDump dump, read_etdump_file(path));
  return build_trace(std::move(dump), path);
}

Error name_operators(Trace& trace, const Program& program) {
  std::map<std::string, std::vector<std::string>> names;  // method -> instruction names
  auto lookup = [&](const std::string& method) -> Result<const std::vector<std::string>*> {
    if (auto it = names.find(method); it != names.end()) return &it->second;
    std::string name = method;
    std::string all;
    bool found = false;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      const std::string_view candidate = program.method_name(m);
      all += (all.empty() ? "'" : ", '") + std::string(candidate) + "'";
      if (candidate == method) found = true;
    }
    if (!found && method == "Execute") {
      bool has_forward = false;
      for (size_t m = 0; m < program.num_methods(); ++m) {
        has_forward = has_forward || program.method_name(m) == "forward";
      }
      if (has_forward) {
        name = "forward";
        found = true;
      } else if (program.num_methods() == 1) {
        name = std::string(program.method_name(0));
        found = true;
      }
    }
    if (!found) {
      return Error(ErrorCode::NotFound, "%s: method '%s' is not in the program (methods: %s)",
                   trace.path.c_str(), method.c_str(), all.c_str());
    }
    ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(name));
    std::vector<std::string> list(meta.num_instructions());
    for (size_t i = 0; i < list.size(); ++i) list[i] = meta.instruction_name(i);
    return &names.emplace(method, std::move(list)).first->second;
  };
  auto name_of = [&](uint32_t block, int32_t chain, int32_t instruction,
                     std::string& op) -> Error {
    if (chain != 0 || instruction < 0) return Error();
    ETKIT_ASSIGN_OR_RETURN(const std::vector<std::string>* list,
                           lookup(trace.blocks[block].method));
    if (static_cast<size_t>(instruction) >= list->size()) {
      return Error(ErrorCode::InvalidData,
                   "%s: block %u has instruction %d but method '%s' has %zu instructions (was "
                   "the dump made with this program?)",
                   trace.path.c_str(), block, instruction, trace.blocks[block].method.c_str(),
                   list->size());
    }
    op = (*list)[static_cast<size_t>(instruction)];
    return Error();
  };
  for (TraceEvent& e : trace.events) {
    if (e.delegate) continue;  // a delegate's own events keep operator "delegate"
    ETKIT_TRY(name_of(e.block, e.chain, e.instruction, e.op));
  }
  for (TraceValue& v : trace.values) {
    // Values carry no chain; logged values come from chain 0 in exported programs.
    ETKIT_TRY(name_of(v.block, 0, v.instruction, v.op));
  }
  return Error();
}

Result<std::vector<size_t>> select_events(const Trace& trace, const EventSelection& selection) {
  std::unique_ptr<RE2> regex;
  if (!selection.name_regex.empty()) {
    RE2::Options options;
    options.set_log_errors(false);
    regex = std::make_unique<RE2>(selection.name_regex, options);
    if (!regex->ok()) {
      return Error(ErrorCode::InvalidArgument, "bad --name regex '%s': %s",
                   selection.name_regex.c_str(), regex->error().c_str());
    }
  }
  std::vector<size_t> out;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const TraceBlock& block = trace.blocks[b];
    if (selection.block >= 0 && static_cast<size_t>(selection.block) != b) continue;
    if (!selection.method.empty() && block.method != selection.method) continue;
    if (!selection.include_load && block.load) continue;
    for (size_t i = block.first_event; i < block.first_event + block.num_events; ++i) {
      if (regex && !RE2::FullMatch(trace.events[i].name, *regex)) continue;
      out.push_back(i);
    }
  }
  return out;
}

}  // namespace etkit::inspect
