// What the engine is asked to do: the target, the workload, the executor and its limits.
// Plain data, filled in by the CLI (from flags and a scenario file); the engine only reads it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/io_backend.h"
#include "net/tcp.h"
#include "net/tls.h"
#include "schedule/rate_profile.h"
#include "workload/stream_slo.h"
#include "workload/stream_tracker.h"
#include "workload/workload.h"

namespace proofload::engine {

enum class Executor {
  kClosedLoop,  // N connections, each sending its next request when the answer arrives
  kOpenLoop,    // requests start on an arrival schedule, whatever happened before
};

enum class Protocol : uint8_t {
  kHttp11,  // one request in flight per connection
  kHttp2,   // up to h2_streams requests in flight per connection, each a stream
};

// How the engine sends, as a run asks it: the timeouts, the grace at the end. plan::RunSpec holds
// one and the LoadSpec gets it whole, so an option of this kind is a field here, its declaration
// in plan/run_settings_connection.cc (flag, help, check, record, Reproduce) and the engine's use.
struct SendOptions {
  int64_t connect_timeout_ns = 5'000'000'000;
  int64_t request_timeout_ns = 10'000'000'000;  // also the longest a request may queue
  int64_t grace_ns = 5'000'000'000;  // after the schedule ends (or Ctrl-C): time for in-flight
                                     // requests to finish before they count as timeouts
  // --no-connection-reuse: HTTP/1.1 connections carry one request each (it asks
  // `Connection: close`), closed after its answer whatever the server says.
  bool reuse_connections = true;
  // --h2-window: the flow-control window each HTTP/2 stream is given
  // (SETTINGS_INITIAL_WINDOW_SIZE): a server sends at most this much of a response before the
  // client's WINDOW_UPDATE. Unset: http::H2Settings's, large enough that flow control never holds a
  // response.
  std::optional<int32_t> h2_stream_window_bytes;
  bool operator==(const SendOptions&) const = default;
};

struct LoadSpec {
  net::Address address;  // resolved once, before anything is sent
  // `run --target` given more than once: every target's address, in order. Connection i, counted
  // across the workers (an HTTP/2 link, likewise), connects to targets[i % n], so the split over
  // targets is fixed per connection and even. Empty: every connection goes to `address`.
  std::vector<net::Address> targets;
  // https: the TLS context every connection handshakes with (shared, immutable); null for http.
  std::shared_ptr<const net::TlsContext> tls;
  // What to send: one fixed request (Workload::fixed) or a compiled scenario. Shared, immutable.
  std::shared_ptr<const workload::Workload> workload;
  // `--stream sse|chunked`: every response is read as a stream, event by event (StreamBody); its
  // ends, events, tokens and times go into each window's `streams`. Null: bodies are counted,
  // unless a scenario's request is a stream itself (CompiledRequest::stream, which wins).
  std::shared_ptr<const workload::StreamRules> stream;
  // `--stream-idle-timeout`: a stream that has begun (its first byte came) and then gets no byte
  // for this long ends as idle (the request as a timeout). 0: only the request timeout applies.
  int64_t stream_idle_timeout_ns = 0;
  // `--goodput`: the per-stream SLO a completed stream must meet to count as goodput. Null: none.
  std::shared_ptr<const workload::StreamSlo> stream_goodput;

  Protocol protocol = Protocol::kHttp11;
  // HTTP/2: streams per connection (never more than the server's SETTINGS allow). Every count
  // of connections below then counts connections, each carrying this many stream slots: in
  // closed loop a slot is a virtual user, in open loop the dispatcher hands work to free slots.
  int h2_streams = 1;

  Executor executor = Executor::kClosedLoop;
  // Closed loop: number of connections over time. Open loop: arrival rate (requests/s).
  schedule::Profile profile = schedule::Profile::constant(1, 0);
  int connections = 10;             // closed loop: ceiling of the profile; open loop: initial pool
  int max_connections = 10;         // open loop: the pool may grow to this
  int64_t queue_capacity = 10'000;  // open loop: requests that may wait for a connection
  int64_t max_requests = 0;         // -n: stop after this many requests (0: no limit)

  int64_t warmup_ns = 0;  // recorded apart, excluded from results (whole windows)
  int64_t window_ns = 1'000'000'000;
  SendOptions send;
  int workers = 1;
  // `--io`: what the workers' sockets go through (net/load_loop.h). Chosen before the run: the
  // CLI falls back to epoll, saying so, where io_uring is not to be had.
  net::IoBackend io = net::IoBackend::kEpoll;
  // `--segment I/N`: this process runs segment `segment` of `segments` of one load spread over
  // several machines. Every share (connections, the pool, the queue, -n, the data cursors and
  // the random streams) is then taken as if the whole load ran as segments * workers shards,
  // this process holding shards segment + segments * w for its workers w = 0 .. workers-1:
  // connection c belongs to segment c mod N and open-loop arrival k to segment k mod N, so the
  // N segments' shares are integers that add up to the whole, and together they produce the one
  // schedule exactly (schedule/arrivals.h).
  int segment = 0;
  int segments = 1;
  // Local addresses the connections are bound to: worker i connects from sources[i] (workers is
  // then sources.size()), and each window counts what a rate limit did per source
  // (WindowStats::sources). Empty: the kernel picks the address.
  std::vector<net::Address> sources;
  // Keep the first and last values of rate-limit headers (Retry-After, RateLimit-*) per source:
  // every response's header lines are then captured (a probe's runs only).
  bool watch_limit_headers = false;
};

}  // namespace proofload::engine
