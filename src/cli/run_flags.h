// The flags of `proofload run`, and how they become a RunOptions (every check on them happens
// there, before anything is sent). Shared with `proofload demo`, which runs the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/run_experiment.h"
#include "plan/run_settings.h"
#include "plan/run_spec.h"

namespace proofload::registry {
struct ExperimentKind;
}  // namespace proofload::registry
#include "workload/scenario.h"

namespace proofload::cli {

// What a command line gave of a run: every run setting by name, as text (plan/run_settings.h
// reads it into the RunSpec), and what is not recorded with the run (where results go, the live
// view, --plan).
struct RunFlags {
  std::string url;  // "" when a scenario file names its target
  // --target's URLs among them: take_target makes the first the URL when no positional one is
  // given.
  plan::SettingTexts settings;
  std::vector<std::string> redact;  // --redact NAME: see command_line.h (it acts from argv)
  std::optional<std::string> out;
  bool quiet = false;
  bool plan = false;  // --plan: check everything, resolve and reach nothing, send nothing
  // The live view while it runs (cli/live_flags.h): nothing of it is recorded.
  std::optional<std::string> dashboard, metrics_listen;
  bool dashboard_public = false;

  // The text given for a setting (the last, for one that takes a value), or nullopt.
  std::optional<std::string> given(std::string_view name) const;
  const std::vector<std::string>& all_given(std::string_view name) const;  // empty if none
  void set(std::string_view name, std::string text) {
    settings[std::string(name)] = {std::move(text)};
  }
  void forget(std::initializer_list<std::string_view> names);
};

// The run settings of `scope` as flags of `app` (plan::run_settings(), in the table's order), but
// those named in `without`: a command lists only what it honours.
void add_run_settings(CLI::App* app, RunFlags& flags, plan::SettingScope scope,
                      std::initializer_list<std::string_view> without = {});

// The settings of a load split over segments (--segment I/N) as flags of `app`, the command of the
// experiment `kind`, when its registry entry says it takes them: stated there once, and read there
// by `k8s job` and `merge` as well.
void add_segment_settings(CLI::App* app, RunFlags& flags, const registry::ExperimentKind& kind);

// One run setting as a flag of `app`, with the command's own help for it when it means something
// more there (ladder's -c).
void add_run_setting(CLI::App* app, RunFlags& flags, std::string_view name,
                     std::string_view help = {});

// A scenario file: a YAML name, or anything that is not a URL and exists as a file.
bool looks_like_scenario_file(const std::string& target);

// The flags every command that sends load shares: the run settings of the request, the pool,
// observers, TLS and streams, with -q, --redact and the live view.
void add_request_flags(CLI::App* app, RunFlags& flags,
                       std::initializer_list<std::string_view> without = {});

// The flags (merged with `scenario` beforehand, see scenario_options.h) as the run they ask for:
// the target, then every setting's text read (plan::read_settings); the checks are plan_run's.
// Throws UsageError.
plan::RunSpec run_spec_from_flags(const RunFlags& flags, const workload::Scenario* scenario);

// run_spec_from_flags, planned (every check) and, unless flags.plan, aimed at the target after
// pre-flight. `command_line` is recorded for Reproduce; empty: the run's own
// (plan::run_command_text). Throws UsageError.
experiments::RunOptions build_run_options(const RunFlags& flags, const std::string& command_line,
                                          const workload::Scenario* scenario = nullptr);

}  // namespace proofload::cli
