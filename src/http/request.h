// What one request of a run looks like, and its bytes on the wire, built once at configuration
// time (the engine then writes the same bytes for every request, as wrk does). Thread-safe:
// plain data and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/url.h"

namespace proofload::http {

struct RequestSpec {
  std::string method = "GET";
  Url url;
  std::vector<std::pair<std::string, std::string>> headers;  // the user's, in their order
  std::string body;
};

// RFC 9110 token: what a method or a header name may be (not empty).
bool is_token(std::string_view s);

// "proofload/<version>": sent as User-Agent unless the user sets one.
std::string_view default_user_agent();

// Parses one -H flag, "Name: value" (whitespace around the value is trimmed; the value may be
// empty). Throws UsageError for a missing colon, an empty or invalid name, or CR/LF/NUL.
std::pair<std::string, std::string> parse_header_flag(std::string_view text);

// The complete request bytes: request line, Host (the user's if set, else the URL's), User-Agent
// (unless set), Content-Length when there is a body or the method is POST/PUT/PATCH, the user's
// other headers in order, a blank line, the body. Throws UsageError for an invalid method or
// header, several Host headers, a Content-Length that disagrees with the body, or a
// Transfer-Encoding header (bodies are always sent with Content-Length).
std::string build_request(const RequestSpec& spec);

}  // namespace proofload::http
