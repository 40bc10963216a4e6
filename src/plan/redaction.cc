// See redaction.h.
#include "plan/redaction.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/text.h"

namespace proofload::plan {
namespace {

std::vector<std::string> g_redacted_names;    // lower case, from --redact
std::vector<std::string> g_sensitive_values;  // longest first: one that holds another goes whole

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

}  // namespace

void redact_header(std::string_view name) { g_redacted_names.push_back(ascii_lowercase(name)); }

void remember_sensitive_value(std::string_view value) {
  if (value.empty()) return;
  g_sensitive_values.emplace_back(value);
  std::stable_sort(g_sensitive_values.begin(), g_sensitive_values.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

bool is_sensitive_header(std::string_view name) {
  const std::string key = ascii_lowercase(name);
  static const std::set<std::string, std::less<>> kStated = {"authorization", "proxy-authorization",
                                                             "cookie", "x-api-key"};
  return kStated.count(key) > 0 ||
         std::find(g_redacted_names.begin(), g_redacted_names.end(), key) != g_redacted_names.end();
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

std::string sensitive_variables_note(const std::vector<std::string>& variables) {
  if (variables.empty()) return "";
  std::string names;
  for (const std::string& v : variables) names += (names.empty() ? "" : ", ") + v;
  return "  # set " + names +
         " first: " + (variables.size() > 1 ? "their values are" : "its value is") +
         " not recorded";
}

std::string without_sensitive_values(std::string text) {
  for (const std::string& value : g_sensitive_values) {
    for (size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + 10)) {
      text.replace(at, value.size(), "[redacted]");
    }
  }
  return text;
}

}  // namespace proofload::plan
