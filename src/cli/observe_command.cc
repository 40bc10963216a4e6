// `proofload observe SPEC... [-d 10m] [--observe-every 1s] [--out DIR]`: the observers alone, with
// the same files as a load run (see experiments/observe_only.h).
#include "cli/command_line.h"
#include "cli/subcommand.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/observe_only.h"

namespace proofload::cli {

Subcommand add_observe_command(CLI::App& parent) {
  struct Flags {
    std::vector<std::string> specs;
    std::string duration = "1m";
    std::string every = "1s";
    std::optional<std::string> out;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* app = parent.add_subcommand(
      "observe",
      "Only watch sources (a process, a cgroup, a Prometheus endpoint, the host), "
      "with the same files as a run");
  app->add_option("spec", flags->specs,
                  "pid:N, pidfile:PATH, cgroup:PATH, prom:URL[?match=a,b], "
                  "k8s:NAMESPACE/SELECTOR, host (repeatable)")
      ->required();
  app->add_option("-d,--duration", flags->duration, "How long to watch (default 1m)");
  app->add_option("--observe-every", flags->every, "How often to sample, 10ms to 1s (default 1s)");
  add_hidden_alias(app, "--every", flags->every);
  app->add_option("-o,--out", flags->out, "Write result.json and windows.csv here");
  return {app, [flags] {
            experiments::ObserveOptions options;
            options.specs = flags->specs;
            options.duration_ns = parse_duration_ns(flags->duration);
            if (options.duration_ns <= 0) throw UsageError("-d must be longer than 0");
            options.every_ns = parse_duration_ns(flags->every);
            if (options.every_ns < 10'000'000 || options.every_ns > 1'000'000'000) {
              throw UsageError("--observe-every must be between 10ms and 1s, got '" + flags->every +
                               "'");
            }
            if (flags->out) options.out_dir = *flags->out;
            options.command_line = command_line();
            report::RunResult result = experiments::run_observers(options);
            return result.interrupted ? kExitInterrupted : kExitOk;
          }};
}

}  // namespace proofload::cli
