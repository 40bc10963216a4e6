// `proofload run URL [flags]` and `proofload run SCENARIO.yaml [URL] [flags]`: turns flags (and a
// scenario file) into a RunSpec, plans it (plan/plan_run.h: every check, before anything is
// sent; exit 2 on bad input) and runs it (exit 99 when a threshold fails).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/segment_flags.h"
#include "cli/subcommand.h"
#include "common/file_text.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/run_experiment.h"
#include "http/request.h"
#include "http/url.h"
#include "net/tcp.h"
#include "observe/reconcile_source.h"
#include "plan/plan_run.h"
#include "schedule/stages.h"

namespace proofload::cli {
namespace {}  // namespace

uint64_t parse_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("--seed must be a whole number from 0 to 18446744073709551615, got '" + text +
                     "'");
  }
  return seed;
}

std::vector<std::string> parse_sources(const std::string& text) {
  int count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
    if (count < 1 || static_cast<size_t>(count) > plan::kMaxSources) {
      throw UsageError(fmt::format("--sources {}: a count of loopback addresses is 1 to {}",
                                   text, plan::kMaxSources));
    }
    std::vector<std::string> addresses;
    for (int i = 0; i < count; ++i) addresses.push_back(fmt::format("127.0.0.{}", i + 2));
    return addresses;
  }
  std::vector<std::string> addresses;
  std::stringstream list(text);
  for (std::string address; std::getline(list, address, ',');) {
    address = std::string(trim_spaces_tabs(address));
    if (address.empty()) throw UsageError("--sources '" + text + "' has an empty address");
    net::local_address(address);  // a numeric IP address, or one line saying it is not
    addresses.push_back(address);
  }
  if (addresses.empty()) throw UsageError("--sources needs addresses or a count");
  return addresses;
}

bool looks_like_scenario_file(const std::string& target) {
  auto ends_with = [&](std::string_view suffix) {
    return target.size() >= suffix.size() &&
           target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".yaml") || ends_with(".yml")) return true;
  return target.find("://") == std::string::npos && access(target.c_str(), R_OK) == 0;
}

void add_request_flags(CLI::App* app, RunFlags& flags) {
  app->add_option("--target", flags.targets,
                  "Another URL of the same request (repeatable; the same scheme and path): "
                  "connection i goes to target i mod n, the first being the URL given");
  app->add_option("--max-connections", flags.max_connections,
                  "Open loop: the pool may grow to this many connections (default -c)");
  app->add_option("--queue", flags.queue,
                  "Open loop: requests that may wait for a connection (default 10000)");
  app->add_option("-m,--method", flags.method, "HTTP method (default GET)");
  app->add_option("-H,--header", flags.headers, "Request header 'Name: value' (repeatable)");
  // Read from argv by remember_command_line, before any output: the option is here to be
  // accepted and listed, and to check that each is a header name.
  app->add_option("--redact", flags.redact,
                  "Never record this header's value, as Authorization, Proxy-Authorization, "
                  "Cookie and X-Api-Key never are (repeatable)")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            return http::is_token(name) ? "" : "'" + name + "' is no header name";
          },
          "HEADER"));
  app->add_option("--body", flags.body, "Request body");
  app->add_option("--body-file", flags.body_file, "Request body from a file");
  app->add_option("--timeout", flags.timeout,
                  "Request timeout, also the longest wait in the queue (default 10s)");
  app->add_option("--connect-timeout", flags.connect_timeout, "Connect timeout (default 5s)");
  app->add_option("--grace", flags.grace,
                  "Time for in-flight requests to finish at the end or on Ctrl-C (default 5s)");
  app->add_option("--workers", flags.workers, "Worker threads (default: one per core)");
  app->add_option("--io", flags.io,
                  "What the workers' sockets go through: epoll (the default, or PROOFLOAD_IO's) "
                  "or uring (io_uring; where the kernel refuses it, epoll with a note)")
      ->check(CLI::IsMember({"uring", "io_uring", "epoll"}));
  app->add_option("--sources", flags.sources,
                  "Bind the connections to these local addresses, one worker each "
                  "(127.0.0.2,127.0.0.3; or a count N: 127.0.0.2 onwards)");
  app->add_flag("-q,--quiet", flags.quiet, "No live progress");
  app->add_option("--seed", flags.seed, "Seed of the data and mix draws (default: from the clock)");
  app->add_option("--observe", flags.observe,
                  "Watch a source while the load runs (repeatable): pid:N, pidfile:PATH, "
                  "cgroup:PATH, prom:URL[?match=a,b], k8s:NAMESPACE/SELECTOR, host (the "
                  "generator itself always)");
  app->add_option("--observe-every", flags.observe_every,
                  "How often observers sample, 10ms to 1s (default 1s)");
  app->add_option("--reconcile", flags.reconcile,
                  "Set the successes against the server's own count, read before and after the "
                  "run: prom:URL#METRIC{label=\"value\"} or a command printing the number");
  add_live_flags(app, flags);
  const char* tls = "TLS (https://)";
  app->add_option("--cacert", flags.cacert, "Trust the CA certificates in this PEM file")
      ->group(tls);
  app->add_flag("--insecure", flags.insecure,
                "Do not verify the server's certificate (chain or name)")
      ->group(tls);
  app->add_option("--sni", flags.sni, "Server name to send and to verify (default: the URL's host)")
      ->group(tls);
  app->add_option("--cert", flags.cert, "Client certificate (PEM), with --key")->group(tls);
  app->add_option("--key", flags.key, "The client certificate's private key (PEM)")->group(tls);
  app->add_option("--tls-min", flags.tls_min, "Lowest TLS version: 1.2 (default) or 1.3")
      ->group(tls);
  app->add_flag("--no-tls-resume", flags.no_tls_resume,
                "A full handshake on every connection (default: resume sessions)")
      ->group(tls);
  const char* streams = "Streams";
  app->add_option("--stream", flags.stream,
                  "Read every response as a stream, event by event: sse (server-sent events) "
                  "or chunked (each chunk an event)")
      ->group(streams);
  app->add_option("--stream-content", flags.stream_content,
                  "Which events carry content: a JSON pointer (/choices/0/delta/content) or a "
                  "regular expression (default: every event with data)")
      ->group(streams);
  app->add_option("--stream-tokens", flags.stream_tokens,
                  "JSON pointer of the token count the server reports, e.g. "
                  "/usage/completion_tokens (default: one per content event)")
      ->group(streams);
  app->add_option("--stream-end", flags.stream_end,
                  "The data of the event that ends a stream (default [DONE]; '' for the body's "
                  "end)")
      ->group(streams);
  app->add_option("--stream-fixture", flags.stream_fixture,
                  "A file every stream's bytes must equal, byte for byte (others are counted "
                  "as fixture_mismatch, not completed)")
      ->group(streams);
  app->add_option("--stream-idle-timeout", flags.stream_idle_timeout,
                  "A stream that has begun and gets no byte for this long ends as idle_timeout "
                  "(default: only --timeout)")
      ->group(streams);
  app->add_option("--goodput", flags.goodput,
                  "Per-stream SLO a completed stream must meet to count as goodput, e.g. "
                  "'ttft<500ms,itl_p99<100ms,tokens_per_s>=20'")
      ->group(streams);
  const char* h2 = "HTTP/2";
  app->add_flag("--http2", flags.http2,
                "HTTP/2: ALPN h2 over https, prior knowledge (h2c) over http")
      ->group(h2);
  app->add_option("--h2-streams", flags.h2_streams,
                  "Requests in flight on each connection, as streams (default 1; never more "
                  "than the server allows)")
      ->group(h2);
}

namespace {

net::TlsOptions tls_options_from_flags(const RunFlags& f) {
  net::TlsOptions tls;
  tls.ca_file = f.cacert.value_or("");
  tls.verify = !f.insecure;
  tls.server_name = f.sni.value_or("");
  tls.cert_file = f.cert.value_or("");
  tls.key_file = f.key.value_or("");
  if (f.tls_min && *f.tls_min != "1.2" && *f.tls_min != "1.3") {
    throw UsageError("--tls-min must be 1.2 or 1.3, got '" + *f.tls_min + "'");
  }
  if (f.tls_min == "1.3") tls.min_version = TLS1_3_VERSION;
  tls.resume = !f.no_tls_resume;
  return tls;
}

}  // namespace

namespace {

// --io, else PROOFLOAD_IO (so that a test suite or a CI job runs everything over one backend),
// else nullopt: pre-flight picks (net::choose_io_backend).
std::optional<net::IoBackend> io_backend_from(const std::optional<std::string>& flag) {
  std::string text;
  if (flag) {
    text = *flag;
  } else if (const char* env = std::getenv("PROOFLOAD_IO"); env != nullptr && *env != '\0') {
    text = env;
    if (text != "uring" && text != "io_uring" && text != "epoll") {
      throw UsageError("PROOFLOAD_IO is '" + text + "': it must be uring or epoll");
    }
  } else {
    return std::nullopt;
  }
  return text == "epoll" ? net::IoBackend::kEpoll : net::IoBackend::kUring;
}

}  // namespace

plan::RunSpec run_spec_from_flags(const RunFlags& f, const workload::Scenario* scenario) {
  plan::RunSpec spec;
  spec.target = f.url;
  spec.more_targets = f.targets;
  if (spec.target.empty() && scenario) {
    if (!scenario->target) {
      throw UsageError(scenario->file +
                       ": no target: set 'target:' in the file or give a URL "
                       "after it");
    }
    spec.target = *scenario->target;
    spec.target_from_scenario = true;
  }
  if (spec.target.empty()) throw UsageError("run needs a URL or a scenario file");
  http::parse_url(spec.target);  // a bad URL is the first thing to say
  if (scenario) spec.scenario = std::make_shared<const workload::Scenario>(*scenario);
  spec.method = f.method;
  for (const std::string& h : f.headers) spec.headers.push_back(http::parse_header_flag(h));
  spec.body = f.body;
  spec.body_file = f.body_file;
  if (f.seed) spec.seed = parse_seed(*f.seed);
  const std::string executor = f.executor.value_or(f.rate ? "open" : "closed");
  if (executor != "open" && executor != "closed") {
    throw UsageError("--executor must be 'open' or 'closed', got '" + executor + "'");
  }
  spec.executor = executor == "open" ? engine::Executor::kOpenLoop : engine::Executor::kClosedLoop;
  spec.connections = f.connections;
  spec.max_connections = f.max_connections;
  if (f.rate) spec.rate_per_s = parse_rate_per_s(*f.rate);
  if (f.stages) spec.stages = schedule::parse_stages(*f.stages);
  if (f.duration) spec.duration_ns = parse_duration_ns(*f.duration);
  spec.warmup_ns = parse_duration_ns(f.warmup);
  spec.requests_limit = f.requests;
  spec.queue = f.queue;
  spec.timeout_ns = parse_duration_ns(f.timeout);
  spec.connect_timeout_ns = parse_duration_ns(f.connect_timeout);
  spec.grace_ns = parse_duration_ns(f.grace);
  spec.tls = tls_options_from_flags(f);
  if (f.stream) {
    workload::StreamSpec stream;
    stream.kind = *f.stream;
    stream.content = f.stream_content;
    stream.tokens = f.stream_tokens;
    stream.terminator = f.stream_end;
    if (f.stream_fixture) {
      stream.fixture_path = *f.stream_fixture;
      stream.fixture = std::make_shared<const std::string>(
          read_bounded_file(*f.stream_fixture, "fixture", workload::kMaxFixtureBytes));
    }
    spec.stream = stream;
  } else if (f.stream_content || f.stream_tokens || f.stream_end || f.stream_fixture) {
    throw UsageError(
        "--stream-content, --stream-tokens, --stream-end and --stream-fixture need --stream sse "
        "(or chunked)");
  }
  if (f.stream_idle_timeout) {
    spec.stream_idle_timeout_ns = parse_duration_ns(*f.stream_idle_timeout);
  }
  spec.goodput = f.goodput;
  if (f.http2) spec.protocol = engine::Protocol::kHttp2;
  if (f.h2_streams) spec.h2_streams = *f.h2_streams;
  spec.workers = f.workers;
  spec.io = io_backend_from(f.io);
  if (f.sources) spec.sources = parse_sources(*f.sources);
  apply_segment_flags(f, spec);
  spec.thresholds = f.thresholds;
  spec.observe = f.observe;
  spec.observe_every_ns = parse_duration_ns(f.observe_every);
  if (f.reconcile) {
    observe::parse_reconcile_spec(*f.reconcile);  // a malformed source is said before anything
    spec.reconcile = f.reconcile;
  }
  if (f.out) spec.out_dir = *f.out;
  spec.quiet = f.quiet;
  return spec;
}

experiments::RunOptions build_run_options(const RunFlags& f, const std::string& command_line,
                                          const workload::Scenario* scenario) {
  const plan::RunSpec spec = run_spec_from_flags(f, scenario);
  experiments::RunOptions options;
  options.run = plan::plan_run(spec, command_line);
  // --plan checks everything but reaches nothing.
  if (!f.plan) plan::aim(options.run, plan::preflight(spec));
  options.live_progress = !f.quiet;
  return options;
}

Subcommand add_run_command(CLI::App& parent) {
  auto flags = std::make_shared<RunFlags>();
  auto targets = std::make_shared<std::vector<std::string>>();
  CLI::App* app = parent.add_subcommand(
      "run", "Run one load test against a URL, or a scenario file (with an optional URL)");
  app->add_option("target", *targets,
                  "Target URL (http://host:port/path), or a scenario file (.yaml) and optionally "
                  "the URL that replaces its target (or --target URL)")
      ->expected(1, 2);
  app->add_option("-c,--connections", flags->connections,
                  "Closed loop: connections (virtual users). Open loop: initial pool (default 10)");
  app->add_option("-d,--duration", flags->duration, "How long to run, e.g. 30s, 5m (default 10s)");
  app->add_option("-n,--requests", flags->requests, "Stop after this many requests");
  app->add_option("--rate", flags->rate, "Open loop: requests per second (e.g. 1000, 2.5k)");
  app->add_option("--executor", flags->executor, "closed or open (default: open with --rate)");
  app->add_option("--stages", flags->stages,
                  "Linear ramps, e.g. 10s:100,30s:1000,10s:0 (rate or connections)");
  app->add_option("--warmup", flags->warmup, "Recorded apart and excluded from the results");
  app->add_option("-o,--out", flags->out, "Write result.json, windows.csv, latency.hlog here");
  app->add_option("--threshold", flags->thresholds,
                  "Pass/fail bar checked at the end, e.g. 'p95 < 200ms', 'errors < 1%' "
                  "(repeatable; exit 99 when one fails)");
  app->add_flag("--plan", flags->plan,
                "Check the flags and the scenario, print the load it would send, send nothing");
  add_request_flags(app, *flags);
  add_segment_flags(app, *flags);

  return {app, [flags, targets, app] {
            return run_experiment_command(
                ExperimentCommand<experiments::RunOptions, report::RunResult>{
                    "run",
                    [flags, targets, app] {
                      std::shared_ptr<const workload::Scenario> scenario =
                          take_scenario(*targets, *flags, app, "run");
                      return build_run_options(*flags, command_line(), scenario.get());
                    },
                    [](const experiments::RunOptions& options) {
                      return plan::describe_run(options.run);
                    },
                    [](experiments::RunOptions& options, live::LiveOutputs* live) {
                      options.live = live;
                      return experiments::run_load_test(options);
                    },
                    // The run printed its own summary; its thresholds set the exit code.
                    [](const experiments::RunOptions&, const report::RunResult& result) {
                      if (result.interrupted) return kExitInterrupted;
                      return result.thresholds_passed() ? kExitOk : kExitThresholds;
                    }},
                *flags, flags->plan);
          }};
}

}  // namespace proofload::cli
