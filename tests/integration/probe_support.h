// What the probe tests share: a routes file with one limited route, running `proofload probe`
// against it, and reading its result.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {

using nlohmann::json;

inline json read_json(const std::string& path) { return json::parse(read_file(path)); }

// A routes file with one limited route, /limited, with `limit` as given (YAML flow mapping), and
// the server's /metrics (what it answered, by route and status).
inline std::string limited_routes(const std::string& dir, const std::string& limit) {
  const std::string path = dir + "/routes.yaml";
  write_file(path, "routes:\n  - {path: /limited, body: \"ok\\n\", limit: " + limit + "}\n" +
                       "  - {path: /metrics, builtin: metrics}\n");
  return path;
}

// Runs `proofload probe` with `flags` after the URL; its exit code (the test fails if it hangs).
inline int probe(ServeProcess& server, const std::string& out, std::vector<std::string> flags,
                 std::string* err = nullptr) {
  std::vector<std::string> args = {
      proofload_binary(), "probe", server.url("/limited"), "-q", "-o", out};
  args.insert(args.end(), flags.begin(), flags.end());
  Completed done = run_to_completion(args, std::chrono::seconds(90));
  if (err != nullptr) *err = done.err;
  return done.exit_code;
}

inline const json& source_of(const json& result, const std::string& address) {
  for (const json& s : result["probe"]["sources"]) {
    if (s["address"] == address) return s;
  }
  throw std::runtime_error("no source " + address + " in " + result.dump());
}

}  // namespace proofload::testing
