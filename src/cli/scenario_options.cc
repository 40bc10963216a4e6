// See scenario_options.h.
#include "cli/scenario_options.h"

#include "cli/run_flags.h"
#include "common/usage_error.h"
#include "workload/scenario_yaml.h"

namespace proofload::cli {

std::optional<workload::Scenario> take_target(const std::vector<std::string>& targets,
                                              RunFlags& flags, const FlagGiven& given,
                                              const std::string& command) {
  // Without a URL of its own, the first --target is the URL; the other --target URLs follow it.
  auto url_or_first_target = [&flags](const std::string& url) {
    flags.url = url;
    const auto more = flags.settings.find("target");
    if (flags.url.empty() && more != flags.settings.end() && !more->second.empty()) {
      flags.url = more->second.front();
      more->second.erase(more->second.begin());
    }
  };
  if (targets.empty()) {
    if (flags.all_given("target").empty()) {
      throw UsageError(command + " needs a URL or a scenario file");
    }
    url_or_first_target("");
    return std::nullopt;
  }
  const std::string& first = targets.at(0);
  if (!looks_like_scenario_file(first)) {
    if (targets.size() > 1) {
      throw UsageError(command + " takes one URL; a second one ('" + targets[1] +
                       "') only follows a scenario file (more URLs: --target)");
    }
    url_or_first_target(first);
    return std::nullopt;
  }
  workload::Scenario scenario = workload::load_scenario_file(first);
  // The file's own target stays the first when no URL follows it: --target URLs add to it.
  flags.url = targets.size() > 1 ? targets[1] : "";
  merge_scenario_settings(flags, scenario, given);
  return scenario;
}

void merge_scenario_settings(RunFlags& flags, const workload::Scenario& scenario,
                             const FlagGiven& given) {
  // A rate or stages on the command line replace the file's load shape as a whole; -d replaces
  // the file's duration, and its stages (which carry their own durations).
  const bool shape_given = given("--rate") || given("--stages");
  for (const auto& [name, text] : scenario.settings) {
    if (given("--" + name)) continue;
    if ((name == "rate" || name == "stages") && shape_given) continue;
    if (name == "stages" && given("--duration")) continue;
    if (name == "duration" && given("--stages")) continue;
    flags.set(name, text);
  }
  // --http2 only turns HTTP/2 on; a file's `protocol: h2` does the same.
  if (scenario.protocol == "h2") flags.set("http2", "true");
}

FlagGiven flags_given(CLI::App* app) {
  return [app](const std::string& flag) {
    try {
      return app->count(flag) > 0;
    } catch (const CLI::OptionNotFound&) {
      return false;
    }
  };
}

}  // namespace proofload::cli
