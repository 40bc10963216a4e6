// The flags that say how levels are judged, shared by `ladder` and `analyze`: the SLO, whether
// 429s count as errors, the noise floor and the operating fraction. Configuration time only;
// throws UsageError.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "analyze/ladder_analysis.h"
#include "analyze/slo.h"
#include "cli/run_flags.h"
#include "experiments/ladder.h"
#include "workload/scenario.h"

namespace proofload::cli {

struct JudgementFlags {
  std::optional<std::string> slo;
  std::string count_429 = "error";
  std::optional<std::string> noise_floor;
  std::string operating_fraction = "50%";
};

void add_judgement_flags(CLI::App* app, JudgementFlags& flags);

struct Judgement {
  analyze::Slo slo;
  analyze::AnalysisOptions analysis;  // the caller sets analysis.loop
};

Judgement parse_judgement(const JudgementFlags& flags);

// Records the judgement in a ladder's settings: slo, slo_is_default, count_429_as_error,
// noise_floor, operating_fraction.
void record_judgement(const Judgement& judgement, result::LadderSettings& settings);

// The flags of `proofload ladder` (also filled in by `proofload demo`).
struct LadderFlags {
  RunFlags run;
  std::vector<std::string> targets;
  std::optional<std::string> concurrency;
  std::optional<std::string> rates;
  bool search = false;
  std::string start_rate = "100";
  double growth = 2;
  std::string step_hold = "10s";
  std::string hold = "30s";
  std::string warmup = "5s";
  int repeat = 1;
  std::string repeat_order = "sequence";
  JudgementFlags judgement;
  bool stop_on_fail = false;
  bool fail_if_none = false;
  std::optional<std::string> fail_below;
  std::optional<int> max_concurrency;
  std::optional<std::string> max_rate;
  std::optional<std::string> precheck;
  std::optional<std::string> abort_when;
  std::optional<std::string> drain_until;
  std::string drain_timeout = "60s";
  std::optional<std::string> before_level, after_level, reset, restore;
  std::string hook_timeout = "60s";
  bool plan = false;  // --plan: print it, send nothing
};

// Registers the ladder's flags (the target, levels, search, judgement, guards, hooks, --plan and
// the request flags) on `app`: `ladder`'s, and `sizing`'s for each configuration's ladder.
void add_ladder_flags(CLI::App* app, LadderFlags& flags);

// Checks the flags and builds the ladder: levels, guards, hooks, judgement, the run of each
// level (`scenario` may be null: a plain URL), the recorded source and settings. Sends nothing.
experiments::LadderPlan build_ladder_plan(LadderFlags& flags,
                                          std::shared_ptr<const workload::Scenario> scenario);

// Copies a report file (an experiment's summary.md) to stdout, flushed, so that a line on stderr
// after it comes after it; nothing when it cannot be read.
void print_file(const std::filesystem::path& file);

// How a ladder ended and where its report is, for stderr: "ladder: every level ran; report in
// DIR/summary.md, charts in DIR/report.html", and a line when the CI bar failed.
std::string ladder_end_lines(const char* command, const experiments::LadderPlan& plan,
                             const experiments::LadderOutcome& outcome);

// Prints the ladder's summary.md on stdout (when `print_summary`), then ladder_end_lines on
// stderr.
void print_report(const char* command, const experiments::LadderPlan& plan,
                  const experiments::LadderOutcome& outcome, bool print_summary);

// "ladder-20261130-055000" (UTC): the default report directory of an experiment.
std::string default_out_dir(const char* kind);

// "50%" or "0.5" -> 0.5; above 0 and at most 1.
double parse_fraction(const std::string& flag, const std::string& text);

}  // namespace proofload::cli
