// URL parsing for the target of a run (configuration time only, so it may throw and allocate).
// Stateless; thread-safe.
#include "http/url.h"

#include <string>

#include "common/usage_error.h"
#include "common/text.h"

namespace proofload::http {
namespace {

constexpr uint16_t kDefaultHttpPort = 80;
constexpr uint16_t kDefaultHttpsPort = 443;

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw UsageError("malformed URL '" + printable(text) + "': " + std::string(why));
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Bytes that would break the request line (or smuggle headers) if sent as the target.
bool is_forbidden_in_target(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte <= 0x20 || byte == 0x7f;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A registered name (DNS name or IPv4 literal): letters, digits, '-', '.', '_'.
bool is_valid_reg_name(std::string_view host) {
  for (char c : host) {
    if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

bool is_valid_ipv6_literal(std::string_view host) {
  if (host.find(':') == std::string_view::npos) return false;
  for (char c : host) {
    if (!is_hex(c) && c != ':' && c != '.') return false;
  }
  return true;
}

uint16_t parse_port(std::string_view text, std::string_view port_text) {
  if (port_text.empty()) fail(text, "empty port after ':'");
  uint64_t port = 0;
  for (char c : port_text) {
    if (!is_digit(c)) fail(text, "invalid port '" + printable(port_text) + "'");
    port = port * 10 + static_cast<uint64_t>(c - '0');
    if (port > 65535) break;  // stop before overflow; the message quotes the text as written
  }
  if (port == 0 || port > 65535) {
    throw UsageError("port " + printable(port_text) + " out of range (1-65535) in URL '" +
                     printable(text) + "'");
  }
  return static_cast<uint16_t>(port);
}

}  // namespace

Url parse_url(std::string_view text) {
  if (text.empty()) throw UsageError("malformed URL '': empty");

  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {
    fail(text, "missing scheme (expected http://host[:port]/path)");
  }
  Url url;
  url.scheme = to_lower(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") {
    fail(text, "unsupported scheme '" + printable(url.scheme) + "' (http:// or https://)");
  }
  const uint16_t default_port = url.scheme == "https" ? kDefaultHttpsPort : kDefaultHttpPort;

  const std::string_view rest = text.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

  if (authority.find('@') != std::string_view::npos) {
    fail(text, "credentials in the URL are not supported (send them with -H 'Authorization: ...')");
  }
  if (authority.empty()) fail(text, "missing host");

  std::string_view host;
  std::string_view port_text;
  bool has_port = false;
  bool is_ipv6 = false;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) fail(text, "missing ']' after IPv6 address");
    host = authority.substr(1, close - 1);
    is_ipv6 = true;
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') fail(text, "unexpected text after ']'");
      has_port = true;
      port_text = after.substr(1);
    }
    if (!is_valid_ipv6_literal(host)) fail(text, "invalid IPv6 address '" + printable(host) + "'");
  } else {
    const size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = authority.substr(colon + 1);
    }
    if (host.empty()) fail(text, "missing host");
    if (!is_valid_reg_name(host)) fail(text, "invalid host '" + printable(host) + "'");
  }
  if (host.empty()) fail(text, "missing host");

  url.host = std::string(host);
  url.port = has_port ? parse_port(text, port_text) : default_port;

  // The fragment is for the client only; it is never part of the request target.
  const size_t fragment = target.find('#');
  if (fragment != std::string_view::npos) target = target.substr(0, fragment);
  for (char c : target) {
    if (is_forbidden_in_target(c)) {
      fail(text, "space or control character in the path (percent-encode it, e.g. %20)");
    }
  }
  if (target.empty()) {
    url.path_and_query = "/";
  } else if (target.front() == '?') {
    url.path_and_query = "/" + std::string(target);
  } else {
    url.path_and_query = std::string(target);
  }

  url.host_header = is_ipv6 ? "[" + url.host + "]" : url.host;
  if (url.port != default_port) url.host_header += ":" + std::to_string(url.port);
  return url;
}

}  // namespace proofload::http
