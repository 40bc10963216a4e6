// proofload's entry point: parses the command line and dispatches to a subcommand. Bad input of
// any kind ends here as one line on stderr and exit code 2.
#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#include "cli/command_line.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "net/tls_memory.h"
#include "plan/redaction.h"
#include "registry/experiment_kinds.h"

int main(int argc, char** argv) {
  using namespace proofload;
  // Before anything touches OpenSSL: its per-record allocations come from per-thread pools.
  net::pool_tls_memory();
  CLI::App app{"proofload: load generator and capacity-evidence tool for HTTP services",
               "proofload"};
  cli::remember_command_line(argc, argv);
  app.require_subcommand(1);
  app.set_version_flag("--version", "proofload " PROOFLOAD_VERSION);
  // The experiments first, in the registry's order, then the commands that work on their results
  // or around them.
  std::vector<cli::Subcommand> commands;
  for (const registry::ExperimentKind& kind : registry::experiment_kinds()) {
    commands.push_back(kind.add_command(app, kind));
  }
  for (auto add : {cli::add_analyze_command, cli::add_report_command, cli::add_export_command,
                   cli::add_merge_command, cli::add_mark_command, cli::add_serve_command,
                   cli::add_demo_command, cli::add_observe_command, cli::add_k8s_command}) {
    commands.push_back(add(app));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::puts("proofload " PROOFLOAD_VERSION);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // `k8s job URL --rate 3000`: the experiment's flags belong after `--`, and the hint says so.
    const std::string hint =
        dynamic_cast<const CLI::ExtrasError*>(&e) ? cli::k8s_job_extras_hint(app) : "";
    std::fprintf(stderr, "proofload: error: %s%s\n",
                 plan::without_sensitive_values(e.what()).c_str(),
                 plan::without_sensitive_values(hint.empty() ? " (see --help)" : hint).c_str());
    return kExitUsage;
  }
  try {
    for (auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "proofload: error: %s\n",
                 plan::without_sensitive_values(e.what()).c_str());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // A file or answer larger than memory: what is bounded is refused earlier with its own
    // line; anything that still gets here ends as one line, never an abort.
    std::fputs("proofload: error: out of memory: the input is larger than this machine can hold\n",
               stderr);
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proofload: error: %s\n",
                 plan::without_sensitive_values(e.what()).c_str());
    return kExitFailure;
  }
  return kExitUsage;
}
