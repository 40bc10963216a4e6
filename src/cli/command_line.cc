// See command_line.h.
#include "cli/command_line.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>


namespace proofload::cli {
namespace {

std::string g_command_line;
std::vector<std::string> g_redacted_names;   // lower case, from --redact
std::vector<std::string> g_sensitive_values;  // what without_sensitive_values replaces

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

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

// AUTHORIZATION for Authorization, X_API_KEY for X-Api-Key.
std::string variable_for(std::string_view name) {
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "H_" + out;
  return out;
}

// The -H values of argv, whichever way each was written ("-H V", "-HV", "--header V",
// "--header=V"), and the names given to --redact ("--redact N", "--redact=N").
void scan_arguments(int argc, char** argv, std::vector<std::string>& headers) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_next = i + 1 < argc;
    if ((arg == "-H" || arg == "--header") && has_next) {
      headers.emplace_back(argv[++i]);
    } else if (arg.starts_with("--header=")) {
      headers.emplace_back(arg.substr(9));
    } else if (arg.starts_with("-H") && arg.size() > 2) {
      headers.emplace_back(arg.substr(2));
    } else if (arg == "--redact" && has_next) {
      g_redacted_names.push_back(lower(argv[++i]));
    } else if (arg.starts_with("--redact=")) {
      g_redacted_names.push_back(lower(arg.substr(9)));
    }
  }
}

}  // namespace

std::string shell_quote(const std::string& arg) {
  bool plain = !arg.empty() && arg.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789-_./:=,@%+") == std::string::npos;
  if (plain) return arg;
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

bool is_sensitive_header(std::string_view name) {
  const std::string key = lower(name);
  static const std::set<std::string, std::less<>> kStated = {"authorization",
                                                             "proxy-authorization", "cookie",
                                                             "x-api-key"};
  return kStated.count(key) > 0 ||
         std::find(g_redacted_names.begin(), g_redacted_names.end(), key) !=
             g_redacted_names.end();
}

std::string shown_header_argument(const std::string& header, std::vector<std::string>& variables) {
  const std::string_view name = name_of(header);
  if (name.empty() || !is_sensitive_header(name)) return shell_quote(header);
  // Inside double quotes a shell expands $, ` and \ : a name holding one (tokens may) is shown
  // with a placeholder instead of a variable.
  if (name.find_first_of("$`\\\"!'") != std::string_view::npos) {
    return shell_quote(std::string(name) + ": [redacted]");
  }
  const std::string variable = variable_for(name);
  if (std::find(variables.begin(), variables.end(), variable) == variables.end()) {
    variables.push_back(variable);
  }
  return "\"" + std::string(name) + ": $" + variable + "\"";
}

std::string without_sensitive_values(std::string text) {
  for (const std::string& value : g_sensitive_values) {
    for (size_t at = text.find(value); at != std::string::npos;
         at = text.find(value, at + 10)) {
      text.replace(at, value.size(), "[redacted]");
    }
  }
  return text;
}

std::string sensitive_variables_note(const std::vector<std::string>& variables) {
  if (variables.empty()) return "";
  std::string names;
  for (const std::string& v : variables) names += (names.empty() ? "" : ", ") + v;
  return "  # set " + names + " first: " +
         (variables.size() > 1 ? "their values are" : "its value is") + " not recorded";
}

void remember_command_line(int argc, char** argv) {
  std::vector<std::string> headers;
  scan_arguments(argc, argv, headers);
  for (const std::string& header : headers) {
    const std::string_view value = value_of(header);
    if (!value.empty() && is_sensitive_header(name_of(header))) {
      g_sensitive_values.emplace_back(value);
    }
  }
  // Longest first: a value that holds another is replaced whole.
  std::sort(g_sensitive_values.begin(), g_sensitive_values.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });

  std::vector<std::string> variables;
  g_command_line = "proofload";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "-H" || arg == "--header") && i + 1 < argc) {
      g_command_line += " " + arg + " " + shown_header_argument(argv[++i], variables);
    } else if (arg.starts_with("--header=")) {
      g_command_line += " --header=" + shown_header_argument(arg.substr(9), variables);
    } else if (arg.starts_with("-H") && arg.size() > 2) {
      g_command_line += " -H" + shown_header_argument(arg.substr(2), variables);
    } else {
      // Any other argument is shown as given, a sensitive value in it (a hook's curl) replaced.
      g_command_line += " " + shell_quote(without_sensitive_values(arg));
    }
  }
  g_command_line += sensitive_variables_note(variables);
}

const std::string& command_line() { return g_command_line; }

}  // namespace proofload::cli
