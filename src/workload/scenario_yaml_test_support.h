// Helpers shared by the scenario parser's tests: parse a text as "s.yaml" (data files from the
// test data folder), and the one-line error a text gives.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "common/usage_error.h"
#include "workload/scenario_yaml.h"

namespace proofload::workload {

inline const std::filesystem::path kTestdata = PROOFLOAD_SCENARIO_TESTDATA;

inline Scenario parse(std::string_view yaml) {
  return parse_scenario_yaml(yaml, "s.yaml", kTestdata);
}

// The message of the UsageError that parsing `yaml` as "s.yaml" throws, or "" if none.
inline std::string error_of(std::string_view yaml) {
  try {
    parse(yaml);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// A scenario with one request `r` to `/` and `extra` after it (whole top-level sections).
inline std::string with(std::string_view extra) {
  return "requests:\n  r: {path: /}\n" + std::string(extra);
}

}  // namespace proofload::workload
