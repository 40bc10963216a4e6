// The command line proofload was started with, quoted so it can be pasted back into a shell
// (result files record it under "Reproduce"). Set once by main before any subcommand runs.
#pragma once

#include <string>

namespace proofload::cli {

void remember_command_line(int argc, char** argv);
const std::string& command_line();

// Single-quotes an argument unless it is made only of characters a shell leaves alone.
std::string shell_quote(const std::string& arg);

}  // namespace proofload::cli
