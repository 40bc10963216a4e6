// Small text helpers the parsers of user input share (thresholds, SLOs, abort rules, tables),
// and the grouping of printed numbers their messages use.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace proofload {

constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// `text` without the spaces, tabs and line ends around it.
constexpr std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// Equal but for ASCII case: header names, keywords (other bytes compare as they are).
constexpr bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// RFC 9110 tchar: the characters of a method or a header name.
constexpr bool is_http_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// An RFC 9110 token (a method, a header name): one or more tchars.
constexpr bool is_http_token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_http_token_char(c)) return false;
  }
  return true;
}

// `text` without the spaces and tabs around it (an HTTP field value's optional white space).
constexpr std::string_view trim_spaces_tabs(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Text from outside (a URL given, a name in a pod's tarball) made safe to quote in a one-line
// message on a terminal: control bytes shown as \r, \n, \t or \xNN, so an escape sequence
// is seen, never obeyed.
inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

// ASCII lower case (names and keywords are ASCII; other bytes pass through).
inline std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A printed number with thousands separators in its whole part: "4579.3" -> "4,579.3",
// "-1234567" -> "-1,234,567".
inline std::string group_thousands(std::string number) {
  const size_t start = !number.empty() && number[0] == '-' ? 1 : 0;
  size_t end = number.find('.');
  if (end == std::string::npos) end = number.size();
  for (size_t at = end; at > start + 3; at -= 3) number.insert(at - 3, ",");
  return number;
}

// `arg` as one word for a POSIX shell: as it is when made only of characters a shell leaves
// alone, else single-quoted.
std::string shell_quote(const std::string& arg);

// How many single-letter edits (insert, delete, replace, swap two neighbours) turn `a` into `b`,
// ignoring ASCII case (optimal string alignment): how "did you mean" suggestions measure a typo.
size_t edit_distance(std::string_view a, std::string_view b);

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or npos when the whole text is.
size_t first_invalid_utf8(std::string_view text);

// A label value in the Prometheus and OpenMetrics text formats: backslash, double quote and
// newline escaped (the built-in server's /metrics, --metrics-listen, `export --format
// openmetrics`).
std::string escape_label_value(std::string_view value);

}  // namespace proofload
