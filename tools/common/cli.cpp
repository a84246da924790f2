#include "etkit/tools/cli.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "etkit/tools/diagnostics.h"

#ifndef ETKIT_VERSION
#error "ETKIT_VERSION is set by tools/CMakeLists.txt from the project version"
#endif

namespace etkit::tools {

namespace {

// "etdump-inspect diff" for a subcommand, "trace-run" for a tool.
std::string program_name(const CLI::App& app) {
  const CLI::App* parent = app.get_parent();
  return parent == nullptr ? app.get_name() : program_name(*parent) + " " + app.get_name();
}

bool looks_like_option(const std::string& token) {
  return token.size() > 1 && token[0] == '-' &&
         (std::isalpha(static_cast<unsigned char>(token[1])) ||
          (token[1] == '-' && token.size() > 2));
}

CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The option of `app` closest to `name` ("--job" -> "--jobs"), or "" when none is close.
std::string closest_option(const CLI::App& app, const std::string& name) {
  std::string best;
  // One edit for a short name, two for a long one: "--top" is not "--atol".
  size_t best_distance = name.size() >= 8 ? 3 : 2;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) {
      const size_t d = edit_distance(name, "--" + l);
      if (d < best_distance) {
        best_distance = d;
        best = "--" + l;
      }
    }
  }
  return best;
}

// A usage error found before CLI11 parses.
struct Unknown {
  CLI::App* app = nullptr;
  std::string message;
};

// The first option that its command does not have, or an unknown subcommand. Tokens are walked
// as CLI11 would: a subcommand name switches the command, "--" ends the options, and an option
// that takes a value consumes the next token unless it was given as --name=value or -xVALUE.
std::optional<Unknown> find_unknown(CLI::App& app, int argc, char** argv) {
  CLI::App* current = &app;
  const bool has_subcommands = !app.get_subcommands([](CLI::App*) { return true; }).empty();
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    if (token == "--") break;
    if (!looks_like_option(token)) {
      if (current == &app && has_subcommands) {
        CLI::App* sub = find_subcommand(app, token);
        if (sub == nullptr) {
          std::string names;
          for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) {
            names += (names.empty() ? "" : ", ") + s->get_name();
          }
          return Unknown{&app, "unknown subcommand '" + token + "' (subcommands: " + names + ")"};
        }
        current = sub;
      }
      continue;
    }
    const bool is_long = token[1] == '-';
    const size_t eq = token.find('=');
    const std::string name =
        is_long ? token.substr(0, eq) : token.substr(0, 2);  // -ofile is -o with "file"
    const bool value_attached = is_long ? eq != std::string::npos : token.size() > 2;
    const CLI::Option* opt = current->get_option_no_throw(name);
    if (opt == nullptr) {
      std::string message = "unknown option '" + name + "'";
      const std::string close = is_long ? closest_option(*current, name) : "";
      if (!close.empty()) message += "; did you mean '" + close + "'?";
      message += " (see '" + program_name(*current) + " --help')";
      return Unknown{current, message};
    }
    if (!value_attached && opt->get_items_expected_min() > 0) ++i;  // its value
  }
  return std::nullopt;
}

// The parsed (sub)command an error belongs to: the innermost one CLI11 selected.
const CLI::App& failing_app(const CLI::App& app) {
  const CLI::App* current = &app;
  while (!current->get_subcommands().empty()) current = current->get_subcommands().front();
  return *current;
}

std::string after_colon(const std::string& text) {
  const size_t colon = text.find(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

// What the user should read for a CLI11 error, in etkit's words where CLI11's are unclear.
std::string describe(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  // By type: CLI11 names some errors after the app that throws them.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // "The following argument(s) were not expected: b a" (CLI11 lists them last first).
    std::string list = after_colon(what);
    std::vector<std::string> args;
    for (size_t start = 0; start <= list.size();) {
      const size_t space = std::min(list.find(' ', start), list.size());
      if (space > start) args.push_back(list.substr(start, space - start));
      start = space + 1;
    }
    std::reverse(args.begin(), args.end());
    std::string text = args.size() == 1 ? "unexpected argument" : "unexpected arguments";
    for (size_t i = 0; i < args.size(); ++i) text += (i ? ", '" : " '") + args[i] + "'";
    return text + " (see '" + program_name(app) + " --help')";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    // "dumps is required", "A subcommand is required".
    const size_t is = what.rfind(" is required");
    if (is != std::string::npos && what.find(' ') == is) {
      return "missing argument '" + what.substr(0, is) + "' (see '" + program_name(app) +
             " --help')";
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    // "dumps: At least 2 required but received 1", "--format: 1 required TEXT missing".
    const std::string name = what.substr(0, what.find(": "));
    int expected = 0;
    unsigned long received = 0;
    const std::string rest = after_colon(what);
    if (std::sscanf(rest.c_str(), "At least %d required but received %lu", &expected,
                    &received) == 2) {
      return "expected at least " + std::to_string(expected) + " arguments for '" + name +
             "', got " + std::to_string(received);
    }
    if (std::sscanf(rest.c_str(), "At Most %d required but received %lu", &expected,
                    &received) == 2) {
      return "expected " + (expected == 1 ? std::string("one argument") :
                            "at most " + std::to_string(expected) + " arguments") +
             " for '" + name + "', got " + std::to_string(received);
    }
    if (rest.find(" required ") != std::string::npos && rest.find(" missing") != std::string::npos) {
      return "option '" + name + "' needs a value";
    }
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    // "Could not convert: --top = abc": say what the option takes.
    const size_t colon = what.find(": ");
    const size_t eq = what.find(" = ");
    if (colon != std::string::npos && eq != std::string::npos && eq > colon) {
      const std::string name = what.substr(colon + 2, eq - colon - 2);
      const std::string value = what.substr(eq + 3);
      std::string type;
      if (const CLI::Option* opt = app.get_option_no_throw(name)) type = opt->get_type_name();
      const std::string expected = type.rfind("UINT", 0) == 0  ? "a non-negative integer"
                                   : type.rfind("INT", 0) == 0 ? "an integer"
                                   : type.rfind("FLOAT", 0) == 0 ? "a number"
                                                                 : "a valid value";
      return name + ": '" + value + "' is not " + expected;
    }
  }
  if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) {
    // Our range checks say "must be ...": "--threshold must be >= 0".
    const size_t must = what.find(": must be ");
    if (must != std::string::npos) return what.substr(0, must) + what.substr(must + 1);
  }
  return what;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

// Empty when `text` is a number (an integer when `integer`), else why not.
std::string number_error(const std::string& text, bool integer, double& value) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (integer) {
    long long v = 0;
    auto [p, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc::result_out_of_range) return "'" + text + "' is out of range";
    if (ec != std::errc() || p != end) return "'" + text + "' is not an integer";
    value = static_cast<double>(v);
    return "";
  }
  auto [p, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || p != end || !std::isfinite(value)) return "'" + text + "' is not a number";
  return "";
}

}  // namespace

std::string_view etkit_version() { return ETKIT_VERSION; }

void add_version_flag(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " (etkit) " + std::string(etkit_version()),
                       "Print the version and exit");
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  // Help asked for next to a typo still gets help (CLI11 answers --help before anything else).
  bool help = false;
  for (int i = 1; i < argc && std::string(argv[i]) != "--"; ++i) {
    help |= std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h";
  }
  if (!help) {
    if (std::optional<Unknown> unknown = find_unknown(app, argc, argv)) {
      print_error(program_name(*unknown->app), unknown->message);
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    const bool top = app.get_subcommands().empty() &&
                     !app.get_subcommands([](CLI::App*) { return true; }).empty();
    if (top) {
      std::cout << app.help("", CLI::AppFormatMode::All);
      return kExitOk;
    }
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App& where = failing_app(app);
    if (help) {  // asked for help: give it, whatever else is wrong on the line
      const CLI::App* parent = where.get_parent();
      std::cout << (parent == nullptr ? where.help() : where.help(program_name(*parent)));
      return kExitOk;
    }
    print_error(program_name(where), describe(where, e));
    return kExitUsage;
  }
  return std::nullopt;
}

CLI::Validator at_least(double min, bool integer) {
  return CLI::Validator(
      [min, integer](std::string& text) -> std::string {
        double v = 0;
        if (std::string e = number_error(text, integer, v); !e.empty()) return e;
        return v >= min ? std::string() : "must be >= " + number_text(min);
      },
      ">= " + number_text(min));
}

CLI::Validator in_range(double min, double max, bool integer) {
  return CLI::Validator(
      [min, max, integer](std::string& text) -> std::string {
        double v = 0;
        if (std::string e = number_error(text, integer, v); !e.empty()) return e;
        return v >= min && v <= max
                   ? std::string()
                   : "must be between " + number_text(min) + " and " + number_text(max);
      },
      number_text(min) + " to " + number_text(max));
}

}  // namespace etkit::tools
