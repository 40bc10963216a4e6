// What the worker makes of the bytes a server sent for the response it waits for, one read at a
// time (Worker::read_response): kept apart from the socket so that the same decisions are driven
// by fuzz/response_read_fuzz.cc with a hostile server's bytes.
#pragma once

#include <cstddef>

#include "http/response_parser.h"

namespace proofload::engine {

enum class ReadStep {
  kNeedMore,             // the response is not complete: read again
  kCompleteReusable,     // complete; the connection may carry the next request
  kCompleteNotReusable,  // complete; the connection must be closed (close, HTTP/1.0, early answer)
  kProtocolError,        // malformed, or bytes after the response: the connection is not trusted
  kReset,                // the peer closed before the response was complete
  kTruncated,            // TLS: a body delimited by the close, ended by a bare FIN without the
                         // server's close_notify: nothing says it is whole
};

// One read's bytes (`size` > 0). `request_sent`: the whole request had been written.
ReadStep on_response_bytes(http::ResponseParser& parser, const char* data, size_t size,
                           bool request_sent);
// The peer closed its side (a read returned 0). `without_close_notify`: a TLS stream ended by a
// bare FIN (Transport::closed_without_close_notify); the framing says whether that matters.
ReadStep on_response_eof(http::ResponseParser& parser, bool without_close_notify);

}  // namespace proofload::engine
