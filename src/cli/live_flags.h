// --dashboard, --dashboard-public and --metrics-listen: registered with the request flags (so
// run, ladder, soak, probe, compare and sizing all take them), and the live outputs they ask for,
// bound before any load is sent.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/run_flags.h"
#include "live/live_outputs.h"

namespace proofload::cli {

void add_live_flags(CLI::App* app, RunFlags& flags);

// The live outputs the flags ask for, listening, their URLs said on stderr ("dashboard:
// http://127.0.0.1:PORT/", "metrics: http://127.0.0.1:PORT/metrics"); null when none is asked
// for. `command` names the page ("ladder"). Throws UsageError (a bad address, a port in use, a
// dashboard off loopback without --dashboard-public).
std::unique_ptr<live::LiveOutputs> start_live_outputs(const RunFlags& flags,
                                                      const std::string& command);

}  // namespace proofload::cli
