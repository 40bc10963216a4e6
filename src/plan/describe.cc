// See plan_run.h: `run --plan`, what a planned run would do, from what it recorded.
#include "plan/plan_run.h"

#include "common/wall_time.h"
#include "schedule/arrivals.h"

namespace proofload::plan {
namespace {

// "1 flow", "3 flows".
std::string counted(size_t n, const std::string& one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

}  // namespace

std::string describe_run(const PlannedRun& run) {
  const nlohmann::json& s = run.recorded_spec;
  const engine::LoadSpec& load = run.load;
  std::string out = "Run: " + s.value("target", std::string()) + "\n";
  if (s.contains("targets")) {
    out += "  connections spread round-robin over " + std::to_string(s["targets"].size()) +
           " targets: " + s["targets"].dump() + "\n";
  }
  const bool open = load.executor == engine::Executor::kOpenLoop;
  if (!s["stages"].is_null()) {
    out += std::string(open ? "  open loop, arrival rate" : "  closed loop, connections") +
           " by stages: " + s["stages"].dump() + "\n";
  } else if (open) {
    out += "  open loop at " + s["rate_per_s"].dump() + "/s, " +
           counted(static_cast<size_t>(load.connections), "connection") + " up front, at most " +
           std::to_string(load.max_connections) + "\n";
  } else {
    out += "  closed loop, " + counted(static_cast<size_t>(load.connections), "connection") + "\n";
  }
  out += "  duration " +
         (s["duration_s"].is_null() ? std::string("until -n") : s["duration_s"].dump() + " s") +
         ", warm-up " + s["warmup_s"].dump() + " s" +
         (load.max_requests > 0 ? ", at most " + std::to_string(load.max_requests) + " requests" +
                                      (load.warmup_ns > 0 ? " after the warm-up" : "")
                                : std::string()) +
         "\n";
  if (s.contains("scenario")) {
    const nlohmann::json& scenario = s["scenario"];
    out += "  scenario " + scenario.value("file", std::string("(built in)")) + ": " +
           counted(scenario.value("requests", nlohmann::json::object()).size(), "request") +
           ", " + counted(scenario.value("flows", nlohmann::json::object()).size(), "flow") +
           ", seed " + scenario["seed"].dump() + "\n";
  }
  if (load.segments > 1) {
    const int64_t pool = open ? load.max_connections : load.connections;
    out += "  segment " + std::to_string(load.segment) + " of " + std::to_string(load.segments) +
           ": its " + std::to_string(schedule::share_of(pool, load.segment, load.segments)) +
           " of the " + std::to_string(pool) + " connections" +
           (open ? ", and arrivals k with k mod " + std::to_string(load.segments) + " = " +
                       std::to_string(load.segment)
                 : std::string()) +
           "; merge the segments with `proofload merge`\n";
  }
  if (run.start_at_wall_ns) out += "  starts at " + format_rfc3339_utc(*run.start_at_wall_ns) + "\n";
  for (const measure::Threshold& t : run.thresholds) out += "  threshold " + t.expression + "\n";
  if (run.reconcile) out += "  reconcile with " + *run.reconcile + " (read before and after)\n";
  out += "  workers " + std::to_string(load.workers) +
         (run.out_dir ? ", results to " + run.out_dir->string() : std::string()) + "\n";
  out += "Nothing was sent (--plan).\n";
  return out;
}

}  // namespace proofload::plan
