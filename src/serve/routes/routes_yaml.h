// Routes files and built-in profiles: YAML text in, a validated RouteTable out (the format is in
// docs/serve-routes.md). Configuration-time only: throws UsageError with one line
// "FILE:LINE:COLUMN: message". Stateless; safe to call from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "serve/routes/route_config.h"

namespace proofload::serve {

// Parses a routes file. `file_name` only labels messages. Rejects YAML syntax errors, unknown
// keys (naming the nearest allowed one), wrong types, probabilities outside [0, 1] or adding
// up to more than 1, rates <= 0, bad durations and sizes, unknown built-in handlers, bad path
// templates, two routes with the same method and path shape, two routes with the same name.
RouteTable parse_routes_yaml(std::string_view text, std::string_view file_name);

// Reads and parses a file; "cannot read routes file 'x': reason" when it cannot be read.
RouteTable load_routes_file(const std::string& path);

// The built-in profiles ("demo"), parsed with the same parser; UsageError on an unknown name.
RouteTable builtin_profile(std::string_view name);
// The YAML text of a built-in profile (to show users, and as an example to start from).
std::string_view builtin_profile_yaml(std::string_view name);
std::vector<std::string_view> builtin_profile_names();

}  // namespace proofload::serve
