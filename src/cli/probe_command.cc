// `proofload probe URL|SCENARIO.yaml [URL] --sources 127.0.0.2,127.0.0.3 -d 60s`: does the
// per-address rate limit work? Turns the flags into a ProbePlan (every check here or in the
// plan, before anything is sent: exit 2 on bad input), prints it with --plan, or runs it and
// prints the report.
#include <fmt/format.h>

#include <cstdio>

#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/experiment_commands.h"
#include "cli/ladder_flags.h"
#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/ladder_record.h"
#include "experiments/probe.h"
#include "experiments/segment_file.h"
#include "http/request.h"
#include "plan/redaction.h"
#include "plan/segment.h"
#include "registry/experiment_kinds.h"
#include "report/numbers.h"
#include "result/probe_expectation.h"

namespace proofload::cli {
namespace {

struct ProbeFlags {
  RunFlags run;
  std::vector<std::string> targets;
  std::string duration = "60s";
  std::string settle = "10s";
  std::optional<std::string> rate_per_source;
  std::optional<std::string> expect;
  std::string tolerance = "10%";
  std::vector<std::string> variants;
  std::string variant_duration = "10s";
  bool plan = false;
};

// "Origin: https://example.test": a header name, a colon, a value.
std::pair<std::string, std::string> parse_variant(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = colon == std::string::npos ? "" : text.substr(0, colon);
  if (colon == std::string::npos || name.empty() || !http::is_token(name)) {
    throw UsageError("--variant '" + text +
                     "': expected 'Name: value', e.g. 'Origin: https://example.test'");
  }
  return {name, std::string(trim_spaces_tabs(text.substr(colon + 1)))};
}

experiments::ProbePlan build_probe_plan(ProbeFlags& f,
                                        std::shared_ptr<const workload::Scenario> scenario) {
  experiments::ProbePlan plan;
  plan.sources = plan::read_sources(f.run.given("sources").value_or("3"));
  // Only a scenario file's settings set these: the probe's length and shape are its own.
  RunFlags base = f.run;
  base.forget({"duration", "requests", "rate", "executor", "stages", "sources"});
  if (!base.given("connections")) base.set("connections", "1");  // per source
  plan.base_run = run_spec_from_flags(base, scenario.get());
  if (plan.base_run.connections < 1) {
    throw UsageError("-c must be at least 1 (connections per source)");
  }
  plan.connections_per_source = plan.base_run.connections;
  if (f.rate_per_source) {
    plan.rate_per_source = parse_rate_per_s(*f.rate_per_source);
    if (*plan.rate_per_source <= 0) throw UsageError("--rate-per-source must be above 0");
  }
  plan.duration_ns = parse_positive_duration_ns("-d", f.duration);
  plan.settle_ns = parse_duration_ns(f.settle);
  if (plan.settle_ns < 0) throw UsageError("--settle must not be negative");
  if (plan.settle_ns + kNsPerS > plan.duration_ns) {
    throw UsageError(fmt::format("--settle {} leaves no whole second of -d {} to measure the "
                                 "sustained rate over",
                                 f.settle, f.duration));
  }
  const double tolerance = parse_fraction("--tolerance", f.tolerance);
  if (f.expect) plan.expect = result::parse_probe_expectation(*f.expect, tolerance);
  for (const std::string& text : f.variants) plan.variants.push_back(parse_variant(text));
  plan.variant_duration_ns = parse_positive_duration_ns("--variant-duration", f.variant_duration);
  plan.context = experiment_context(f.run, "probe");

  result::ProbeResult& r = plan.initial;
  if (plan::RunSpec& run = plan.base_run; run.segments > 1) {
    // A probe's segment is its share of the sources (source j to segment j mod N), each at the
    // probe's per-source load: the runs are then whole loads of their own, and `proofload merge`
    // puts the sources side by side. The variants run once, from segment 0's first source.
    run.sources = plan.sources;
    run.connections = static_cast<int>(plan.sources.size()) * plan.connections_per_source;
    plan::check_segment(run, run.connections);  // the index, and a source for each segment
    plan.sources = plan::segment_sources(run);
    run.sources.clear();
    r.segment = experiments::segment_record(run.segment, run.segments, run.start_at_wall_ns,
                                            run.start_at_wall_ns.value_or(wall_clock_ns()));
    if (run.segment != 0) plan.variants.clear();
    run.segment = 0;
    run.segments = 1;
  }

  r.source = recorded_source(plan.base_run, scenario ? scenario->file : "");
  if (scenario && scenario->requests.size() == 1) {
    r.settings.scenario_request = scenario->requests[0].name;
  }
  result::ProbeSettings& s = r.settings;
  s.sources = plan.sources;
  s.connections_per_source = plan.connections_per_source;
  s.rate_per_source = plan.rate_per_source;
  s.duration_s = seconds_of(plan.duration_ns);
  s.settle_s = seconds_of(plan.settle_ns);
  s.expect = f.expect;
  s.tolerance = tolerance;
  // As recorded: a secret header's value never is (plan/redaction.h).
  for (const auto& [name, value] : plan.variants) {
    s.variants.push_back(name + ": " + (plan::is_sensitive_header(name) ? "[redacted]" : value));
  }
  s.variant_duration_s = seconds_of(plan.variant_duration_ns);
  s.method = plan.base_run.method;
  return plan;
}

}  // namespace

Subcommand add_probe_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto f = std::make_shared<ProbeFlags>();
  CLI::App* app = parent.add_subcommand(
      kind.name,
      "Does the per-address rate limit work? Send from several local addresses at once and "
      "judge whether each gets its own allowance, what burst, and whether a header lifts it");
  app->add_option("target", f->targets,
                  "Target URL, or a scenario file (.yaml) naming the request and optionally the "
                  "URL that replaces its target")
      ->required()
      ->expected(1, 2);
  add_run_setting(app, f->run, "connections", "Connections per source (default 1)");
  app->add_option("-d,--duration", f->duration, "How long all sources send (default 60s)");
  app->add_option("--rate-per-source", f->rate_per_source,
                  "Requests per second from each source (default: flat out)");
  app->add_option("--settle", f->settle,
                  "The sustained rate is counted from this far in to the end (default 10s)");
  app->add_option("--expect", f->expect,
                  "The allowance each source should get, e.g. '100/s,burst=600'");
  app->add_option("--tolerance", f->tolerance,
                  "How far from --expect still passes (default 10%)");
  app->add_option("--variant", f->variants,
                  "Repeat the probe from the first source with this header added, e.g. "
                  "'Origin: https://example.test' (repeatable)");
  app->add_option("--variant-duration", f->variant_duration,
                  "How long each variant sends (default 10s)");
  app->add_option("-o,--out", f->run.out, "The report directory (default probe-DATE-TIME)");
  app->add_flag("--plan", f->plan, "Print the probe's plan; send nothing");
  add_request_flags(app, f->run);
  add_segment_settings(app, f->run, kind);
  app->get_option("--sources")
      ->description("The local addresses to send from, e.g. 127.0.0.2,127.0.0.3, or a count N "
                    "for 127.0.0.2 onwards (default 3)");

  return {app, [f, app] {
            return run_experiment_command(
                experiment_command<experiments::ProbePlan, experiments::ProbeOutcome>(
                    "probe",
                    [f, app] {
                      return build_probe_plan(*f, take_scenario(f->targets, f->run, app, "probe"));
                    },
                    experiments::describe_probe_plan, experiments::run_probe,
                    [](const auto&, const experiments::ProbeOutcome& outcome, const auto& summary) {
                      return fmt::format("probe: {}; {}: {}; report in {}\n",
                                         outcome.result.end_reason, outcome.result.analysis.verdict,
                                         outcome.result.analysis.reason, summary.string());
                    }),
                f->run, f->plan);
          }};
}

}  // namespace proofload::cli
