// The flags of `proofload run`, and how they become a RunOptions (every check on them happens
// there, before anything is sent). Shared with `proofload demo`, which runs the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/run_experiment.h"
#include "plan/run_spec.h"
#include "workload/scenario.h"

namespace proofload::cli {

struct RunFlags {
  std::string url;                           // "" when a scenario file names its target
  // --target URL (repeatable): more targets of the same request, connections spread round-robin.
  // take_target makes the first the URL when no positional one is given; the rest stay here.
  std::vector<std::string> targets;
  std::optional<std::string> scenario_file;  // `proofload run FILE.yaml [URL]`
  std::string method = "GET";
  std::vector<std::string> headers;
  std::vector<std::string> redact;  // --redact NAME: see command_line.h (it acts from argv)
  std::optional<std::string> body;
  std::optional<std::string> body_file;
  int connections = 10;
  std::optional<int> max_connections;
  std::optional<std::string> rate;
  std::optional<std::string> executor;
  std::optional<std::string> duration;
  std::optional<std::string> stages;
  std::string warmup = "0s";
  std::optional<int64_t> requests;  // -n: nullopt is no limit (-n 0 is refused)
  int64_t queue = 10'000;
  std::string timeout = "10s";
  std::string connect_timeout = "5s";
  std::string grace = "5s";
  int workers = 0;
  std::optional<std::string> io;  // --io uring|epoll
  std::optional<std::string> sources;  // --sources: a list of local addresses, or a count
  // --segment I/N and --start-at (cli/segment_flags.h): run, ladder, soak and probe only.
  std::optional<std::string> segment, start_at;
  std::optional<std::string> out;
  bool quiet = false;
  std::vector<std::string> thresholds;  // --threshold, added to the scenario's
  // Data and mix draws (default: from the clock, recorded). Text, read by parse_seed: a number
  // past 2^64 - 1 is refused, not saturated.
  std::optional<std::string> seed;
  std::vector<std::string> observe;  // --observe SPEC (the generator itself is always observed)
  std::string observe_every = "1s";
  std::optional<std::string> reconcile;  // --reconcile 'prom:URL#METRIC' or a command
  bool plan = false;  // --plan: check everything, resolve and reach nothing, send nothing
  // https (see net::TlsOptions).
  std::optional<std::string> cacert;
  bool insecure = false;
  std::optional<std::string> sni;
  std::optional<std::string> cert;
  std::optional<std::string> key;
  std::optional<std::string> tls_min;  // "1.2" or "1.3"
  bool no_tls_resume = false;
  // --stream sse and how its events are read (plan::RunSpec::Stream).
  std::optional<std::string> stream, stream_content, stream_tokens, stream_end, stream_fixture,
      stream_idle_timeout, goodput;
  bool http2 = false;                 // --http2
  std::optional<int> h2_streams;      // --h2-streams
  // The live view while it runs (cli/live_flags.h): nothing of it is recorded.
  std::optional<std::string> dashboard, metrics_listen;
  bool dashboard_public = false;
};

// --seed: a whole number 0 to 2^64 - 1; throws UsageError for anything else.
uint64_t parse_seed(const std::string& text);

// --sources: local addresses separated by commas ("127.0.0.2,127.0.0.3"), or a count N for N
// loopback addresses from 127.0.0.2 on (N from 1 to plan::kMaxSources). Whether each is an
// address of this machine shows at pre-flight. Throws UsageError.
std::vector<std::string> parse_sources(const std::string& text);

// A scenario file: a YAML name, or anything that is not a URL and exists as a file.
bool looks_like_scenario_file(const std::string& target);

// The flags of the request and the connection pool that `run` and `ladder` share (targets,
// method, headers, body, timeouts, workers, seed, observers, quiet).
void add_request_flags(CLI::App* app, RunFlags& flags);

// The flags (merged with `scenario` beforehand, see scenario_options.h) as the run they ask for:
// their text read (durations, rates, stages, headers, the seed); the checks are plan_run's.
// Throws UsageError.
plan::RunSpec run_spec_from_flags(const RunFlags& flags, const workload::Scenario* scenario);

// run_spec_from_flags, planned (every check) and, unless flags.plan, aimed at the target after
// pre-flight. `command_line` is recorded for Reproduce; empty: the run's own
// (plan::run_command_text). Throws UsageError.
experiments::RunOptions build_run_options(const RunFlags& flags, const std::string& command_line,
                                          const workload::Scenario* scenario = nullptr);

}  // namespace proofload::cli
