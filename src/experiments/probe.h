// `proofload probe`: does the per-address rate limit work? One step on the experiment runner
// (experiment.h): a run whose connections are bound to several local source addresses at once
// (plan::RunSpec::sources: a worker per source, all starting together), flat out or at a rate per
// source, whose windows say per source and per second what the limit let through, refused (429)
// or did otherwise (measure::SourceWindow). They are streamed to sources/ADDRESS.csv as the run
// goes. Then each header variant repeats the probe from the first source with a header added, a
// step of its own. The analysis (analyze/probe_analysis.h) judges the sources and the variants;
// result.json and summary.md say whether each address gets its own allowance, what burst each
// gets, and whether a header lifts the limit. A probe killed outright leaves probe-plan.json and
// the CSVs, from which `proofload report DIR` rebuilds the report (probe_record.h).
// Runs on the caller's thread; one probe per process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/probe_analysis.h"
#include "experiments/experiment_context.h"
#include "live/live_outputs.h"
#include "plan/run_spec.h"
#include "result/probe_result.h"

namespace proofload::experiments {

struct ProbePlan {
  // The request (a URL's, or a scenario file's), its flags and TLS; probe_run sets the sources,
  // connections, rate and length.
  plan::RunSpec base_run;
  std::vector<std::string> sources;  // local addresses
  int connections_per_source = 1;
  std::optional<double> rate_per_source;  // nullopt: flat out (closed loop)
  int64_t duration_ns = 60 * int64_t{1'000'000'000};
  int64_t settle_ns = 10 * int64_t{1'000'000'000};
  std::optional<analyze::ProbeExpectation> expect;
  std::vector<std::pair<std::string, std::string>> variants;  // {name, value}
  int64_t variant_duration_ns = 10 * int64_t{1'000'000'000};
  // Its directory, command line and live outputs (no guards: a probe has no hooks).
  ExperimentContext context;
  // settings, source and segment as recorded; the context opens it, the probe fills in the rest.
  result::ProbeResult initial;
};

// The main step's run: base_run from every source, connections_per_source each (a closed loop
// flat out, or an open loop at rate_per_source each), for duration_ns, into out_dir/run.
plan::RunSpec probe_run(const ProbePlan& plan);
// Variant `index`'s run: from the first source alone, with its header added (replacing one of
// the same name), for variant_duration_ns, into out_dir/variants/NN.
plan::RunSpec variant_run(const ProbePlan& plan, size_t index);

// `--plan`: the sources, the load, the expectation and the variants. Sends nothing.
std::string describe_probe_plan(const ProbePlan& plan);

struct ProbeOutcome {
  result::ProbeResult result;
  // 0: complete and judged "separate allowances", every --expect met, no variant lifted the
  // limit; 99: any of those not so (or unclear); 1: failed; 130: interrupted.
  int exit_code = 0;
};

// Runs the probe and writes its directory. UsageError, before anything is sent, for a source
// that is not an address of this machine or a target it cannot reach.
ProbeOutcome run_probe(const ProbePlan& plan);

}  // namespace proofload::experiments
