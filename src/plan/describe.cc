// See plan_run.h: `run --plan`, what a planned run would do, from what it recorded.
#include "plan/plan_run.h"

#include <string_view>

#include "common/wall_time.h"
#include "result/spec_record.h"
#include "schedule/arrivals.h"

namespace proofload::plan {
namespace {

// A recorded value as result.json writes it: "412.5", "[{\"duration_s\":2.0,...}]", "null".
std::string recorded_text(const result::SpecRecord& spec, std::string_view key) {
  return result::spec_key_json(spec, key).dump();
}

// "1 flow", "3 flows".
std::string counted(size_t n, const std::string& one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

}  // namespace

std::string describe_run(const PlannedRun& run) {
  const result::SpecRecord& s = run.spec;
  const engine::LoadSpec& load = run.load;
  std::string out = "Run: " + s.target.value_or(std::string()) + "\n";
  if (s.targets.present()) {
    out += "  connections spread round-robin over " +
           std::to_string(s.targets ? s.targets->size() : 0) +
           " targets: " + recorded_text(s, "targets") + "\n";
  }
  const bool open = load.executor == engine::Executor::kOpenLoop;
  if (s.stages) {
    out += std::string(open ? "  open loop, arrival rate" : "  closed loop, connections") +
           " by stages: " + recorded_text(s, "stages") + "\n";
  } else if (open) {
    out += "  open loop at " + recorded_text(s, "rate_per_s") + "/s, " +
           counted(static_cast<size_t>(load.connections), "connection") + " up front, at most " +
           std::to_string(load.max_connections) + "\n";
  } else {
    out += "  closed loop, " + counted(static_cast<size_t>(load.connections), "connection") + "\n";
  }
  out += "  duration " +
         (!s.duration_s ? std::string("until -n") : recorded_text(s, "duration_s") + " s") +
         ", warm-up " + recorded_text(s, "warmup_s") + " s" +
         (load.max_requests > 0 ? ", at most " + std::to_string(load.max_requests) + " requests" +
                                      (load.warmup_ns > 0 ? " after the warm-up" : "")
                                : std::string()) +
         "\n";
  if (s.scenario) {
    const result::SpecScenario& scenario = *s.scenario;
    out += "  scenario " + scenario.file.value_or(std::string("(built in)")) + ": " +
           counted(scenario.requests ? scenario.requests->size() : 0, "request") + ", " +
           counted(scenario.flows ? scenario.flows->size() : 0, "flow") + ", seed " +
           (scenario.seed ? std::to_string(*scenario.seed) : std::string("null")) + "\n";
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
