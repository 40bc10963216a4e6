// The experiment runner: what every experiment made of load steps shares, whatever it varies. It
// owns the output directory's safety (the experiment's files are rewritten after every step, so
// a crash loses at most the step in progress), the event log (hooks, drain waits, the
// pre-check), the Ending (why it stopped: the first reason wins), SIGINT/SIGTERM (the first stops
// before the next step, a second also cancels the hooks still to run on the way out), and the
// step itself: reset → drain gate → before → the load → after, with restore once at the end, on
// every exit path. An experiment is a planner (which step next), an analysis of what the steps
// recorded, and a report section; the runner does the rest.
//
// Each experiment's use of it: docs/architecture.md, 'Adding an experiment'.
// Runs on the caller's thread; one experiment per process (it owns the stop signals).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/stop_signals.h"
#include "experiments/experiment_context.h"
#include "net/tls.h"
#include "result/event.h"

namespace proofload::experiments {

// What the runner is made from: the experiment's context (its directory, name, quiet and guards;
// the abort rule and live outputs are its steps' to use), how it saves its files, and how an
// https pre-check or drain URL is verified (net::trust_of).
struct ExperimentSetup {
  ExperimentContext context;
  std::function<void()> save;  // rewrites the experiment's files with what it recorded
  net::TlsOptions trust;
};

// A hook, a drain wait or the pre-check, as result.json's `events` records them.
using result::Event;

// How an experiment ended; the first reason wins.
struct Ending {
  std::string status = "complete";  // "complete", "stopped", "aborted", "failed", "interrupted"
  std::string reason;
  int exit_code = 0;

  bool ended() const { return !reason.empty(); }
  void set(std::string new_status, std::string why, int code);
};

// Where a step is, for its files, its hooks' environment and its messages.
struct StepLabel {
  std::optional<double> level;
  std::optional<int> repeat;
  std::string file_prefix;                               // "03-400-": hooks/03-400-before-level.log
  std::string where;                                     // " at level 400 (repeat 2)"
  std::vector<std::pair<std::string, std::string>> env;  // PROOFLOAD_LEVEL=400, ...
  // Hooks of this step alone, {name, command}, run in order before its reset: a comparison's
  // switch to side B, a setting's apply, a cold cell's reset.
  std::vector<std::pair<std::string, std::string>> first_hooks;
};

class Experiment {
 public:
  explicit Experiment(ExperimentSetup setup);
  Experiment(const Experiment&) = delete;
  Experiment& operator=(const Experiment&) = delete;

  const ExperimentSetup& setup() const { return setup_; }
  Ending& ending() { return ending_; }
  const std::vector<Event>& events() const { return events_; }
  // A signal came (or a step's run was interrupted: stop_requested()).
  bool stopping() const { return signals_.requested(); }
  void stop_requested() { signals_.request(); }

  // The pre-check, when set: false (and the ending set) when it did not answer 2xx.
  bool precheck();
  // One step: reset, the drain gate, before, then `load` (which returns whether the load ran: a
  // run that could not start skips the after hook), then after, then the files are saved.
  // Returns false when the step stopped before its load (a signal, a hook, the gate).
  bool step(const StepLabel& at, const std::function<bool()>& load);
  // The restore hook; call once, on every exit path.
  void restore();
  // What the reset hook and the drain gate are called in events, log files and messages: a
  // sizing's reset is its "apply", its drain gate its "ready" wait.
  void rename_gates(std::string reset_name, std::string drain_name) {
    reset_name_ = std::move(reset_name);
    drain_name_ = std::move(drain_name);
  }
  // A named hook between steps that puts something back (a comparison's setting restore): it
  // runs even after a signal (a second one cancels it), as restore does. False when it failed.
  bool undo_hook(const std::string& name, const std::string& command, const StepLabel& at);
  void save() const {
    if (setup_.save) setup_.save();
  }

 private:
  const ExperimentContext& context() const { return setup_.context; }
  const ExperimentGuards& guards() const { return setup_.context.guards; }
  bool hook(const std::string& name, const std::optional<std::string>& command, const StepLabel* at,
            const std::atomic<bool>* cancel);
  bool drain(const StepLabel& at);

  ExperimentSetup setup_;
  StopSignals signals_;
  std::vector<Event> events_;
  Ending ending_;
  std::string reset_name_ = "reset";
  std::string drain_name_ = "drain";
};

}  // namespace proofload::experiments
