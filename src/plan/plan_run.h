// A RunSpec made into what runs: the engine's load spec, the spec recorded in result.json (both
// from the one typed value), the thresholds, the observers, and the command that repeats the run.
// Pre-flight (resolving the target, the file-descriptor limit, a reachability probe) is apart so
// that an experiment does it once, not once per level. Configuration time only; throws
// UsageError with one clear line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/load_spec.h"
#include "http/h2_check.h"
#include "measure/threshold.h"
#include "net/transport.h"
#include "plan/run_spec.h"
#include "result/spec_record.h"

namespace proofload::plan {

// What pre-flight found: the address the load goes to, and for https what its handshake agreed.
struct Preflight {
  net::Address address;
  std::vector<net::Address> targets;  // with more_targets: every target's address, in order
  std::optional<net::TlsFacts> tls;
  std::optional<http::H2Facts> h2;  // --http2: what the server's SETTINGS said
  net::IoBackend io = net::IoBackend::kEpoll;  // --io, or the default here (choose_io_backend)
};

// Checks `spec` (plan_run's checks), chooses the I/O backend (io_uring wanted and not to be had
// falls back to epoll with a one-line note on stderr), resolves its target, raises the
// file-descriptor limit for the most connections it may open, and connects once (UsageError "cannot connect to ..."); for
// https it also handshakes once, so a refused certificate stops the run before any load.
Preflight preflight(const RunSpec& spec);

struct PlannedRun {
  engine::LoadSpec load;
  result::SpecRecord spec;  // result.json's `spec`
  std::vector<measure::Threshold> thresholds;
  std::vector<std::string> observe;
  int64_t observe_every_ns = kNsPerS;
  std::optional<std::string> reconcile;  // RunSpec::reconcile
  net::TlsOptions trust;     // how an https prom: observer is verified (net::trust_of)
  std::string command_line;  // what Reproduce shows
  std::optional<std::filesystem::path> out_dir;
  bool quiet = false;
  std::optional<int64_t> start_at_wall_ns;  // RunSpec::start_at_wall_ns: the load waits for it
};

// Checks everything `spec` says, compiles its workload (a scenario's, or the one fixed request),
// and builds the run, aimed nowhere yet (aim). `command_line`: the command as typed, recorded
// for Reproduce; "" records the spec's own `proofload run` command (run_command_text).
PlannedRun plan_run(const RunSpec& spec, const std::string& command_line = "");

// A threshold's, SLO bound's or abort rule's metric that `spec` cannot give: reconcile or drops
// without --reconcile, stream_goodput without --goodput, a scope that names no request or flow
// of the scenario (with the nearest name), a stream figure of a load that reads no stream.
// UsageError "WHAT needs --reconcile: ...", "WHAT: 'wrte' is no request or flow of s.yaml; did
// you mean 'write'?".
void check_metric_source(const measure::MetricRef& metric, const std::string& what,
                         const RunSpec& spec);

// Points the run at the address pre-flight found, in its load and in its recorded spec. A run
// never aimed (`--plan`) reaches nothing and records an empty address.
void aim(PlannedRun& run, const Preflight& preflight);

// `run --plan`: what the run would do, in a few lines; sends nothing.
std::string describe_run(const PlannedRun& run);

// The `proofload run` command that runs `spec` again, quoted for a shell: every setting not at
// its default, the seed it drew with (a scenario's), and no -o (re-running must not overwrite the
// recorded run). Sensitive header values are shown as variables (redaction.h).
std::string run_command_text(const RunSpec& spec, std::optional<uint64_t> seed);

}  // namespace proofload::plan
