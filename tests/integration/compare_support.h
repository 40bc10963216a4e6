// What the comparison's end-to-end tests share: built-in servers whose routes cost what the test
// says, a matrix file, and `proofload compare` run to completion.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "process.h"

namespace proofload::testing {

inline nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}

// A routes file whose routes answer after the delays given: {{"/lookup", "4ms"}, ...}.
inline std::string delayed_routes(const std::string& path,
                                  const std::vector<std::pair<std::string, std::string>>& routes) {
  std::string text = "routes:\n";
  for (const auto& [route, delay] : routes) {
    text += "  - {path: " + route + ", body: \"ok\\n\", delay: " + delay + "}\n";
  }
  write_file(path, text);
  return path;
}

// `proofload compare` with `args` after the subcommand; it must end within `deadline`.
inline Completed compare(std::vector<std::string> args,
                         std::chrono::seconds deadline = std::chrono::seconds(120)) {
  args.insert(args.begin(), {proofload_binary(), "compare"});
  return run_to_completion(args, deadline);
}

// compare.checks[] as "name|condition" -> verdict.
inline std::map<std::string, std::string> verdicts(const nlohmann::json& result) {
  std::map<std::string, std::string> out;
  for (const nlohmann::json& c : result["compare"]["checks"]) {
    out[c["name"].get<std::string>() + "|" + c["condition"].get<std::string>()] =
        c["verdict"].get<std::string>();
  }
  return out;
}

}  // namespace proofload::testing
