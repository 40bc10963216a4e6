// `proofload observe`: the observers alone, as a watcher beside a test run by another tool. The
// same samplers, windows and files as a load run (result.json, windows.csv with the observed
// columns), with no load: the windows' request counts are all zero. Ctrl-C or SIGTERM ends it
// early; what was observed is written either way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/run_result.h"

namespace proofload::experiments {

struct ObserveOptions {
  std::vector<std::string> specs;  // --observe sources; the watcher itself is observed too
  int64_t every_ns = 1'000'000'000;
  int64_t duration_ns = 0;
  std::optional<std::filesystem::path> out_dir;
  std::string command_line;
  bool print_summary = true;
};

// Throws UsageError for a bad spec or result directory, before anything starts.
report::RunResult run_observers(const ObserveOptions& options);

}  // namespace proofload::experiments
