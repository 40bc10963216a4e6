// See read_step.h.
#include "engine/read_step.h"

namespace proofload::engine {

ReadStep on_response_bytes(http::ResponseParser& parser, const char* data, size_t size,
                           bool request_sent) {
  auto result = parser.feed(data, size);
  if (result.state == http::ResponseParser::State::kError) return ReadStep::kProtocolError;
  if (result.state == http::ResponseParser::State::kNeedMore) return ReadStep::kNeedMore;
  // Bytes after the response we asked for: a server we cannot trust on this connection.
  if (result.consumed < size) return ReadStep::kProtocolError;
  // An answer that came before the whole request was written (a 413, say) leaves the server
  // reading the rest: the connection cannot carry another request.
  return parser.keep_alive() && request_sent ? ReadStep::kCompleteReusable
                                             : ReadStep::kCompleteNotReusable;
}

ReadStep on_response_eof(http::ResponseParser& parser, bool without_close_notify) {
  if (parser.finish_eof().state != http::ResponseParser::State::kComplete) return ReadStep::kReset;
  // Only a body delimited by the close completes at the end of the stream. Without close_notify
  // an attacker or a proxy may have ended it anywhere (curl judges it so); a body with a length
  // or chunks was judged by its framing before.
  return without_close_notify ? ReadStep::kTruncated : ReadStep::kCompleteNotReusable;
}

}  // namespace proofload::engine
