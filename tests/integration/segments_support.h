// Test support for the segment tests (segments_test.cc, segments_experiments_test.cc): one load
// as three segments, each its own process, against servers on 127.0.0.1.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {

constexpr int kSegments = 3;

inline nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}

// What a built-in server with a `metrics` route answered on `/` with 200, from its own /metrics.
int64_t server_answers(int port);

// Starts `args_of(i)` for each of the kSegments segments at once and waits for all (60 s at
// most); a gtest failure when one does not exit 0.
void run_segments(const std::function<std::vector<std::string>(int)>& args_of);

// `proofload merge DIRS... --out OUT`.
Completed merge(const std::vector<std::string>& dirs, const std::string& out);

}  // namespace proofload::testing
