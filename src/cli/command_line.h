// The command line proofload was started with, quoted so it can be pasted back into a shell
// (result files record it under "Reproduce"). Set once by main before any subcommand runs; it
// also registers what plan/redaction.h must hide: the names given to --redact and the values of
// sensitive headers given with -H, in any of CLI11's spellings (`-H V`, `-HV`, `--header V`,
// `--header=V`), which the recorded command shows as `-H "Authorization: $AUTHORIZATION"`.
#pragma once

#include <string>
#include <vector>

namespace proofload::cli {

void remember_command_line(int argc, char** argv);
const std::string& command_line();
// The arguments as given, after the program's name (unquoted, nothing hidden).
const std::vector<std::string>& command_arguments();

}  // namespace proofload::cli
