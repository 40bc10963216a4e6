// See plan_run.h. Every check of a run's settings is here, so a level of an experiment meets
// the same ones as a run typed by hand.
#include "plan/plan_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "common/file_text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "http/h2_check.h"
#include "http/request.h"
#include "http/url.h"
#include "net/load_loop.h"
#include "net/tcp.h"
#include "net/transport.h"
#include "plan/run_settings.h"
#include "plan/scenario_parts.h"
#include "plan/segment.h"
#include "result/spec_record.h"
#include "schedule/arrivals.h"
#include "schedule/open_loop_dispatcher.h"
#include "workload/secrets.h"

namespace proofload::plan {
namespace {

// A request body is held once per connection's send buffer: 64 MiB is far past any real one.
constexpr int64_t kMaxBodyFileBytes = int64_t{64} << 20;
// Without -d, a run bounded by -n runs until its requests are done; otherwise 10 s.
constexpr int64_t kUnboundedNs = int64_t{365} * 24 * 3600 * kNsPerS;
constexpr int64_t kDefaultDurationNs = 10 * kNsPerS;
// Descriptors besides the connections: stdio, epoll, eventfds, result files, observers.
constexpr int64_t kSpareDescriptors = 64;

bool open_loop(const RunSpec& spec) { return spec.executor == engine::Executor::kOpenLoop; }

double peak_of(const std::vector<schedule::Stage>& stages) {
  double peak = 0;
  for (const schedule::Stage& s : stages) peak = std::max(peak, s.target);
  return peak;
}

int64_t most_connections(const RunSpec& spec) {
  const int connections = !spec.stages.empty() && !open_loop(spec)
                              ? static_cast<int>(peak_of(spec.stages))
                              : spec.connections;
  return std::max(connections, spec.max_connections.value_or(connections));
}

// What only settings together forbid; each setting's own check is its declaration's
// (run_settings*.cc), run first.
void check(const RunSpec& spec) {
  if (spec.target.empty()) throw UsageError("run needs a URL or a scenario file");
  check_settings(spec);
  if (spec.tls != net::TlsOptions{} && !http::parse_url(spec.target).tls()) {
    throw UsageError(
        "--cacert, --insecure, --sni, --cert, --key, --tls-min and --no-tls-resume "
        "are for an https:// target, not '" +
        spec.target + "'");
  }
  if (spec.body && spec.body_file) {
    throw UsageError("--body and --body-file both set the body: use one");
  }
  if (spec.scenario && (spec.method != "GET" || spec.body || spec.body_file)) {
    throw UsageError(
        "-m, --body and --body-file set the request of a plain run; a scenario "
        "file sets each request's method and body");
  }
  if (spec.rate_per_s && !spec.stages.empty()) {
    throw UsageError("--rate and --stages both set the load: use --stages with --executor open");
  }
  if (open_loop(spec) && !spec.rate_per_s && spec.stages.empty()) {
    throw UsageError("open loop needs --rate R (requests/s) or --stages");
  }
  if (!open_loop(spec) && spec.rate_per_s) {
    throw UsageError("--rate sets an open-loop schedule: drop --executor closed or --rate");
  }
  if (spec.duration_ns && !spec.stages.empty()) {
    throw UsageError("-d and --stages both set the duration: use one");
  }
  int64_t stages_ns = 0;
  for (const schedule::Stage& s : spec.stages) {
    // A stage's target is a rate (open loop) or connections: the same caps as --rate and -c.
    const double cap = open_loop(spec) ? kMaxRatePerS : kMaxConnections;
    if (s.target > cap) {
      throw UsageError(fmt::format("--stages target {} is above {} {}", s.target, cap,
                                   open_loop(spec) ? "requests/s" : "connections"));
    }
    stages_ns += s.duration_ns;
    if (stages_ns > kMaxRunNs) throw UsageError("--stages last more than ten years");
  }
  if (most_connections(spec) < static_cast<int64_t>(spec.sources.size())) {
    throw UsageError(
        fmt::format("--sources: each of the {} sources needs a connection of its "
                    "own, so -c must be at least {}",
                    spec.sources.size(), spec.sources.size()));
  }
  check_segment(spec, most_connections(spec));
}

// The measured length a run is scheduled for.
int64_t scheduled_duration_ns(const RunSpec& spec) {
  if (spec.duration_ns) return *spec.duration_ns;

  return spec.requests_limit ? kUnboundedNs : kDefaultDurationNs;
}

// The TLS the load's connections use: what was asked, with ALPN for the protocol.
net::TlsOptions load_tls(const RunSpec& spec) {
  net::TlsOptions tls = spec.tls;
  if (spec.protocol == engine::Protocol::kHttp2) tls.alpn = {"h2"};
  return tls;
}

// A text recorded as null when empty.
result::Field<std::string> text_or_null(const std::string& text) {
  return result::Field<std::string>::or_null(text.empty() ? std::nullopt
                                                          : std::optional<std::string>(text));
}

// result.json's spec.tls: what was asked of TLS; the version and ALPN the pre-flight handshake
// agreed are added when the run is aimed. null for an http target.
result::Field<result::SpecTls> tls_record(const net::TlsOptions& tls,
                                          const net::TlsContext* context) {
  if (context == nullptr) return result::Field<result::SpecTls>::null();
  result::SpecTls out;
  out.verify = tls.verify;
  out.ca_file = text_or_null(tls.ca_file);
  out.server_name = context->verify_name();
  out.client_certificate = text_or_null(tls.cert_file);
  out.min_version = std::string(net::tls_version_name(tls.min_version));
  out.resume = tls.resume;
  out.version = result::Field<std::string>::null();
  out.alpn = result::Field<std::string>::null();
  return out;
}

// The streams a run reads: --stream's rules for every response, or a scenario's own `stream:`
// requests; the idle timeout and the --goodput SLO with them. The recorded spec's `stream` (absent:
// nothing streams; result.json then has no summary.streams).
result::Field<result::SpecStream> plan_streams(const RunSpec& spec, engine::LoadSpec& load) {
  const bool scenario_streams = load.workload && load.workload->has_streams();
  if (!spec.stream && !scenario_streams) {
    if (spec.stream_idle_timeout_ns) throw UsageError("--stream-idle-timeout needs --stream");
    if (spec.goodput) throw UsageError("--goodput needs --stream (or a scenario's stream:)");
    return {};
  }
  if (spec.protocol == engine::Protocol::kHttp2) {
    // HTTP/2 has no chunks: its DATA frames are the transport's, not the server's events.
    bool chunked = spec.stream && spec.stream->kind == "chunked";
    for (const workload::CompiledRequest& r : load.workload->requests()) {
      chunked = chunked || (r.stream && r.stream->kind == workload::StreamKind::kChunked);
    }
    if (chunked) {
      throw UsageError("a chunked stream is HTTP/1.1's (HTTP/2 has no chunks): read it as sse, "
                       "or drop --http2");
    }
  }
  result::SpecStream out;
  if (spec.stream) {
    load.stream = std::make_shared<const workload::StreamRules>(
        workload::compile_stream_rules(*spec.stream, "--stream"));
    out.kind = spec.stream->kind;
    out.content = result::Field<std::string>::or_null(spec.stream->content);
    out.tokens = result::Field<std::string>::or_null(spec.stream->tokens);
    out.terminator = load.stream->terminator;
    if (!spec.stream->fixture_path.empty()) out.fixture = spec.stream->fixture_path;
  } else {
    std::vector<std::string> names;
    for (const workload::CompiledRequest& r : load.workload->requests()) {
      if (r.stream) names.push_back(r.name);
    }
    out.kind = std::string("per request");
    out.requests = std::move(names);
  }
  if (spec.stream_idle_timeout_ns) {
    if (*spec.stream_idle_timeout_ns <= 0) {
      throw UsageError("--stream-idle-timeout must be more than 0");
    }
    load.stream_idle_timeout_ns = *spec.stream_idle_timeout_ns;
    out.idle_timeout_s = static_cast<double>(*spec.stream_idle_timeout_ns) / 1e9;
  }
  if (spec.goodput) {
    load.stream_goodput =
        std::make_shared<const workload::StreamSlo>(workload::StreamSlo::parse(*spec.goodput));
    out.goodput = load.stream_goodput->text();
  }
  return out;
}

}  // namespace

void check_metric_source(const measure::MetricRef& metric, const std::string& what,
                         const RunSpec& spec) {
  if (metric.needs_reconcile() && !spec.reconcile) {
    throw UsageError(what +
                     " needs --reconcile: the server's count to set the successes against");
  }
  if (metric.kind == measure::MetricRef::Kind::kStreamGoodput && !spec.goodput) {
    throw UsageError(what + " needs --goodput: the per-stream SLO whose share it is");
  }
  const workload::Scenario* scenario = spec.scenario.get();
  // A name the load never sends, or streams it never reads, would only show as "no data" after
  // everything ran.
  if (const std::string unknown = unknown_scope(metric.scope, scenario); !unknown.empty()) {
    throw UsageError(what + ": " + unknown);
  }
  // A flow's rate is its success share (rate(flow_success, FLOW)): per second, only requests.
  if ((metric.kind == measure::MetricRef::Kind::kThroughput ||
       metric.kind == measure::MetricRef::Kind::kGoodput) &&
      scenario != nullptr) {
    for (const workload::FlowSpec& flow : scenario->flows) {
      if (flow.name != metric.scope) continue;
      throw UsageError(what + ": '" + metric.scope +
                       "' is a flow, and rps and goodput are per request (a flow's success: "
                       "rate(flow_success, " +
                       metric.scope + "))");
    }
  }
  const bool reads_streams = metric.kind == measure::MetricRef::Kind::kStreamPercentile ||
                             metric.kind == measure::MetricRef::Kind::kStreamRate ||
                             metric.kind == measure::MetricRef::Kind::kStreamGoodput;
  if (!reads_streams || spec.stream) return;
  bool streamed = false;
  if (scenario) {
    for (const workload::RequestSpec& r : scenario->requests) {
      if (r.stream && (metric.scope.empty() || metric.scope == r.name)) streamed = true;
    }
  }
  if (!streamed) {
    throw UsageError(
        what + " reads streams, but " +
        (metric.scope.empty() ? std::string("this load reads none")
                              : "'" + metric.scope + "' is not read as one") +
        " (add --stream sse|chunked, or `stream:` to the scenario's request)");
  }
}

Preflight preflight(const RunSpec& spec) {
  check(spec);
  const http::Url url = http::parse_url(spec.target);
  Preflight found;
  std::string io_note;
  found.io = net::choose_io_backend(spec.io, io_note);
  if (!io_note.empty()) std::fprintf(stderr, "proofload: %s\n", io_note.c_str());
  found.address = net::resolve(url.host, url.port);
  net::ensure_fd_limit(most_connections(spec) + kSpareDescriptors);
  const bool h2 = spec.protocol == engine::Protocol::kHttp2;
  // One context for both checks (loading the trusted CAs costs); none for http.
  std::optional<net::TlsContext> context;
  if (url.tls()) context.emplace(load_tls(spec), url.host);
  if (context) {
    try {
      found.tls = net::check_tls_handshake(found.address, *context, spec.send.connect_timeout_ns);
    } catch (const UsageError& e) {
      // A server may refuse a handshake that offers only h2 (nginx does, with an alert).
      if (!h2 || std::string_view(e.what()).find("no application protocol") == std::string::npos)
        throw;
      throw UsageError(std::string(e.what()) +
                       ": the server does not offer HTTP/2 in ALPN; without --http2 the run uses "
                       "HTTP/1.1");
    }
  } else if (!h2) {
    net::check_reachable(found.address, spec.send.connect_timeout_ns);
  }
  // Every further target is resolved and reached (and handshaken) the same way.
  if (!spec.more_targets.empty()) found.targets.push_back(found.address);
  for (const std::string& more : spec.more_targets) {
    const http::Url other = http::parse_url(more);
    const net::Address address = net::resolve(other.host, other.port);
    if (context) {
      net::check_tls_handshake(address, *context, spec.send.connect_timeout_ns);
    } else {
      net::check_reachable(address, spec.send.connect_timeout_ns);
    }
    found.targets.push_back(address);
  }
  // Each source must be an address of this machine that reaches the target: one line if not.
  for (const std::string& text : segment_sources(spec)) {
    const net::Address source = net::local_address(text);
    net::check_reachable(found.address, spec.send.connect_timeout_ns, &source);
  }
  // HTTP/2: one more connection, to hear the server's SETTINGS.
  if (h2)
    found.h2 =
        http::check_h2(found.address, context ? &*context : nullptr, spec.send.connect_timeout_ns);
  return found;
}

void aim(PlannedRun& run, const Preflight& preflight) {
  run.load.io = preflight.io;
  run.spec.io = std::string(net::io_backend_name(preflight.io));
  run.load.address = preflight.address;
  run.spec.address = preflight.address.text;
  run.load.targets = preflight.targets;
  if (!preflight.targets.empty()) {
    std::vector<std::string> addresses;
    for (const net::Address& a : preflight.targets) addresses.push_back(a.text);
    run.spec.addresses = std::move(addresses);
  }
  if (preflight.tls) {
    // An https run's spec has its tls from plan_run; the handshake's facts complete it.
    if (!run.spec.tls) run.spec.tls = result::SpecTls{};
    run.spec.tls->version = preflight.tls->version;
    run.spec.tls->alpn = text_or_null(preflight.tls->alpn);
  }
}

PlannedRun plan_run(const RunSpec& spec, const std::string& command_line) {
  check(spec);
  PlannedRun run;
  engine::LoadSpec& load = run.load;

  http::RequestSpec request;
  request.url = http::parse_url(spec.target);
  request.method = spec.method;
  request.headers = spec.headers;
  if (spec.body) request.body = *spec.body;
  if (spec.body_file) {
    request.body = read_bounded_file(*spec.body_file, "--body-file", kMaxBodyFileBytes);
  }
  // Each setting's own part of the request and of the record (run_settings.h).
  Planning planning{request, run.spec};
  plan_settings(spec, planning);
  // Data and mix draws repeat with the same seed; without one, the clock picks it (recorded).
  const uint64_t seed = spec.seed.value_or(static_cast<uint64_t>(wall_clock_ns()));
  workload::Scenario merged;
  if (spec.scenario) {
    merged = with_flag_headers(*spec.scenario, request.headers);
    workload::SecretStore secrets;
    // ${file:PATH} is taken from the scenario's directory, as data files are.
    secrets.set_base_dir(std::filesystem::path(spec.scenario->file).parent_path());
    load.workload = workload::Workload::compile(merged, request.url, secrets, seed);
  } else {
    load.workload =
        workload::Workload::fixed(http::build_request(request), request.method == "HEAD");
  }
  run.thresholds = collect_thresholds(spec.scenario.get(), spec.thresholds);
  run.observe = spec.observe;
  run.observe_every_ns = spec.observe_every_ns;
  run.reconcile = spec.reconcile;
  for (const measure::Threshold& t : run.thresholds) {
    check_metric_source(t.metric, "threshold \"" + t.expression + "\"", spec);
  }
  run.trust = net::trust_of(spec.tls);

  load.executor = spec.executor;
  // Warm-up is recorded in whole windows.
  load.warmup_ns = (spec.warmup_ns + load.window_ns - 1) / load.window_ns * load.window_ns;
  load.send = spec.send;
  load.max_requests = spec.requests_limit.value_or(0);
  load.queue_capacity = spec.queue;
  const int64_t duration_ns = scheduled_duration_ns(spec);
  if (duration_ns > kMaxRunNs - load.warmup_ns) {
    throw UsageError("the warm-up and -d together must be at most ten years");
  }
  std::optional<std::vector<result::SpecStage>> stages_record;  // null without --stages
  if (!spec.stages.empty()) {
    stages_record.emplace();
    for (const schedule::Stage& s : spec.stages) {
      result::SpecStage stage;
      stage.duration_s = seconds_of(s.duration_ns);
      stage.target = s.target;
      stages_record->push_back(std::move(stage));
    }
    load.profile = schedule::Profile::staged(spec.stages);
    // Staged closed loop: the stages' peak is the pool.
    load.connections = open_loop(spec) ? spec.connections : static_cast<int>(peak_of(spec.stages));
  } else if (open_loop(spec)) {
    load.profile = schedule::Profile::constant(*spec.rate_per_s, load.warmup_ns + duration_ns);
    load.connections = spec.connections;
  } else {
    load.profile = schedule::Profile::constant(spec.connections, load.warmup_ns + duration_ns);
    load.connections = spec.connections;
  }
  if (load.connections < 1) throw UsageError("--stages never asks for a connection");
  load.max_connections =
      std::max(load.connections, spec.max_connections.value_or(load.connections));
  if (spec.max_connections && *spec.max_connections < load.connections) {
    throw UsageError("--max-connections must be at least -c (" + std::to_string(load.connections) +
                     ")");
  }
  if (static_cast<int64_t>(load.max_connections) * spec.h2_streams.value_or(1) > kMaxConnections) {
    throw UsageError("connections times --h2-streams must be at most " +
                     std::to_string(kMaxConnections));
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  load.segment = spec.segment;
  load.segments = spec.segments;
  // A segment's workers share its connections (connection c is segment c mod N's).
  load.io = spec.io.value_or(net::IoBackend::kEpoll);  // pre-flight decides (aim)
  load.workers =
      std::min(spec.workers > 0 ? spec.workers : cores,
               static_cast<int>(schedule::share_of(load.connections, spec.segment, spec.segments)));
  for (const std::string& source : segment_sources(spec)) {
    load.sources.push_back(net::local_address(source));
  }
  if (!load.sources.empty()) load.workers = static_cast<int>(load.sources.size());
  load.watch_limit_headers = spec.watch_limit_headers;

  if (request.url.tls()) {
    load.tls = std::make_shared<const net::TlsContext>(load_tls(spec), request.url.host);
  }
  load.protocol = spec.protocol;
  load.h2_streams = spec.h2_streams.value_or(1);
  const bool h2 = spec.protocol == engine::Protocol::kHttp2;
  result::SpecRecord& recorded = run.spec;
  recorded.stream = plan_streams(spec, load);
  recorded.target = spec.target;
  recorded.address = load.address.text;
  recorded.protocol = std::string(h2 ? "h2" : "http/1.1");
  recorded.h2_streams =
      result::Field<int64_t>::or_null(h2 ? std::optional<int64_t>(load.h2_streams) : std::nullopt);
  recorded.tls = tls_record(spec.tls, load.tls.get());
  if (spec.scenario) {
    // A scenario's requests are described under "scenario"; the plain-run request fields go.
    recorded.scenario = scenario_record(merged, *load.workload);
  } else {
    recorded.method = request.method;
    recorded.headers = headers_record(request.headers);
    recorded.body_bytes = static_cast<int64_t>(request.body.size());
  }
  recorded.executor = std::string(open_loop(spec) ? "open_loop" : "closed_loop");
  recorded.connections = load.connections;
  recorded.max_connections = load.max_connections;
  recorded.rate_per_s = result::Field<double>::or_null(
      spec.rate_per_s && open_loop(spec) ? spec.rate_per_s : std::nullopt);
  recorded.stages = result::Field<std::vector<result::SpecStage>>::or_null(stages_record);
  // null when only -n bounds the run
  recorded.duration_s = result::Field<double>::or_null(
      !spec.stages.empty() ? std::optional<double>(seconds_of(load.profile.duration_ns()))
      : spec.duration_ns || !spec.requests_limit ? std::optional<double>(seconds_of(duration_ns))
                                                 : std::nullopt);
  recorded.warmup_s = seconds_of(load.warmup_ns);
  recorded.workers = load.workers;
  recorded.window_s = seconds_of(load.window_ns);
  if (!run.thresholds.empty()) {
    std::vector<std::string> thresholds;
    for (const measure::Threshold& t : run.thresholds) thresholds.push_back(t.expression);
    recorded.thresholds = std::move(thresholds);
  }
  // A scenario's draws repeat with its seed; a plain run draws nothing.
  run.command_line =
      command_line.empty()
          ? run_command_text(spec, spec.scenario ? std::optional<uint64_t>(seed) : std::nullopt)
          : command_line;
  run.out_dir = spec.out_dir;
  run.quiet = spec.quiet;
  run.start_at_wall_ns = spec.start_at_wall_ns;
  return run;
}

}  // namespace proofload::plan
