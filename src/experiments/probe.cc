// See probe.h.
#include "experiments/probe.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/experiment.h"
#include "experiments/probe_record.h"
#include "experiments/run_experiment.h"
#include "plan/plan_run.h"
#include "report/atomic_file.h"
#include "report/line_file.h"
#include "report/numbers.h"
#include "report/probe_report.h"
#include "words/numbers.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

// A variant's header as recorded and shown (a secret header's value is not: the CLI redacts it).
const std::string& shown_variant(const ProbePlan& plan, size_t index) {
  return plan.initial.settings.variants.at(index);
}

// The spec every probe step shares: the sources, their connections each, flat out or at a rate
// each, the rate-limit headers watched.
plan::RunSpec step_run(const ProbePlan& plan, std::vector<std::string> sources,
                       int64_t duration_ns, const fs::path& out_dir) {
  plan::RunSpec spec = plan.base_run;
  const int n = static_cast<int>(sources.size());
  spec.sources = std::move(sources);
  spec.workers = 0;
  spec.connections = plan.connections_per_source * n;
  spec.stages.clear();
  spec.requests_limit.reset();
  if (plan.rate_per_source) {
    spec.executor = engine::Executor::kOpenLoop;
    spec.rate_per_s = *plan.rate_per_source * n;
    spec.max_connections = std::max(spec.connections, spec.max_connections.value_or(0));
  } else {
    spec.executor = engine::Executor::kClosedLoop;
    spec.rate_per_s.reset();
    spec.max_connections.reset();
  }
  spec.duration_ns = duration_ns;
  spec.warmup_ns = 0;
  spec.watch_limit_headers = true;
  spec.out_dir = out_dir;
  return spec;
}

// The main step as it runs: each window's per-source counts kept and streamed to the sources'
// CSVs.
class SourceRecorder {
 public:
  SourceRecorder(const ProbePlan& plan, std::vector<analyze::ProbeSourceSeries>& series)
      : series_(series) {
    fs::create_directories(plan.context.out_dir / kProbeSourcesDir);
    for (const std::string& address : plan.sources) {
      analyze::ProbeSourceSeries s;
      s.address = address;
      series_.push_back(std::move(s));
      files_.push_back(std::make_unique<report::LineFile>(
          probe_csv_path(plan.context.out_dir, address), report::kProbeCsvHeader));
    }
  }

  void add(const measure::WindowStats& w) {
    for (size_t i = 0; i < series_.size() && i < w.sources.size(); ++i) {
      const measure::SourceWindow& from = w.sources[i];
      analyze::ProbeSourceSeries& s = series_[i];
      const analyze::ProbeSecond second{w.index, from.let_through, from.limited, from.other};
      s.per_second.push_back(second);
      if (from.let_through_before_first_429 && !s.let_through_before_first_429) {
        s.let_through_before_first_429 = from.let_through_before_first_429;
      }
      if (!from.headers.empty()) s.headers = from.headers;
      const std::string row = report::probe_csv_row(second, from.let_through_before_first_429);
      if (write_failure_.empty()) {
        try {
          files_[i]->append(row);
        } catch (const std::runtime_error& e) {
          write_failure_ = e.what();  // the series in memory still reaches result.json
        }
      }
    }
  }

 private:
  std::vector<analyze::ProbeSourceSeries>& series_;
  std::vector<std::unique_ptr<report::LineFile>> files_;
  std::string write_failure_;
};

// What a variant's run let through, from its totals.
analyze::ProbeVariantRun variant_counts(const ProbePlan& plan, size_t index,
                                        const report::RunResult& run) {
  analyze::ProbeVariantRun v;
  v.header = shown_variant(plan, index);
  v.address = plan.sources.front();
  v.duration_s = run.measured_duration_s;
  const measure::SourceWindow counts = run.total.limit_counts();
  v.let_through = counts.let_through;
  v.limited = counts.limited;
  v.other = counts.other;
  return v;
}

}  // namespace

plan::RunSpec probe_run(const ProbePlan& plan) {
  return step_run(plan, plan.sources, plan.duration_ns, plan.context.out_dir / "run");
}

plan::RunSpec variant_run(const ProbePlan& plan, size_t index) {
  plan::RunSpec spec =
      step_run(plan, {plan.sources.front()}, plan.variant_duration_ns,
               plan.context.out_dir / "variants" / fmt::format("{:02}", index + 1));
  const std::pair<std::string, std::string>& header = plan.variants[index];
  std::erase_if(spec.headers, [&](const auto& h) { return ascii_iequals(h.first, header.first); });
  spec.headers.push_back(header);
  return spec;
}

std::string describe_probe_plan(const ProbePlan& plan) {
  std::string out = fmt::format(
      "Probe: {} source{} at once ({}), {} connection{} each, {}, for {}.\n", plan.sources.size(),
      plan.sources.size() == 1 ? "" : "s", fmt::format("{}", fmt::join(plan.sources, ", ")),
      plan.connections_per_source, plan.connections_per_source == 1 ? "" : "s",
      plan.rate_per_source
          ? fmt::format("{}/s each", words::fixed_with_thousands(*plan.rate_per_source, 1))
          : std::string("flat out"),
      format_duration(plan.duration_ns));
  out += fmt::format("  target: {}\n", plan.base_run.target);
  out += fmt::format("  sustained rate counted from {} to the end\n",
                     format_duration(plan.settle_ns));
  if (plan.expect) {
    out += fmt::format("  each source must get {} (within {:g}%)\n", plan.expect->text,
                       plan.expect->tolerance * 100);
  }
  for (size_t i = 0; i < plan.variants.size(); ++i) {
    out += fmt::format("  then from {} with '{}' for {}\n", plan.sources.front(),
                       shown_variant(plan, i), format_duration(plan.variant_duration_ns));
  }
  out += fmt::format("Results: {}\nNothing was sent (--plan).\n", plan.context.out_dir.string());
  return out;
}

ProbeOutcome run_probe(const ProbePlan& plan) {
  // Before anything is sent: every step's run checked as it will be, each source bound once
  // (pre-flight connects from each: one that is not an address of this machine is one line).
  plan::PlannedRun main_run = plan::plan_run(probe_run(plan));
  const plan::Preflight found = plan::preflight(probe_run(plan));
  plan::aim(main_run, found);
  std::vector<plan::PlannedRun> variant_runs;
  for (size_t i = 0; i < plan.variants.size(); ++i) {
    variant_runs.push_back(plan::plan_run(variant_run(plan, i)));
    plan::aim(variant_runs.back(), found);
  }

  fs::create_directories(plan.context.out_dir);
  Experiment experiment(ExperimentSetup{plan.context, {}, plan.base_run.tls});
  result::ProbeResult result = plan.initial;
  plan.context.open_record(result);
  Ending& ending = experiment.ending();
  try {
    StepLabel label;
    label.file_prefix = "probe-";
    experiment.step(label, [&] {
      RunOptions options;
      options.run = main_run;
      options.print_summary = false;
      options.live_progress = !plan.context.quiet;
      options.live = plan.context.live;
      options.progress_label = fmt::format("probe from {} sources", plan.sources.size());
      SourceRecorder recorder(plan, result.series);
      options.on_start = [&](int64_t, int64_t) {
        // Written once: what `proofload report` rebuilds a killed probe's report from.
        report::write_file_atomically(plan.context.out_dir / kProbePlanJson,
                                      result::probe_to_json(result).dump(2) + "\n");
      };
      options.abort_check = [&](const measure::WindowStats& w) {
        recorder.add(w);
        return std::string();
      };
      result.measured_s = run_step_load(options, experiment).run.measured_duration_s;
      return true;
    });
    for (size_t i = 0; i < variant_runs.size() && !ending.ended() && !experiment.stopping(); ++i) {
      StepLabel label;
      label.file_prefix = fmt::format("variant-{:02}-", i + 1);
      label.where = " with '" + shown_variant(plan, i) + "'";
      experiment.step(label, [&] {
        RunOptions options;
        options.run = variant_runs[i];
        options.print_summary = false;
        options.live_progress = !plan.context.quiet;
        options.live = plan.context.live;
        options.progress_label = "variant " + shown_variant(plan, i);
        const StepRun step = run_step_load(options, experiment, label.where);
        if (!ending.ended()) {
          analyze::ProbeVariantVerdict v;
          v.run = variant_counts(plan, i, step.run);
          result.variants.push_back(std::move(v));
        }
        return true;
      });
    }
  } catch (const std::exception& e) {
    ending.set("failed", e.what(), kExitFailure);
  }
  experiment.restore();
  complete_probe(result);
  if (!ending.ended()) ending.set("complete", "the probe ran its length", kExitOk);
  result.status = ending.status;
  result.end_reason = ending.reason;
  result.finished_at = report::iso8601_utc(wall_clock_ns());
  result.events = experiment.events();
  write_probe_directory(plan.context.out_dir, result);

  int exit_code = ending.exit_code;
  if (exit_code == kExitOk && !probe_held(result)) exit_code = kExitThresholds;
  return {result, exit_code};
}

}  // namespace proofload::experiments
