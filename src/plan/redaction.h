// Header values that are written nowhere: those of Authorization, Proxy-Authorization, Cookie,
// X-Api-Key and of each header named with `--redact NAME`. A recorded spec shows them as
// [redacted]; a recorded command as `-H "Authorization: $AUTHORIZATION"` (an environment variable
// the user sets before pasting it, named in a trailing comment); an error message with
// [redacted] in their place. main registers the names and the values given on the command line
// before anything runs; from then on these are read-only and safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proofload::plan {

// Registration (main, from argv): a name given to --redact; a sensitive value given with -H.
void redact_header(std::string_view name);
void remember_sensitive_value(std::string_view value);

// The header's value is never recorded: the stated list, or a name given to --redact.
bool is_sensitive_header(std::string_view name);

// A -H argument ("Name: value") as a recorded command shows it, quoted for a shell: as it is,
// or `"Name: $NAME"` for a sensitive header (NAME, the variable to hold its value, is added to
// `variables` once).
std::string shown_header_argument(const std::string& header, std::vector<std::string>& variables);

// The note a recorded command ends with when it names such variables ("" when none):
// "  # set AUTHORIZATION first: its value is not recorded" (a shell comment: pasting the line
// still works).
std::string sensitive_variables_note(const std::vector<std::string>& variables);

// `text` with every sensitive value registered replaced by [redacted] (for error messages,
// which may quote an argument).
std::string without_sensitive_values(std::string text);

}  // namespace proofload::plan
