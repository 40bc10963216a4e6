// An HTTP/2 request's header list, taken from the request's HTTP/1.1 bytes.
//
// Requests are rendered once, as HTTP/1.1: templates, variables and secrets have one renderer,
// and over HTTP/1.1 the engine writes those bytes as they are (the fast path). Over HTTP/2 the
// method, target and header lines are read back from them (no allocation once the buffers have
// grown): Host becomes :authority, names are lowercased, and the connection-specific headers
// HTTP/2 forbids (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade) are left
// out. Not thread-safe (one per stream slot).
#pragma once

#include <nghttp2/nghttp2.h>

#include <string>
#include <string_view>
#include <vector>

namespace proofload::http {

class H2RequestHead {
 public:
  // Reads `request` (a request line, header lines, a blank line, then the body). `scheme` is
  // "http" or "https". False when the bytes are not such a request (what proofload renders always
  // is; the fuzzer feeds anything).
  bool parse(std::string_view request, std::string_view scheme);

  const nghttp2_nv* headers() const { return nv_.data(); }
  size_t header_count() const { return nv_.size(); }
  std::string_view body() const { return body_; }
  std::string_view method() const { return method_; }

 private:
  void add(std::string_view name, std::string_view value);

  std::vector<nghttp2_nv> nv_;  // points into lower_ and the request's bytes
  std::string lower_;           // lowercased names; reserved up front so pointers stay put
  std::string_view body_;
  std::string_view method_;
};

}  // namespace proofload::http
