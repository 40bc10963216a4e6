// See experiment.h.
#include "experiments/experiment.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/clock.h"
#include "common/usage_error.h"
#include "experiments/drain_gate.h"
#include "experiments/hooks.h"
#include "experiments/http_probe.h"

namespace proofload::experiments {

namespace fs = std::filesystem;

void Ending::set(std::string new_status, std::string why, int code) {
  if (ended()) return;
  status = std::move(new_status);
  reason = std::move(why);
  exit_code = code;
}

Experiment::Experiment(ExperimentSetup setup) : setup_(std::move(setup)) {}

bool Experiment::precheck() {
  if (!guards().precheck_url) return true;
  const int64_t start = monotonic_ns();
  const ProbeAnswer answer = http_get_status(*guards().precheck_url, 10'000'000'000, setup_.trust,
                                             &signals_.requested_flag());
  const bool ok = answer.status && *answer.status >= 200 && *answer.status < 300;
  Event event;
  event.kind = "precheck";
  event.name = "precheck";
  event.command = *guards().precheck_url;
  event.ok = ok;
  event.duration_s = seconds_of(monotonic_ns() - start);
  event.detail = answer.text();
  events_.push_back(std::move(event));
  if (answer.cancelled) {
    ending_.set("interrupted", "interrupted by a signal during the pre-check: nothing was sent",
                kExitInterrupted);
  } else if (!ok) {
    ending_.set("failed",
                fmt::format("the pre-check {} answered {}, not 2xx: nothing was sent",
                            *guards().precheck_url, answer.text()),
                kExitFailure);
  }
  return ok;
}

bool Experiment::hook(const std::string& name, const std::optional<std::string>& command,
                      const StepLabel* at, const std::atomic<bool>* cancel) {
  if (!command) return true;
  const fs::path log = context().out_dir / "hooks" / ((at ? at->file_prefix : "") + name + ".log");
  std::vector<std::pair<std::string, std::string>> env = {
      {"PROOFLOAD_HOOK", name}, {"PROOFLOAD_OUT", context().out_dir.string()}};
  if (at) env.insert(env.end(), at->env.begin(), at->env.end());
  if (!context().quiet) {
    std::fprintf(stderr, "%s: %s hook: %s\n", context().name.c_str(), name.c_str(),
                 command->c_str());
  }
  const HookResult r = run_hook(name, *command, guards().hooks.timeout_ns, log, env, cancel);
  Event event;
  event.kind = "hook";
  event.name = name;
  if (at) {
    event.level = at->level;
    event.repeat = at->repeat;
  }
  event.command = *command;
  event.ok = r.ok();
  event.exit_code = r.exit_code;
  event.timed_out = r.timed_out;
  event.duration_s = r.duration_s;
  event.output_file = fs::relative(log, context().out_dir).string();
  event.detail = r.describe();
  events_.push_back(std::move(event));
  const std::string where = at ? at->where : "";
  if (r.cancelled) {
    ending_.set("interrupted", fmt::format("interrupted by a signal during the {} hook", name),
                kExitInterrupted);
  } else if (!r.ok()) {
    ending_.set("failed",
                fmt::format("the {} hook failed{}: {} (output in {})", name, where, r.describe(),
                            fs::relative(log, context().out_dir).string()),
                kExitFailure);
  }
  return r.ok();
}

bool Experiment::drain(const StepLabel& at) {
  if (!guards().drain_until) return true;
  const std::string& name = drain_name_;
  const fs::path log = context().out_dir / "hooks" / (at.file_prefix + name + ".log");
  const DrainResult r =
      wait_until_drained(*guards().drain_until, guards().drain_timeout_ns, guards().drain_every_ns,
                         log, &signals_.requested_flag(), setup_.trust);
  Event event;
  event.kind = "drain";
  event.name = name;
  event.level = at.level;
  event.repeat = at.repeat;
  event.command = *guards().drain_until;
  event.ok = r.drained;
  event.timed_out = !r.drained && !r.cancelled;
  event.duration_s = r.waited_s;
  event.output_file = fs::relative(log, context().out_dir).string();
  event.detail = r.describe();
  events_.push_back(std::move(event));
  if (r.cancelled) {
    ending_.set("interrupted", "interrupted by a signal while waiting for the " + name + " gate",
                kExitInterrupted);
  } else if (!r.drained) {
    ending_.set("failed",
                fmt::format("the {} gate did not open{}: {}", name, at.where, r.describe()),
                kExitFailure);
  }
  return r.drained;
}

bool Experiment::step(const StepLabel& at, const std::function<bool()>& load) {
  if (stopping()) {
    ending_.set("interrupted", "interrupted by a signal" + at.where, kExitInterrupted);
    return false;
  }
  for (const auto& [name, command] : at.first_hooks) {
    if (!hook(name, command, &at, &signals_.requested_flag())) return false;
  }
  if (!hook(reset_name_, guards().hooks.reset, &at, &signals_.requested_flag())) return false;
  if (!drain(at)) return false;
  if (!hook("before-level", guards().hooks.before, &at, &signals_.requested_flag())) return false;
  if (load()) hook("after-level", guards().hooks.after, &at, &signals_.forced_flag());
  save();
  return true;
}

void Experiment::restore() {
  hook("restore", guards().hooks.restore, nullptr, &signals_.forced_flag());
}

bool Experiment::undo_hook(const std::string& name, const std::string& command,
                           const StepLabel& at) {
  return hook(name, command, &at, &signals_.forced_flag());
}

}  // namespace proofload::experiments
