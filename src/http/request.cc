// Request building and -H parsing (configuration time only, so it may throw and allocate).
// Stateless; thread-safe.
#include "http/request.h"

#include "common/text.h"

#include <algorithm>
#include <string>

#include "common/usage_error.h"

#ifndef PROOFLOAD_VERSION
#error "PROOFLOAD_VERSION must be defined by the build (see src/http/CMakeLists.txt)"
#endif

namespace proofload::http {
namespace {


// A field value is visible characters, spaces and tabs (RFC 9110 5.5): CR and LF would end the
// header early and let a value inject headers, NUL breaks servers, and no other control
// character (nor DEL) belongs in one.
bool has_forbidden_value_char(std::string_view value) {
  return std::any_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void validate_header(std::string_view name, std::string_view value) {
  if (name.empty()) throw UsageError("invalid header: empty name");
  if (!is_token(name)) {
    throw UsageError("invalid header name '" + printable(name) +
                     "' (letters, digits and !#$%&'*+-.^_`|~ only)");
  }
  if (has_forbidden_value_char(value)) {
    throw UsageError("invalid value for header '" + printable(name) +
                     "': a control character inside (CR, LF, NUL, ...: only visible characters, "
                     "spaces and tabs); the value is not shown, it may be a secret");
  }
}

void append_header(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.append(": ");
  out.append(value);
  out.append("\r\n");
}

}  // namespace

bool is_token(std::string_view s) { return is_http_token(s); }

std::string_view default_user_agent() { return "proofload/" PROOFLOAD_VERSION; }

// Errors name the header, never its value: a rejected -H 'Authorization: ...' must not print
// the token.
std::pair<std::string, std::string> parse_header_flag(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw UsageError("invalid header: expected 'Name: value', and there is no ':' (the text is "
                     "not shown, it may be a secret)");
  }
  const std::string_view name = text.substr(0, colon);
  if (name.empty()) throw UsageError("invalid header: empty name before ':'");
  if (!is_token(name)) {
    throw UsageError("invalid header name '" + printable(name) +
                     "': it may hold only letters, digits and !#$%&'*+-.^_`|~ (no spaces "
                     "before ':')");
  }
  const std::string_view value = trim_ows(text.substr(colon + 1));
  validate_header(name, value);
  return {std::string(name), std::string(value)};
}

std::string build_request(const RequestSpec& spec) {
  if (!is_token(spec.method)) {
    throw UsageError("invalid HTTP method '" + printable(spec.method) +
                     "' (expected a token such as GET)");
  }
  const std::string* user_host = nullptr;
  bool has_user_agent = false;
  const std::string* user_content_length = nullptr;
  for (const auto& [name, value] : spec.headers) {
    validate_header(name, value);
    if (iequals(name, "Host")) {
      if (user_host != nullptr) throw UsageError("header 'Host' given more than once");
      user_host = &value;
    } else if (iequals(name, "User-Agent")) {
      has_user_agent = true;
    } else if (iequals(name, "Content-Length")) {
      if (user_content_length != nullptr) {
        throw UsageError("header 'Content-Length' given more than once");
      }
      user_content_length = &value;
    } else if (iequals(name, "Transfer-Encoding")) {
      throw UsageError(
          "header 'Transfer-Encoding' is not supported: bodies are sent with Content-Length");
    }
  }

  const bool method_expects_body =
      spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  const std::string body_length = std::to_string(spec.body.size());
  if (user_content_length != nullptr && *user_content_length != body_length) {
    // A wrong length would desynchronize the connection and turn every later response into a
    // protocol error, so refuse it up front.
    throw UsageError("header 'Content-Length: " + printable(*user_content_length) +
                     "' does not match the body (" + body_length + " bytes)");
  }

  std::string out;
  out.reserve(128 + spec.url.path_and_query.size() + spec.body.size());
  out.append(spec.method);
  out.push_back(' ');
  out.append(spec.url.path_and_query);
  out.append(" HTTP/1.1\r\n");
  // Host goes first (RFC 9112 asks clients to send it first), the user's value if given.
  append_header(out, "Host", user_host != nullptr ? *user_host : spec.url.host_header);
  if (!has_user_agent) append_header(out, "User-Agent", default_user_agent());
  if (user_content_length == nullptr && (!spec.body.empty() || method_expects_body)) {
    append_header(out, "Content-Length", body_length);
  }
  for (const auto& [name, value] : spec.headers) {
    if (iequals(name, "Host")) continue;
    append_header(out, name, value);
  }
  out.append("\r\n");
  out.append(spec.body);
  return out;
}

}  // namespace proofload::http
