// How main finds the subcommands: each subcommand file registers its flags on the parent app
// and returns what to run once the command line has been parsed. The experiments' commands are
// added by their registry entries (cli/experiment_commands.h); these are the others.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace proofload::cli {

struct Subcommand {
  CLI::App* app;            // the registered subcommand (parsed() tells whether it was chosen)
  std::function<int()> run;  // runs it; returns the process exit code
};

Subcommand add_serve_command(CLI::App& parent);
Subcommand add_demo_command(CLI::App& parent);
Subcommand add_observe_command(CLI::App& parent);
Subcommand add_analyze_command(CLI::App& parent);
Subcommand add_report_command(CLI::App& parent);
Subcommand add_export_command(CLI::App& parent);
Subcommand add_mark_command(CLI::App& parent);
Subcommand add_merge_command(CLI::App& parent);
Subcommand add_k8s_command(CLI::App& parent);
// For an argument `k8s job` does not take (CLI11's "not expected"): "; put the experiment's flags
// after `--`: proofload k8s job URL --segments 3 -- --rate 3000", or "" for any other command.
std::string k8s_job_extras_hint(const CLI::App& root);

// An older spelling of a flag (docs/cli.md), still taken into the same variable but not listed in
// help, so that one concept shows one name and scripts written with the old one keep working.
template <typename T>
void add_hidden_alias(CLI::App* app, const std::string& alias, T& variable) {
  app->add_option(alias, variable)->group("");
}

}  // namespace proofload::cli
