// `proofload run URL [flags]` and `proofload run SCENARIO.yaml [URL] [flags]`: turns flags (and a
// scenario file) into a LoadSpec and a recorded spec, then runs it. Every check happens here,
// before anything is sent (exit 2 on bad input; exit 99 when a threshold fails).
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <thread>

#include "cli/command_line.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/file_text.h"
#include "common/usage_error.h"
#include "engine/tcp.h"
#include "experiments/run_experiment.h"
#include "http/request.h"
#include "http/url.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/parse.h"
#include "workload/scenario_yaml.h"
#include "workload/secrets.h"

namespace proofload::cli {
namespace {

// A request body is held once per connection's send buffer: 64 MiB is far past any real one.
constexpr int64_t kMaxBodyFileBytes = int64_t{64} << 20;

int64_t positive_duration(const std::string& flag, const std::string& text) {
  int64_t ns = schedule::parse_duration_ns(text);
  if (ns <= 0) throw UsageError(flag + " must be longer than 0, got '" + text + "'");
  return ns;
}

}  // namespace

uint64_t parse_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("--seed must be a whole number from 0 to 18446744073709551615, got '" + text +
                     "'");
  }
  return seed;
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
  app->add_flag("-q,--quiet", flags.quiet, "No live progress");
  app->add_option("--seed", flags.seed, "Seed of the data and mix draws (default: from the clock)");
  app->add_option("--observe", flags.observe,
                  "Watch a source while the load runs (repeatable): pid:N, pidfile:PATH, "
                  "cgroup:PATH, prom:URL[?match=a,b], host (the generator itself always)");
  app->add_option("--observe-every", flags.observe_every,
                  "How often observers sample, 10ms to 1s (default 1s)");
}

experiments::RunOptions build_run_options(const RunFlags& f, const std::string& command_line,
                                          const workload::Scenario* scenario) {
  experiments::RunOptions options;
  engine::LoadSpec& load = options.load;
  nlohmann::json& spec = options.spec_json;

  std::string target = f.url;
  if (target.empty() && scenario) {
    if (!scenario->target) {
      throw UsageError(scenario->file +
                       ": no target: set 'target:' in the file or give a URL "
                       "after it");
    }
    target = *scenario->target;
  }
  if (target.empty()) throw UsageError("run needs a URL or a scenario file");
  http::RequestSpec request;
  request.url = http::parse_url(target);
  request.method = f.method;
  for (const std::string& h : f.headers) request.headers.push_back(http::parse_header_flag(h));
  if (f.body && f.body_file) throw UsageError("--body and --body-file both set the body: use one");
  if (f.body) request.body = *f.body;
  if (f.body_file) request.body = read_bounded_file(*f.body_file, "--body-file", kMaxBodyFileBytes);
  // Data and mix draws repeat with the same seed; without one, the clock picks it (recorded).
  const uint64_t seed = f.seed ? parse_seed(*f.seed) : static_cast<uint64_t>(wall_clock_ns());
  workload::Scenario merged;
  if (scenario) {
    if (f.method != "GET" || f.body || f.body_file) {
      throw UsageError(
          "-m, --body and --body-file set the request of a plain run; a scenario "
          "file sets each request's method and body");
    }
    merged = with_flag_headers(*scenario, request.headers);
    workload::SecretStore secrets;
    // ${file:PATH} is taken from the scenario's directory, as data files are.
    secrets.set_base_dir(std::filesystem::path(scenario->file).parent_path());
    load.workload = workload::Workload::compile(merged, request.url, secrets, seed);
  } else {
    load.workload =
        workload::Workload::fixed(http::build_request(request), request.method == "HEAD");
  }
  options.thresholds = collect_thresholds(scenario, f.thresholds);
  options.observe = f.observe;
  options.observe_every_ns = schedule::parse_duration_ns(f.observe_every);
  if (options.observe_every_ns < 10'000'000 || options.observe_every_ns > load.window_ns) {
    throw UsageError("--observe-every must be between 10ms and the window (1s), got '" +
                     f.observe_every + "'");
  }

  if (f.connections < 1) {
    throw UsageError("-c must be at least 1, got " + std::to_string(f.connections));
  }
  if (f.connections > kMaxConnections) {
    throw UsageError("-c must be at most " + std::to_string(kMaxConnections) + ", got " +
                     std::to_string(f.connections));
  }
  if (f.max_connections && *f.max_connections > kMaxConnections) {
    throw UsageError("--max-connections must be at most " + std::to_string(kMaxConnections));
  }
  if (f.requests && *f.requests < 1) {
    throw UsageError("-n must be at least 1 (leave it out for no request limit), got " +
                     std::to_string(*f.requests));
  }
  const int64_t requests = f.requests.value_or(0);
  if (f.queue < 0) throw UsageError("--queue must not be negative");
  if (f.rate && f.stages) {
    throw UsageError("--rate and --stages both set the load: use --stages with --executor open");
  }
  std::string executor = f.executor.value_or(f.rate ? "open" : "closed");
  if (executor != "open" && executor != "closed") {
    throw UsageError("--executor must be 'open' or 'closed', got '" + executor + "'");
  }
  load.executor = executor == "open" ? engine::Executor::kOpenLoop : engine::Executor::kClosedLoop;
  if (load.executor == engine::Executor::kOpenLoop && !f.rate && !f.stages) {
    throw UsageError("open loop needs --rate R (requests/s) or --stages");
  }
  if (load.executor == engine::Executor::kClosedLoop && f.rate) {
    throw UsageError("--rate sets an open-loop schedule: drop --executor closed or --rate");
  }
  if (f.queue > static_cast<int64_t>(schedule::OpenLoopDispatcher::kMaxQueueCapacity)) {
    throw UsageError("--queue must be at most " +
                     std::to_string(schedule::OpenLoopDispatcher::kMaxQueueCapacity));
  }
  load.warmup_ns = schedule::parse_duration_ns(f.warmup);
  if (load.warmup_ns < 0) throw UsageError("--warmup must not be negative");
  // Warm-up is recorded in whole windows.
  load.warmup_ns = (load.warmup_ns + load.window_ns - 1) / load.window_ns * load.window_ns;
  load.request_timeout_ns = positive_duration("--timeout", f.timeout);
  load.connect_timeout_ns = positive_duration("--connect-timeout", f.connect_timeout);
  load.grace_ns = schedule::parse_duration_ns(f.grace);
  load.max_requests = requests;
  load.queue_capacity = f.queue;

  // Without -d, a run bounded by -n runs until its requests are done; otherwise 10 s.
  constexpr int64_t kUnbounded = int64_t{365} * 24 * 3600 * 1'000'000'000;
  int64_t duration_ns = f.duration     ? positive_duration("-d", *f.duration)
                        : requests > 0 ? kUnbounded
                                       : 10 * int64_t{1'000'000'000};
  if (duration_ns > kMaxRunNs - load.warmup_ns) {
    throw UsageError("the warm-up and -d together must be at most ten years");
  }
  nlohmann::json stages_json = nullptr;
  if (f.stages) {
    if (f.duration) throw UsageError("-d and --stages both set the duration: use one");
    auto stages = schedule::parse_stages(*f.stages);
    stages_json = nlohmann::json::array();
    double peak = 0;
    int64_t total_ns = 0;
    for (const auto& s : stages) {
      // A stage's target is a rate (open loop) or connections: the same caps as --rate and -c.
      const bool open = load.executor == engine::Executor::kOpenLoop;
      const double cap = open ? schedule::kMaxRatePerS : kMaxConnections;
      if (s.target > cap) {
        throw UsageError(fmt::format("--stages target {} is above {} {}", s.target, cap,
                                     open ? "requests/s" : "connections"));
      }
      total_ns += s.duration_ns;
      if (total_ns > kMaxRunNs) throw UsageError("--stages last more than ten years");
      stages_json.push_back({{"duration_s", seconds_of(s.duration_ns)}, {"target", s.target}});
      peak = std::max(peak, s.target);
    }
    load.profile = schedule::Profile::staged(stages);
    if (load.executor == engine::Executor::kClosedLoop) load.connections = static_cast<int>(peak);
  } else if (load.executor == engine::Executor::kOpenLoop) {
    double rate = schedule::parse_rate_per_s(*f.rate);
    if (rate <= 0) throw UsageError("--rate must be more than 0, got '" + *f.rate + "'");
    load.profile = schedule::Profile::constant(rate, load.warmup_ns + duration_ns);
  } else {
    load.profile = schedule::Profile::constant(f.connections, load.warmup_ns + duration_ns);
  }
  if (!(f.stages && load.executor == engine::Executor::kClosedLoop))
    load.connections = f.connections;
  if (load.connections < 1) throw UsageError("--stages never asks for a connection");
  load.max_connections = std::max(load.connections, f.max_connections.value_or(load.connections));
  if (f.max_connections && *f.max_connections < load.connections) {
    throw UsageError("--max-connections must be at least -c (" + std::to_string(load.connections) +
                     ")");
  }

  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (f.workers < 0) throw UsageError("--workers must be at least 1");
  load.workers = std::min(f.workers > 0 ? f.workers : cores, load.connections);

  if (!f.plan) {
    load.address = engine::resolve(request.url.host, request.url.port);
    engine::ensure_fd_limit(load.max_connections + 64);
    engine::check_reachable(load.address, load.connect_timeout_ns);
  }

  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : request.headers) {
    headers.push_back(
        {{"name", name}, {"value", is_sensitive_header(name) ? "[redacted]" : value}});
  }
  spec = {
      {"target", target},
      {"address", load.address.text},
      {"method", request.method},
      {"headers", headers},
      {"body_bytes", request.body.size()},
      {"executor", load.executor == engine::Executor::kOpenLoop ? "open_loop" : "closed_loop"},
      {"connections", load.connections},
      {"max_connections", load.max_connections},
      {"rate_per_s", f.rate && load.executor == engine::Executor::kOpenLoop
                         ? nlohmann::json(schedule::parse_rate_per_s(*f.rate))
                         : nlohmann::json(nullptr)},
      {"stages", stages_json},
      {"duration_s", f.stages ? nlohmann::json(seconds_of(load.profile.duration_ns()))
                     : f.duration || requests == 0 ? nlohmann::json(seconds_of(duration_ns))
                                                     : nlohmann::json(nullptr)},
      {"warmup_s", seconds_of(load.warmup_ns)},
      {"requests_limit", requests > 0 ? nlohmann::json(requests) : nlohmann::json(nullptr)},
      {"queue_capacity", load.queue_capacity},
      {"timeout_s", seconds_of(load.request_timeout_ns)},
      {"connect_timeout_s", seconds_of(load.connect_timeout_ns)},
      {"grace_s", seconds_of(load.grace_ns)},
      {"workers", load.workers},
      {"window_s", seconds_of(load.window_ns)},
  };
  if (scenario) {
    // A scenario's requests are described under "scenario"; the plain-run request fields go.
    for (const char* key : {"method", "headers", "body_bytes"}) spec.erase(key);
    spec["scenario"] = scenario_spec_json(merged, *load.workload);
  }
  spec["observe"] = f.observe;
  spec["observe_every_s"] = seconds_of(options.observe_every_ns);
  if (!options.thresholds.empty()) {
    nlohmann::json thresholds = nlohmann::json::array();
    for (const analyze::Threshold& t : options.thresholds) thresholds.push_back(t.expression);
    spec["thresholds"] = thresholds;
  }
  // A scenario's draws repeat with its seed; a plain run draws nothing.
  if (command_line.empty()) {
    RunFlags shown = f;
    if (scenario) shown.scenario_file = scenario->file;
    options.command_line =
        run_command_text(shown, scenario ? std::optional<uint64_t>(seed) : std::nullopt);
  } else {
    options.command_line = command_line;
  }
  if (f.out) options.out_dir = *f.out;
  options.live_progress = !f.quiet && isatty(STDERR_FILENO);
  return options;
}

std::string describe_run(const experiments::RunOptions& options) {
  const nlohmann::json& s = options.spec_json;
  const engine::LoadSpec& load = options.load;
  std::string out = "Run: " + s.value("target", std::string()) + "\n";
  const bool open = load.executor == engine::Executor::kOpenLoop;
  if (!s["stages"].is_null()) {
    out += std::string(open ? "  open loop, arrival rate" : "  closed loop, connections") +
           " by stages: " + s["stages"].dump() + "\n";
  } else if (open) {
    out += "  open loop at " + s["rate_per_s"].dump() + "/s, " + std::to_string(load.connections) +
           " connections up front, at most " + std::to_string(load.max_connections) + "\n";
  } else {
    out += "  closed loop, " + std::to_string(load.connections) + " connections\n";
  }
  out += "  duration " +
         (s["duration_s"].is_null() ? std::string("until -n") : s["duration_s"].dump() + " s") +
         ", warm-up " + s["warmup_s"].dump() + " s" +
         (load.max_requests > 0 ? ", at most " + std::to_string(load.max_requests) + " requests"
                                : std::string()) +
         "\n";
  if (s.contains("scenario")) {
    const nlohmann::json& scenario = s["scenario"];
    out += "  scenario " + scenario.value("file", std::string("(built in)")) + ": " +
           std::to_string(scenario.value("requests", nlohmann::json::object()).size()) +
           " requests, " +
           std::to_string(scenario.value("flows", nlohmann::json::object()).size()) +
           " flows, seed " + scenario["seed"].dump() + "\n";
  }
  for (const analyze::Threshold& t : options.thresholds)
    out += "  threshold " + t.expression + "\n";
  out += "  workers " + std::to_string(load.workers) +
         (options.out_dir ? ", results to " + options.out_dir->string() : std::string()) + "\n";
  out += "Nothing was sent (--plan).\n";
  return out;
}

Subcommand add_run_command(CLI::App& parent) {
  auto flags = std::make_shared<RunFlags>();
  auto targets = std::make_shared<std::vector<std::string>>();
  CLI::App* app = parent.add_subcommand(
      "run", "Run one load test against a URL, or a scenario file (with an optional URL)");
  app->add_option("target", *targets,
                  "Target URL (http://host:port/path), or a scenario file (.yaml) and optionally "
                  "the URL that replaces its target")
      ->required()
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

  return {app, [flags, targets, app] {
            std::optional<workload::Scenario> scenario = take_target(
                *targets, *flags, [app](const std::string& flag) { return app->count(flag) > 0; },
                "run");
            experiments::RunOptions options =
                build_run_options(*flags, command_line(), scenario ? &*scenario : nullptr);
            if (flags->plan) {
              std::fputs(describe_run(options).c_str(), stdout);
              return kExitOk;
            }
            report::RunResult result = experiments::run_load_test(options);
            if (result.interrupted) return kExitInterrupted;
            return result.thresholds_passed() ? kExitOk : kExitThresholds;
          }};
}

}  // namespace proofload::cli
