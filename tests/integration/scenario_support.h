// What the scenario tests share: writing a scenario file, running it with the real binary and
// reading its result.json, and the accounting every scenario result must satisfy.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {

using nlohmann::json;
using std::chrono::seconds;

inline std::string write_file(const std::string& dir, const std::string& name,
                              const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// `text` with every `@KEY@` replaced by `value`.
inline std::string substitute(std::string text, const std::string& key, const std::string& value) {
  const std::string marker = "@" + key + "@";
  for (size_t at; (at = text.find(marker)) != std::string::npos;)
    text.replace(at, marker.size(), value);
  return text;
}

inline int64_t n(const json& value) { return value.get<int64_t>(); }

// `proofload run FILE URL ARGS... -q -o OUT`, and its result.json (null when none was written).
struct ScenarioRun {
  Completed run;
  json result;
};

inline ScenarioRun run_scenario(const std::string& file, const std::string& url,
                                const std::vector<std::string>& args, const std::string& out,
                                seconds deadline = seconds(30)) {
  std::vector<std::string> command = {proofload_binary(), "run", file, url};
  command.insert(command.end(), args.begin(), args.end());
  for (const char* flag : {"-q", "-o"}) command.push_back(flag);
  command.push_back(out);
  ScenarioRun r{run_to_completion(command, deadline), nullptr};
  std::string text = read_file(out + "/result.json");
  if (!text.empty()) r.result = json::parse(text);
  return r;
}

// The totals every scenario result must satisfy: each intended request ends in one outcome and
// is counted under exactly one request name.
inline void expect_totals_add_up(const json& result) {
  const json& summary = result["summary"];
  int64_t outcomes = 0;
  for (const auto& [name, count] : summary["outcomes"].items()) outcomes += n(count);
  EXPECT_EQ(outcomes, n(summary["intended"])) << summary.dump(2);
  int64_t by_name = 0;
  for (const auto& [name, stats] : result["requests"].items()) {
    int64_t request_outcomes = 0;
    for (const auto& [o, count] : stats["outcomes"].items()) request_outcomes += n(count);
    EXPECT_EQ(request_outcomes, n(stats["requests"])) << name;
    by_name += n(stats["requests"]);
  }
  EXPECT_EQ(by_name, n(summary["intended"])) << result["requests"].dump(2);
}

// A flow's accounting against its steps' requests (which no other flow or mix entry uses):
// every flow started sent its first step; it then succeeded, failed or was cut short by the end
// of the run; a failed flow ended at exactly one failed request; no step is sent more often
// than the one before it.
inline void expect_flow_accounting(const json& result, const std::string& flow,
                                   const std::vector<std::string>& steps) {
  SCOPED_TRACE("flow " + flow);
  const json& f = result["flows"][flow];
  const json& requests = result["requests"];
  EXPECT_EQ(n(f["started"]), n(f["succeeded"]) + n(f["failed"]) + n(f["abandoned"])) << f.dump();
  EXPECT_EQ(n(requests[steps[0]]["requests"]), n(f["started"]));
  int64_t failed_requests = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    failed_requests += n(requests[steps[i]]["errors"]);
    if (i > 0) {
      EXPECT_LE(n(requests[steps[i]]["requests"]), n(requests[steps[i - 1]]["requests"]))
          << steps[i - 1] << " -> " << steps[i];
    }
  }
  EXPECT_EQ(failed_requests, n(f["failed"])) << requests.dump(2);
}

// Requests the server answered on every route but /metrics itself (from its /metrics page).
inline int64_t requests_served(int port) {
  std::istringstream page(http_get(port, "/metrics"));
  int64_t total = 0;
  for (std::string line; std::getline(page, line);) {
    if (line.rfind("proofload_requests_total{", 0) != 0) continue;
    if (line.find("route=\"metrics\"") != std::string::npos) continue;
    total += std::stoll(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

// create -> assign -> resolve on the demo server's lifecycle API; `think` is the pause between
// assign and resolve, in which the server commits the assign.
inline std::string lifecycle_scenario(const std::string& think) {
  return substitute(R"(
executor: {connections: 20, max_connections: 200}
data:
  title: {word: {}}
requests:
  create:
    method: POST
    path: /items
    body: "${title}"
    checks: [{status: 201}]
    extract:
      id: {json: /id}
  assign:
    method: POST
    path: /items/${id}/assign
    body: ana
    checks: [{status: 2xx}]
  resolve:
    method: POST
    path: /items/${id}/resolve
    checks: [{status: 2xx}]
flows:
  lifecycle:
    - create
    - {request: assign, think: @THINK@}
    - resolve
)",
                    "THINK", think);
}

}  // namespace proofload::testing
