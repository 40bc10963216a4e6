// What a user asks of one run, typed: where the load goes, what it sends, its shape and length,
// its limits, what is observed and where the results go. The CLI turns flags (and a scenario
// file's settings) into one; an experiment varies a field of it (a level's rate or connections,
// its duration) and plans that run, never formatting a number back into a flag. Everything it
// says is checked by plan_run (plan_run.h), before anything is sent. Plain data. Each setting's
// flag, help, reading, check, record and Reproduce form is declared once, in the table of
// run_settings*.cc.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "engine/load_spec.h"
#include "net/tls.h"
#include "schedule/stages.h"
#include "workload/scenario.h"

namespace proofload::plan {

// Limits that every way of asking for a load meets (flags, scenario files, ladder levels): a
// rate is at most kMaxRatePerS (common/units.h), connections at most kMaxConnections, and
// warm-up plus duration at most kMaxRunNs.
constexpr int kMaxConnections = 1'000'000;
// HTTP/2: streams per connection; connections times streams is at most kMaxConnections too.
constexpr int kMaxH2Streams = 1000;
// A load from more local addresses than this is a list gone wrong: each has its own thread.
constexpr size_t kMaxSources = 64;
constexpr int64_t kMaxRunNs = int64_t{10} * 365 * 24 * 3600 * kNsPerS;  // ten years

struct RunSpec {
  // Where the load goes: the URL as given, or the scenario's `target:` (target_from_scenario).
  std::string target;
  bool target_from_scenario = false;
  // `--target` given more than once: the targets after the first. Each has the first's scheme
  // and path (and, over https, its host): only the address differs. The request is built once,
  // with the first target's Host header; connection i goes to target i mod n (LoadSpec::targets).
  std::vector<std::string> more_targets;
  // A scenario file's requests, mix and data, or null for one fixed request.
  std::shared_ptr<const workload::Scenario> scenario;
  // A plain run's request (a scenario sets each request's method and body itself).
  std::string method = "GET";
  std::optional<std::string> body;
  std::optional<std::string> body_file;  // its path: read when the run is planned
  // -H: a plain run's headers, or added to a scenario's defaults (replacing one of the same name).
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<uint64_t> seed;  // the data and mix draws; nullopt: from the clock when planned
  // https: verification, SNI, client certificate, minimum version, resumption (--cacert,
  // --insecure, --sni, --cert, --key, --tls-min, --no-tls-resume). Refused for an http target.
  net::TlsOptions tls;
  // --http2: HTTP/2 (ALPN h2 over https, prior knowledge over http); --h2-streams: requests in
  // flight on each connection.
  engine::Protocol protocol = engine::Protocol::kHttp11;
  std::optional<int> h2_streams;
  // --stream sse|chunked: every response read as a stream (engine::LoadSpec::stream), with the
  // events that carry content (--stream-content: a JSON pointer or a regex), the token count the
  // server reports (--stream-tokens), the terminator event's data (--stream-end) and a fixture
  // (--stream-fixture). A scenario's own `stream:` requests are read by theirs.
  std::optional<workload::StreamSpec> stream;
  std::optional<int64_t> stream_idle_timeout_ns;  // --stream-idle-timeout
  std::optional<std::string> goodput;              // --goodput: the per-stream SLO as written

  engine::Executor executor = engine::Executor::kClosedLoop;
  int connections = 10;                   // closed loop: connections; open loop: the initial pool
  std::optional<int> max_connections;     // open loop: the pool may grow to this
  std::optional<double> rate_per_s;       // open loop at a constant rate
  std::vector<schedule::Stage> stages;    // a staged load: rates or connections
  std::optional<int64_t> duration_ns;     // nullopt: until requests_limit, else 10 s
  int64_t warmup_ns = 0;                  // rounded up to whole windows when planned
  std::optional<int64_t> requests_limit;  // -n
  int64_t queue = 10'000;                 // open loop: requests that may wait
  engine::SendOptions send;               // --timeout, --connect-timeout, --grace
  int workers = 0;                      // 0: one per core (never more than connections)
  // --io: what the workers' sockets go through; nullopt: epoll (net::choose_io_backend says
  // why), decided at pre-flight, where io_uring not to be had falls back to epoll.
  std::optional<net::IoBackend> io;
  // --sources: local addresses the connections are bound to, one worker each (the connections,
  // rate and -n are split evenly over them); each window counts per source what a rate limit
  // did (engine::LoadSpec::sources). Empty: the kernel picks the address.
  std::vector<std::string> sources;
  // --segment I/N: this machine's share of one load run by N machines (engine::LoadSpec::segment:
  // connections, arrivals, -n, data rows), and of --sources (source j goes to segment j mod N;
  // segment_sources). 0 of 1: the whole load.
  int segment = 0;
  int segments = 1;
  // --start-at: the wall-clock moment (Unix ns) the load starts, so that segments on several
  // machines start together; nullopt: as soon as it is ready.
  std::optional<int64_t> start_at_wall_ns;
  // A probe's runs: keep rate-limit headers' first and last values per source.
  bool watch_limit_headers = false;
  std::vector<std::string> thresholds;  // --threshold, checked after the scenario's
  std::vector<std::string> observe;     // --observe specs
  int64_t observe_every_ns = kNsPerS;
  // --reconcile: where the server's own count is read before the load and after it drained, to set
  // against the run's successes (observe/reconcile_source.h); checked when the run starts.
  std::optional<std::string> reconcile;

  std::optional<std::filesystem::path> out_dir;
  bool quiet = false;  // no live progress line
};

}  // namespace proofload::plan
