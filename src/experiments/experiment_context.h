// What every experiment runs with, whatever it varies, built once by its command: where its
// files go, whether it speaks on stderr, the command line and start time its record opens with,
// the live outputs its steps feed, and the guards around its steps (pre-check, abort rule, drain
// gate, hooks). Each experiment's plan (LadderPlan, SoakPlan, ...) holds one as `context`; the
// runner's ExperimentSetup (experiment.h) is made from it. The stop signals are not here: the
// runner owns them while it runs (common/stop_signals.h). A value; configuration time only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "analyze/abort_rule.h"

namespace proofload::live {
class LiveOutputs;
}

namespace proofload::experiments {

// Shell commands around each step (hooks.h runs them) and once at the end.
struct StepHooks {
  std::optional<std::string> before;   // just before each step's load starts
  std::optional<std::string> after;    // just after each step's load (also one that failed)
  std::optional<std::string> reset;    // before each step, ahead of the drain gate
  std::optional<std::string> restore;  // once at the end, on every exit path
  int64_t timeout_ns = 60'000'000'000;
};

// What guards an experiment's steps: checked before anything, watched during each load, and run
// around each step.
struct ExperimentGuards {
  std::optional<std::string> precheck_url;       // must answer 2xx before anything starts
  std::optional<analyze::AbortRule> abort_when;  // ends a step's load, and the experiment
  // Before each step: URL (2xx = drained) or command (exit 0 = drained). A sizing's ready wait.
  std::optional<std::string> drain_until;
  int64_t drain_timeout_ns = 60'000'000'000;
  int64_t drain_every_ns = 500'000'000;
  StepHooks hooks;
};

struct ExperimentContext {
  std::string name;  // "ladder", "soak", ...: its lines on stderr begin "ladder: "
  std::filesystem::path out_dir;
  bool quiet = false;        // no progress lines on stderr
  std::string command_line;  // as recorded (cli/command_line.h: secrets hidden)
  std::string started_at;    // ISO 8601 UTC: when the command began
  // --dashboard, --metrics-listen: the process's live outputs, fed by every step (not owned).
  live::LiveOutputs* live = nullptr;
  ExperimentGuards guards;

  // The header every experiment's record opens with: status "running", this proofload's version,
  // the command line and started_at.
  template <typename Record>
  void open_record(Record& record) const {
    record.status = "running";
    record.proofload_version = proofload_version();
    record.command_line = command_line;
    record.started_at = started_at;
  }

  // This experiment (its name and guards) run inside `outer` (each configuration's ladder in a
  // sizing): the outer one's quiet, command line and live outputs, in `dir`, started now.
  ExperimentContext within(const ExperimentContext& outer, std::filesystem::path dir) const;

  static const char* proofload_version();
  // The wall clock now, as started_at records it ("2026-11-30T05:50:00.000Z").
  static std::string now();
};

}  // namespace proofload::experiments
