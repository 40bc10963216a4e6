// The command line proofload was started with, quoted so it can be pasted back into a shell
// (result files record it under "Reproduce"), and the header values it must never show. Set once
// by main before any subcommand runs.
//
// Sensitive headers are Authorization, Proxy-Authorization, Cookie, X-Api-Key and each name given
// with `--redact NAME`. Their values given with -H (in any of CLI11's spellings: `-H V`, `-HV`,
// `--header V`, `--header=V`) are written nowhere: the recorded command shows
// `-H "Authorization: $AUTHORIZATION"`, an environment variable the user sets before pasting it,
// and any error message has them replaced by [redacted].
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proofload::cli {

void remember_command_line(int argc, char** argv);
const std::string& command_line();

// Single-quotes an argument unless it is made only of characters a shell leaves alone.
std::string shell_quote(const std::string& arg);

// The header's value is never recorded: the stated list, or a name given to --redact.
bool is_sensitive_header(std::string_view name);

// A -H argument ("Name: value") as a recorded command shows it, quoted for a shell: as it is,
// or `"Name: $NAME"` for a sensitive header (NAME, the variable to hold its value, is added to
// `variables` once).
std::string shown_header_argument(const std::string& header, std::vector<std::string>& variables);

// `text` with every sensitive header value of the command line replaced by [redacted] (for
// error messages, which may quote an argument).
std::string without_sensitive_values(std::string text);

// The note a recorded command ends with when it names such variables ("" when none):
// "  # set AUTHORIZATION first: its value is not recorded" (a shell comment: pasting the line
// still works).
std::string sensitive_variables_note(const std::vector<std::string>& variables);

}  // namespace proofload::cli
