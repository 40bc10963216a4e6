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
    if (flags.url.empty() && !flags.targets.empty()) {
      flags.url = flags.targets.front();
      flags.targets.erase(flags.targets.begin());
    }
  };
  if (targets.empty()) {
    if (flags.targets.empty()) throw UsageError(command + " needs a URL or a scenario file");
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
  const workload::ExecutorSettings& e = scenario.executor;
  if (e.executor && !given("--executor")) flags.executor = e.executor;
  if (e.connections && !given("--connections")) flags.connections = *e.connections;
  if (e.max_connections && !given("--max-connections")) flags.max_connections = e.max_connections;
  // A rate or stages on the command line replace the file's load shape as a whole; -d replaces
  // the file's duration, and its stages (which carry their own durations).
  bool shape_given = given("--rate") || given("--stages");
  if (e.rate && !shape_given) flags.rate = e.rate;
  if (e.stages && !shape_given && !given("--duration")) flags.stages = e.stages;
  if (e.duration && !given("--duration") && !given("--stages")) flags.duration = e.duration;
  if (e.warmup && !given("--warmup")) flags.warmup = *e.warmup;
  if (e.requests && !given("--requests")) flags.requests = *e.requests;
  if (e.timeout && !given("--timeout")) flags.timeout = *e.timeout;
  // --http2 only turns HTTP/2 on; a file's `protocol: h2` does the same.
  if (scenario.protocol == "h2") flags.http2 = true;
  if (e.h2_streams && !given("--h2-streams")) flags.h2_streams = e.h2_streams;
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
