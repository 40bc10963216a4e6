// A server's bytes on an HTTP/2 connection (which proofload never trusts), fed to the client's
// H2Session in pieces the first byte sizes, with two streams open: frames of any kind, order or
// size are counted outcomes or a failed connection, never a crash; what is kept of a response
// stays within its capture and header bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "http/h2_session.h"

namespace {

using proofload::http::H2End;
using proofload::http::H2RequestHead;
using proofload::http::H2Session;
using proofload::http::H2Settings;
using proofload::http::H2Stream;

void check(const H2Stream& stream, const H2Settings& settings) {
  if (stream.body.size() > stream.capture.max_body_bytes) std::abort();
  if (stream.header_bytes > settings.max_header_bytes + 64 * 1024) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  ++data;
  --size;
  H2Settings settings;
  settings.max_header_bytes = 4096;
  H2Session session(settings);
  H2RequestHead head;
  if (!head.parse("GET /a HTTP/1.1\r\nHost: h\r\nUser-Agent: f\r\n\r\n", "http")) std::abort();
  H2Stream first, second;
  session.submit(first, head, {true, 64});
  session.submit(second, head, {false, 0});
  session.wrote(session.output().size());
  for (size_t at = 0; at < size; at += piece) {
    const size_t n = at + piece <= size ? piece : size - at;
    const bool alive = session.receive(reinterpret_cast<const char*>(data + at), n, 1);
    session.wrote(session.output().size());
    for (H2Stream* ended : session.ended()) {
      if (ended->end == H2End::kOpen) std::abort();
      check(*ended, settings);
    }
    session.ended().clear();
    if (at == piece) session.cancel(second);
    if (!alive || session.finished()) break;
  }
  check(first, settings);
  return 0;
}
