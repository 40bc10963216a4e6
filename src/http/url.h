// The target URL of a run, split into what the engine needs to connect and to build requests.
// Parsing happens once while the run is configured; Url is plain data (thread-safe to share).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace proofload::http {

struct Url {
  std::string scheme;          // "http" or "https" (lower-cased)
  std::string host;            // as written; an IPv6 literal without its brackets
  uint16_t port = 80;          // 80 (https: 443) unless the URL names another
  std::string path_and_query;  // the request target sent on the wire; "/" when empty
  std::string host_header;     // "host" or "host:port" ("[v6]" / "[v6]:port") for Host:

  bool tls() const { return scheme == "https"; }
};

// Parses "http[s]://host[:port][/path][?query][#fragment]" (the fragment is dropped: it is never
// sent). Throws UsageError with one line naming the URL and what is wrong with it.
Url parse_url(std::string_view text);

}  // namespace proofload::http
