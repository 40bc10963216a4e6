// See experiment_command.h.
#include "cli/experiment_command.h"

#include "cli/command_line.h"
#include "cli/ladder_flags.h"
#include "cli/scenario_options.h"
#include "experiments/ladder_record.h"

namespace proofload::cli {

experiments::ExperimentContext experiment_context(const RunFlags& flags, const char* name,
                                                  const char* default_dir) {
  experiments::ExperimentContext context;
  context.name = name;
  context.out_dir = flags.out ? *flags.out : default_out_dir(default_dir ? default_dir : name);
  context.quiet = flags.quiet;
  context.command_line = command_line();
  context.started_at = experiments::ExperimentContext::now();
  return context;
}

std::shared_ptr<const workload::Scenario> take_scenario(const std::vector<std::string>& targets,
                                                        RunFlags& flags, CLI::App* app,
                                                        const char* command) {
  std::optional<workload::Scenario> scenario =
      take_target(targets, flags, flags_given(app), command);
  if (!scenario) return nullptr;
  return std::make_shared<const workload::Scenario>(std::move(*scenario));
}

result::LadderSource recorded_source(const plan::RunSpec& run, const std::string& scenario_file) {
  result::LadderSource source;
  source.target = run.target;
  source.protocol = run.protocol == engine::Protocol::kHttp2 ? "h2" : "http/1.1";
  if (!scenario_file.empty()) {
    source.scenario_file = scenario_file;
    source.scenario_sha256 = experiments::file_sha256(scenario_file);
  }
  return source;
}

int say_how_it_ended(const experiments::ExperimentContext& context, const std::string& end,
                     int exit_code) {
  if (!context.quiet) print_file(context.out_dir / "summary.md");
  std::fputs(end.c_str(), stderr);
  return exit_code;
}

}  // namespace proofload::cli
