// `proofload run URL [flags]` and `proofload run SCENARIO.yaml [URL] [flags]`: turns flags (and a
// scenario file) into a RunSpec, plans it (plan/plan_run.h: every check, before anything is
// sent; exit 2 on bad input) and runs it (exit 99 when a threshold fails).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/experiment_commands.h"
#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "experiments/run_experiment.h"
#include "http/request.h"
#include "http/url.h"
#include "plan/plan_run.h"
#include "registry/experiment_kinds.h"

namespace proofload::cli {

std::optional<std::string> RunFlags::given(std::string_view name) const {
  const auto found = settings.find(name);
  if (found == settings.end() || found->second.empty()) return std::nullopt;
  return found->second.back();
}

const std::vector<std::string>& RunFlags::all_given(std::string_view name) const {
  static const std::vector<std::string> kNone;
  const auto found = settings.find(name);
  return found == settings.end() ? kNone : found->second;
}

void RunFlags::forget(std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (const auto found = settings.find(name); found != settings.end()) settings.erase(found);
  }
}

namespace {

// A setting's flag of `app`, filling flags.settings[name]; under `names`, with `help`.
CLI::Option* add_setting_option(CLI::App* app, RunFlags& flags, const plan::RunSetting& setting,
                                const std::string& names, const std::string& help) {
  const std::string name(setting.name);
  RunFlags* into = &flags;
  switch (setting.takes) {
    case plan::SettingTakes::kText:
      return app->add_option_function<std::string>(
          names, [into, name](const std::string& text) { into->settings[name] = {text}; }, help);
    case plan::SettingTakes::kWholeNumber:
      return app->add_option_function<int64_t>(
          names, [into, name](int64_t value) { into->settings[name] = {std::to_string(value)}; },
          help);
    case plan::SettingTakes::kTexts:
      return app->add_option_function<std::vector<std::string>>(
          names,
          [into, name](const std::vector<std::string>& texts) {
            std::vector<std::string>& all = into->settings[name];
            all.insert(all.end(), texts.begin(), texts.end());
          },
          help);
    case plan::SettingTakes::kSwitch:
      return app->add_flag_function(
          names,
          [into, name](int64_t count) {
            if (count > 0) into->settings[name] = {"true"};
          },
          help);
  }
  return nullptr;
}

}  // namespace

void add_run_setting(CLI::App* app, RunFlags& flags, std::string_view name,
                     std::string_view own_help) {
  const plan::RunSetting* setting = plan::find_run_setting(name);
  if (setting == nullptr) throw std::logic_error("no run setting " + std::string(name));
  std::string help(own_help.empty() ? setting->help : own_help);
  if (!setting->default_text.empty())
    help += " (default " + std::string(setting->default_text) + ")";
  CLI::Option* option = add_setting_option(app, flags, *setting, std::string(setting->flags), help);
  if (!setting->group.empty()) option->group(std::string(setting->group));
  // Older spellings: taken, not listed.
  if (!setting->aliases.empty()) {
    add_setting_option(app, flags, *setting, std::string(setting->aliases), help)->group("");
  }
}

void add_run_settings(CLI::App* app, RunFlags& flags, plan::SettingScope scope,
                      std::initializer_list<std::string_view> without) {
  for (const plan::RunSetting& setting : plan::run_settings()) {
    if (setting.scope != scope ||
        std::find(without.begin(), without.end(), setting.name) != without.end()) {
      continue;
    }
    add_run_setting(app, flags, setting.name);
  }
}

void add_segment_settings(CLI::App* app, RunFlags& flags, const registry::ExperimentKind& kind) {
  if (kind.takes_segment) add_run_settings(app, flags, plan::SettingScope::kSegment);
}

bool looks_like_scenario_file(const std::string& target) {
  auto ends_with = [&](std::string_view suffix) {
    return target.size() >= suffix.size() &&
           target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".yaml") || ends_with(".yml")) return true;
  return target.find("://") == std::string::npos && access(target.c_str(), R_OK) == 0;
}

void add_request_flags(CLI::App* app, RunFlags& flags,
                       std::initializer_list<std::string_view> without) {
  add_run_settings(app, flags, plan::SettingScope::kEveryLoad, without);
  // Read from argv by remember_command_line, before any output: the option is here to be
  // accepted and listed, and to check that each is a header name.
  app->add_option("--redact", flags.redact,
                  "Never record this header's value, as Authorization, Proxy-Authorization, "
                  "Cookie and X-Api-Key never are (repeatable)")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            return http::is_token(name) ? "" : "'" + name + "' is no header name";
          },
          "HEADER"));
  app->add_flag("-q,--quiet", flags.quiet, "No live progress");
  add_live_flags(app, flags);
}

plan::RunSpec run_spec_from_flags(const RunFlags& f, const workload::Scenario* scenario) {
  plan::RunSpec spec;
  spec.target = f.url;
  if (spec.target.empty() && scenario) {
    if (!scenario->target) {
      throw UsageError(scenario->file +
                       ": no target: set 'target:' in the file or give a URL "
                       "after it");
    }
    spec.target = *scenario->target;
    spec.target_from_scenario = true;
  }
  if (spec.target.empty()) throw UsageError("run needs a URL or a scenario file");
  http::parse_url(spec.target);  // a bad URL is the first thing to say
  if (scenario) spec.scenario = std::make_shared<const workload::Scenario>(*scenario);
  plan::read_settings(f.settings, spec);
  // Each setting's own check now, not only when a run is planned: an experiment's --plan plans
  // no run, and must refuse what its runs would.
  plan::check_settings(spec);
  if (f.out) spec.out_dir = *f.out;
  spec.quiet = f.quiet;
  return spec;
}

experiments::RunOptions build_run_options(const RunFlags& f, const std::string& command_line,
                                          const workload::Scenario* scenario) {
  const plan::RunSpec spec = run_spec_from_flags(f, scenario);
  experiments::RunOptions options;
  options.run = plan::plan_run(spec, command_line);
  // --plan checks everything but reaches nothing.
  if (!f.plan) plan::aim(options.run, plan::preflight(spec));
  options.live_progress = !f.quiet;
  return options;
}

Subcommand add_run_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto flags = std::make_shared<RunFlags>();
  auto targets = std::make_shared<std::vector<std::string>>();
  CLI::App* app = parent.add_subcommand(
      kind.name, "Run one load test against a URL, or a scenario file (with an optional URL)");
  app->add_option("target", *targets,
                  "Target URL (http://host:port/path), or a scenario file (.yaml) and optionally "
                  "the URL that replaces its target (or --target URL)")
      ->expected(1, 2);
  add_run_settings(app, *flags, plan::SettingScope::kRunShape);
  app->add_option("-o,--out", flags->out, "Write result.json, windows.csv, latency.hlog here");
  app->add_flag("--plan", flags->plan,
                "Check the flags and the scenario, print the load it would send, send nothing");
  add_request_flags(app, *flags);
  add_segment_settings(app, *flags, kind);

  return {app, [flags, targets, app] {
            return run_experiment_command(
                ExperimentCommand<experiments::RunOptions, report::RunResult>{
                    "run",
                    [flags, targets, app] {
                      std::shared_ptr<const workload::Scenario> scenario =
                          take_scenario(*targets, *flags, app, "run");
                      return build_run_options(*flags, command_line(), scenario.get());
                    },
                    [](const experiments::RunOptions& options) {
                      return plan::describe_run(options.run);
                    },
                    [](experiments::RunOptions& options, live::LiveOutputs* live) {
                      options.live = live;
                      return experiments::run_load_test(options);
                    },
                    // The run printed its own summary; its thresholds set the exit code.
                    [](const experiments::RunOptions&, const report::RunResult& result) {
                      if (result.interrupted) return kExitInterrupted;
                      return result.thresholds_passed() ? kExitOk : kExitThresholds;
                    }},
                *flags, flags->plan);
          }};
}

}  // namespace proofload::cli
