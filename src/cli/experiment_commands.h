// The experiments' commands, one each (cli/NAME_command.cc). Each is added by its registry entry
// (registry/experiment_kinds.h), never listed elsewhere: main adds every kind's command, and a
// command reads what it takes (--segment) from the entry it is given.
#pragma once

#include "cli/subcommand.h"

namespace proofload::registry {
struct ExperimentKind;
}  // namespace proofload::registry

namespace proofload::cli {

Subcommand add_run_command(CLI::App& parent, const registry::ExperimentKind& kind);
Subcommand add_ladder_command(CLI::App& parent, const registry::ExperimentKind& kind);
Subcommand add_soak_command(CLI::App& parent, const registry::ExperimentKind& kind);
Subcommand add_probe_command(CLI::App& parent, const registry::ExperimentKind& kind);
Subcommand add_compare_command(CLI::App& parent, const registry::ExperimentKind& kind);
Subcommand add_sizing_command(CLI::App& parent, const registry::ExperimentKind& kind);

}  // namespace proofload::cli
