// `etdump-inspect values DUMP [--debug-buffer BIN] [--save DIR]`: the logged values with their
// statistics; `compare A B`: the numeric gap between two runs' values.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "etdump_inspect.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/inspect/compare.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/values.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "etkit/inspect/operator_naming.h"

namespace etkit::tools {

namespace {

struct ValuesOptions : DumpOptions {
  std::string debug_buffer;
  std::string save_dir;
};

struct CompareOptions : DumpOptions {
  std::string debug_buffer_a;
  std::string debug_buffer_b;
  std::string debug_map_a;
  std::string debug_map_b;
  double atol = 1e-8;
  double rtol = 1e-5;
  bool allow_unmatched = false;
};

bool has_tensors(const inspect::Trace& trace) {
  for (const inspect::TraceValue& v : trace.values) {
    if (v.kind == inspect::LoggedValue::Kind::Tensor ||
        v.kind == inspect::LoggedValue::Kind::TensorList) {
      return true;
    }
  }
  return false;
}

// Opens `given`, or the default beside the dump at `dump_path` when it exists, or an empty
// buffer (with a warning when the dump has tensors). Returns false with a diagnostic printed on
// error.
bool open_buffer(const std::string& given, const std::string& dump_path, bool tensors,
                 inspect::DebugBuffer& buffer) {
  std::string path = given;
  if (path.empty()) {
    path = debug_buffer_path_for(dump_path);  // where trace-run writes it
    if (!std::filesystem::exists(path)) {
      if (tensors) {
        print_warning(kEtdumpInspect, dump_path + ": no debug buffer (" + path +
                                          " does not exist): tensor statistics are missing");
      }
      buffer = inspect::DebugBuffer();
      return true;
    }
  }
  Result<inspect::DebugBuffer> r = inspect::DebugBuffer::open(path);
  if (!r.ok()) {
    print_error(kEtdumpInspect, r.error().message());
    return false;
  }
  buffer = std::move(r).get();
  return true;
}

bool open_buffer(const std::string& given, const inspect::Trace& trace,
                 inspect::DebugBuffer& buffer) {
  return open_buffer(given, trace.path, has_tensors(trace), buffer);
}

// The blocks --method and --block select (all when neither is given).
std::vector<bool> selected_blocks(const inspect::Trace& trace, const DumpOptions& options) {
  std::vector<bool> blocks(trace.blocks.size(), false);
  for (size_t b = 0; b < blocks.size(); ++b) {
    blocks[b] = (options.block < 0 || static_cast<size_t>(options.block) == b) &&
                (options.method.empty() || trace.blocks[b].method == options.method);
  }
  return blocks;
}

// Without --program and --debug-map, the table goes straight from each block's join to stdout
// and tensors are saved block by block: the joined trace is never held (DESIGN.md section 5).
// The dump is opened (and so checked), the selection checked and the buffer opened before
// anything is written, as the joined path does, so errors and output are the same.
int values_streamed(const ValuesOptions& options) {
  int code = kExitOk;
  std::optional<inspect::TraceReader> reader = open_one_dump(options, code);
  if (!reader) return code;
  const inspect::Trace skeleton = reader->skeleton();
  const std::vector<bool> blocks = selected_blocks(skeleton, options);
  inspect::DebugBuffer buffer;
  if (!open_buffer(options.debug_buffer, skeleton.path, reader->has_tensor_values(), buffer)) {
    return kExitUsage;
  }
  if (!options.save_dir.empty()) {
    const Error made = ensure_directory(options.save_dir);
    if (!made.ok()) return report(kEtdumpInspect, made);
    for (const Error& e :
         inspect::save_value_tensors(*reader, buffer, blocks, options.save_dir)) {
      print_warning(kEtdumpInspect, e.message());
    }
  }
  inspect::RenderOptions render_options;
  render_options.warnings = dump_warnings(skeleton);  // JSON carries them too
  for (const std::string& w : render_options.warnings) print_warning(kEtdumpInspect, w);
  auto write = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };
  const Error e = inspect::write_values_table(*reader, buffer, blocks,
                                              *inspect::parse_format(options.format),
                                              render_options, write);
  if (!e.ok()) return report(kEtdumpInspect, e);
  return kExitOk;
}

// Prints the diagnostic of an incomplete or partly unmatched comparison and returns the exit
// code of its verdict: the same for the joined and the streamed path.
int compare_verdict(const inspect::CompareCounts& r, const inspect::Trace& a,
                    const inspect::Trace& b, const inspect::MethodMap& methods,
                    bool allow_unmatched) {
  const inspect::Verdict verdict = r.verdict(allow_unmatched);
  const std::string why = inspect::compare_incomplete_text(r, a, b, methods);
  if (!why.empty()) {
    if (verdict == inspect::Verdict::Incomplete) {
      print_error(kEtdumpInspect, "compare: incomplete: " + why +
                                      (r.matched > 0 ? " (--allow-unmatched accepts them)" : ""));
    } else {
      print_warning(kEtdumpInspect, "compare: " + why);
    }
  }
  return verdict_exit_code(verdict);
}

// Without debug maps and --program, the rows go straight to stdout as each block of A is joined
// with B's blocks it can match (`write_compare`): neither joined trace nor the table is held
// (DESIGN.md section 5). Dumps, the method map and the buffers are opened and
// checked in the joined path's order, so errors and output are the same.
int compare_streamed(const CompareOptions& options, const inspect::MethodMap& methods) {
  int code = kExitOk;
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, code)) return code;
  // Each dump's pages are given back once it is opened (checked), and `write_compare` keeps
  // only a block of each resident, so the two dumps are not both resident.
  Result<inspect::TraceReader> reader_a = open_dump(options.dumps[0], stdin_bytes);
  if (!reader_a.ok()) return report(kEtdumpInspect, reader_a.error());
  reader_a->release_pages();
  Result<inspect::TraceReader> reader_b = open_dump(options.dumps[1], stdin_bytes);
  if (!reader_b.ok()) return report(kEtdumpInspect, reader_b.error());
  reader_b->release_pages();
  const inspect::Trace skeleton_a = reader_a->skeleton();
  const inspect::Trace skeleton_b = reader_b->skeleton();
  if (const Error e = inspect::check_method_map(methods, skeleton_a, skeleton_b); !e.ok()) {
    print_error(kEtdumpInspect, e.message());
    return kExitUsage;
  }
  // Warm-up and iterations are chosen as for the other subcommands (`keep_selected_values`).
  const inspect::EventSelection selection = event_selection(options, false);
  inspect::StreamedValueSource a{&*reader_a, nullptr, {}};
  inspect::StreamedValueSource b{&*reader_b, nullptr, {}};
  inspect::DebugBuffer buffer_a, buffer_b;
  for (auto [source, skeleton, buffer, given] :
       {std::tuple(&a, &skeleton_a, &buffer_a, &options.debug_buffer_a),
        std::tuple(&b, &skeleton_b, &buffer_b, &options.debug_buffer_b)}) {
    bool tensors = false;
    source->blocks.resize(skeleton->blocks.size());
    for (size_t i = 0; i < skeleton->blocks.size(); ++i) {
      source->blocks[i] = inspect::block_selected(*skeleton, i, selection);
      tensors = tensors || (source->blocks[i] && source->reader->block_summary(i).tensor_values);
    }
    if (!open_buffer(*given, skeleton->path, tensors, *buffer)) return kExitUsage;
    source->buffer = buffer;
  }
  inspect::RenderOptions render_options;  // JSON carries the warnings too
  std::vector<std::string>& warnings = render_options.warnings;
  warnings = dump_warnings(skeleton_a);
  for (std::string& w : dump_warnings(skeleton_b)) warnings.push_back(std::move(w));
  for (const std::string& w : warnings) print_warning(kEtdumpInspect, w);
  inspect::Tolerance tolerance;
  tolerance.atol = options.atol;
  tolerance.rtol = options.rtol;
  auto write = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };
  Result<inspect::CompareCounts> r =
      inspect::write_compare(a, b, tolerance, methods, options.allow_unmatched,
                             *inspect::parse_format(options.format), render_options, write);
  if (!r.ok()) return report(kEtdumpInspect, r.error());
  return compare_verdict(*r, skeleton_a, skeleton_b, methods, options.allow_unmatched);
}

}  // namespace

Subcommand add_values(CLI::App& app) {
  auto options = std::make_shared<ValuesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "values", "List logged values with dtype, shape, min, max, mean, std and NaN/Inf counts");
  cmd->add_option("dumps", options->dumps, "ETDump file")->required()->expected(1);
  cmd->add_option("--debug-buffer", options->debug_buffer,
                  "Debug buffer of the dump (default NAME.debug.bin beside it)");
  cmd->add_option("--save", options->save_dir,
                  "Write each tensor as DIR/b<block>_v<value>[_<i>].npy (DIR is created)");
  cmd->add_option("--method", options->method, "Only blocks of method NAME");
  cmd->add_option("--block", options->block, "Only block N (0-based, file order)")
      ->check(at_least(0, true));
  cmd->add_option("--format", options->format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  return {cmd, [options]() {
            if (options->program.empty() && options->debug_map.empty()) {
              return values_streamed(*options);
            }
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            std::optional<inspect::DebugMap> map;
            if (!load_debug_map(*options, map, code)) return code;
            const inspect::DebugMap* m = map ? &*map : nullptr;
            if (!load_dumps(*options, 1, traces, code, m)) return code;
            const inspect::Trace& trace = traces[0];
            std::vector<size_t> unused;
            if (!select(trace, *options, false, unused)) return kExitUsage;
            const std::vector<bool> blocks = selected_blocks(trace, *options);
            inspect::DebugBuffer buffer;
            if (!open_buffer(options->debug_buffer, trace, buffer)) return kExitUsage;
            if (!options->save_dir.empty()) {
              const Error made = ensure_directory(options->save_dir);
              if (!made.ok()) return report(kEtdumpInspect, made);
              for (const Error& e :
                   inspect::save_value_tensors(trace, buffer, blocks, options->save_dir)) {
                print_warning(kEtdumpInspect, e.message());
              }
            }
            print_tables(table_list(inspect::values_table(trace, buffer, blocks, m)),
                         *inspect::parse_format(options->format), dump_warnings(trace));
            return kExitOk;
          }};
}

Subcommand add_compare(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare the logged values of two runs: MSE, max abs error, SNR, cosine "
                 "similarity (exit 1 when a value is past tolerance, 4 when nothing matched or "
                 "a value has no counterpart)");
  cmd->add_option("dumps", options->dumps, "Dumps A (reference) and B")->required()->expected(2);
  cmd->add_option("--debug-buffer-a", options->debug_buffer_a,
                  "Debug buffer of A (default NAME.debug.bin beside it)");
  cmd->add_option("--debug-buffer-b", options->debug_buffer_b,
                  "Debug buffer of B (default NAME.debug.bin beside it)");
  cmd->add_option("--atol", options->atol, "Absolute tolerance (default 1e-8)")
      ->check(at_least(0, false));
  cmd->add_option("--rtol", options->rtol, "Relative tolerance (default 1e-5)")
      ->check(at_least(0, false));
  cmd->add_option("--format", options->format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  cmd->add_flag("--allow-unmatched", options->allow_unmatched,
                "Accept values of one dump that have no counterpart in the other (still exit 4 "
                "when nothing matched)");
  add_method_map_flag(*cmd, *options,
                      "Pair B's blocks of method B with A's of method A (e.g. Execute=forward; "
                      "repeatable)");
  add_program_flag(*cmd, *options);
  cmd->add_option("--debug-map", options->debug_map,
                  "Debug map of both dumps (one program, two builds or runs): match values by "
                  "debug handle");
  cmd->add_option("--debug-map-a", options->debug_map_a,
                  "Debug map of A (with --debug-map-b: match values by debug handle)");
  cmd->add_option("--debug-map-b", options->debug_map_b,
                  "Debug map of B (with --debug-map-a: match values by debug handle)");
  add_iteration_flags(*cmd, *options);
  return {cmd, [options]() {
            // Each side's map: its own flag, else --debug-map; both or neither.
            const std::string path_a =
                options->debug_map_a.empty() ? options->debug_map : options->debug_map_a;
            const std::string path_b =
                options->debug_map_b.empty() ? options->debug_map : options->debug_map_b;
            if (path_a.empty() != path_b.empty()) {
              print_error(kEtdumpInspect,
                          std::string("compare: a debug map for ") + (path_a.empty() ? "B" : "A") +
                              " only; give one for " + (path_a.empty() ? "A (--debug-map-a)"
                                                                        : "B (--debug-map-b)") +
                              " too, or --debug-map for both");
              return kExitUsage;
            }
            std::optional<inspect::DebugMap> map_a, map_b;
            int code = kExitOk;
            if (!load_debug_map(path_a, map_a, code) || !load_debug_map(path_b, map_b, code)) {
              return code;
            }
            inspect::MethodMap methods;
            if (!method_map(*options, methods)) return kExitUsage;
            if (!map_a && !map_b && options->program.empty()) {
              return compare_streamed(*options, methods);
            }
            std::vector<inspect::Trace> traces;
            if (!load_dumps(options->dumps, 2, traces, code)) return code;
            if (const Error e = inspect::check_method_map(methods, traces[0], traces[1]);
                !e.ok()) {
              print_error(kEtdumpInspect, e.message());
              return kExitUsage;
            }
            if (!name_operators(std::span(traces).first(1), *options,
                                map_a ? &*map_a : nullptr, code) ||
                !name_operators(std::span(traces).subspan(1), *options,
                                map_b ? &*map_b : nullptr, code)) {
              return code;
            }
            // Warm-up and iterations are chosen as for the other subcommands.
            for (inspect::Trace& t : traces) {
              inspect::keep_selected_values(t, event_selection(*options, false));
            }
            inspect::DebugBuffer buffer_a, buffer_b;
            if (!open_buffer(options->debug_buffer_a, traces[0], buffer_a) ||
                !open_buffer(options->debug_buffer_b, traces[1], buffer_b)) {
              return kExitUsage;
            }
            inspect::Tolerance tolerance;
            tolerance.atol = options->atol;
            tolerance.rtol = options->rtol;
            inspect::CompareResult r = inspect::compare_values(
                {&traces[0], &buffer_a, map_a ? &*map_a : nullptr},
                {&traces[1], &buffer_b, map_b ? &*map_b : nullptr}, tolerance, methods);
            inspect::Table summary = inspect::compare_summary_table(r, options->allow_unmatched);
            print_tables(table_list(std::move(r.table), std::move(summary)),
                         *inspect::parse_format(options->format), dump_warnings(traces));
            return compare_verdict(r, traces[0], traces[1], methods, options->allow_unmatched);
          }};
}

}  // namespace etkit::tools
