// See command_line.h.
#include "cli/command_line.h"

#include <string_view>
#include <vector>

#include "common/text.h"
#include "plan/redaction.h"

namespace proofload::cli {
namespace {

std::string g_command_line;
std::vector<std::string> g_arguments;

// The part of "Name: value" after the colon, without its leading blanks.
std::string_view value_of(std::string_view header) {
  const size_t colon = header.find(':');
  if (colon == std::string_view::npos) return {};
  std::string_view value = header.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  return value;
}

std::string_view name_of(std::string_view header) {
  const size_t colon = header.find(':');
  return colon == std::string_view::npos ? std::string_view{} : header.substr(0, colon);
}

// A header given whole as an argument's value: -H's, and a probe's --variant (the same form).
bool takes_header(std::string_view arg) {
  return arg == "-H" || arg == "--header" || arg == "--variant";
}

// The -H (and --variant) values of argv, whichever way each was written, and the names given
// to --redact ("--redact N", "--redact=N"): the names first, since they decide which values
// are secret.
std::vector<std::string> scan_arguments(int argc, char** argv) {
  std::vector<std::string> headers;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_next = i + 1 < argc;
    if (takes_header(arg) && has_next) {
      headers.emplace_back(argv[++i]);
    } else if (arg.starts_with("--header=")) {
      headers.emplace_back(arg.substr(9));
    } else if (arg.starts_with("--variant=")) {
      headers.emplace_back(arg.substr(10));
    } else if (arg.starts_with("-H") && arg.size() > 2) {
      headers.emplace_back(arg.substr(2));
    } else if (arg == "--redact" && has_next) {
      plan::redact_header(argv[++i]);
    } else if (arg.starts_with("--redact=")) {
      plan::redact_header(arg.substr(9));
    }
  }
  return headers;
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  for (const std::string& header : scan_arguments(argc, argv)) {
    if (plan::is_sensitive_header(name_of(header))) {
      plan::remember_sensitive_value(value_of(header));
    }
  }
  g_arguments.assign(argv + 1, argv + argc);
  std::vector<std::string> variables;
  g_command_line = "proofload";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (takes_header(arg) && i + 1 < argc) {
      g_command_line += " " + arg + " " + plan::shown_header_argument(argv[++i], variables);
    } else if (arg.starts_with("--header=")) {
      g_command_line += " --header=" + plan::shown_header_argument(arg.substr(9), variables);
    } else if (arg.starts_with("--variant=")) {
      g_command_line += " --variant=" + plan::shown_header_argument(arg.substr(10), variables);
    } else if (arg.starts_with("-H") && arg.size() > 2) {
      g_command_line += " -H" + plan::shown_header_argument(arg.substr(2), variables);
    } else {
      // Any other argument is shown as given, a sensitive value in it (a hook's curl) replaced.
      g_command_line += " " + shell_quote(plan::without_sensitive_values(arg));
    }
  }
  g_command_line += plan::sensitive_variables_note(variables);
}

const std::vector<std::string>& command_arguments() { return g_arguments; }

const std::string& command_line() { return g_command_line; }

}  // namespace proofload::cli
