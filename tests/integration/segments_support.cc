// See segments_support.h.
#include "segments_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <regex>
#include <stdexcept>

namespace proofload::testing {

using namespace std::chrono_literals;

int64_t server_answers(int port) {
  const std::string metrics = http_get(port, "/metrics");
  const std::regex line(R"re(proofload_requests_total\{route="GET /",status="200"\} (\d+))re");
  std::smatch m;
  if (!std::regex_search(metrics, m, line)) {
    throw std::runtime_error("no request count for / in /metrics:\n" + metrics);
  }
  return std::stoll(m[1]);
}

void run_segments(const std::function<std::vector<std::string>(int)>& args_of) {
  std::vector<std::unique_ptr<Process>> running;
  for (int i = 0; i < kSegments; ++i) running.push_back(std::make_unique<Process>(args_of(i)));
  for (auto& p : running) {
    const std::optional<int> code = p->wait(60s);
    ASSERT_TRUE(code.has_value());
    ASSERT_EQ(*code, 0) << p->err();
  }
}

Completed merge(const std::vector<std::string>& dirs, const std::string& out) {
  std::vector<std::string> args = {proofload_binary(), "merge"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  args.insert(args.end(), {"--out", out});
  return run_to_completion(args, 60s);
}

}  // namespace proofload::testing
