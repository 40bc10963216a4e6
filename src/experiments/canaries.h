// A soak's canaries: known-answer requests from the scenario file's `canaries:` section, sent
// every --canary-every on a connection of their own (a fresh blocking exchange each, never one of
// the load's connections), so they never shift the load's rate or enter its histograms. A wrong
// answer is sent once more; the result says whether it needed that retry.
// CanarySet is immutable after construction and its check_all is safe from one thread at a time;
// CanaryRunner owns that one thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/blocking_client.h"
#include "net/tls.h"
#include "workload/scenario.h"
#include "workload/workload.h"

namespace proofload::experiments {

struct CanaryResult {
  std::string name;
  int64_t at_ns = 0;     // when its first attempt started, ns since the run started
  bool right = false;    // the answer (of the retry, when there was one) passed every check
  bool retried = false;  // the first answer was wrong, so it was asked again
  std::string reason;    // when wrong: why ("status 500", "check failed: json /id == 42", ...)
};

class CanarySet {
 public:
  // Compiles the scenario's canaries against `target` (the run's URL) with its default headers
  // and secrets. Throws UsageError for a canary that cannot be built (a secret not set, ...).
  CanarySet(const workload::Scenario& scenario, const std::string& target,
            const net::TlsOptions& tls);
  CanarySet(const CanarySet&) = delete;
  CanarySet& operator=(const CanarySet&) = delete;

  std::vector<std::string> names() const;
  bool empty() const { return canaries_.empty(); }

  // Asks every canary once (a wrong one twice), each attempt bounded by `timeout_ns`, and
  // returns their results stamped with `at_ns`. Never throws for what the server does.
  std::vector<CanaryResult> check_all(int64_t at_ns, int64_t timeout_ns);

 private:
  struct Canary {
    std::string name;
    std::shared_ptr<const workload::Workload> workload;  // one request: the canary
  };
  // One attempt: "" when right, else why not.
  std::string attempt(const Canary& canary, int64_t timeout_ns);

  std::vector<Canary> canaries_;
  std::string host_;
  uint16_t port_ = 0;
  std::vector<http::SocketAddress> addresses_;  // resolved at the first check
  std::unique_ptr<net::TlsContext> tls_;
};

// Runs a CanarySet every `every_ns` on its own thread, from the run's start, and hands each
// result to `record` (on that thread).
class CanaryRunner {
 public:
  CanaryRunner(CanarySet& set, int64_t every_ns, int64_t timeout_ns,
               std::function<void(const CanaryResult&)> record);
  ~CanaryRunner();
  CanaryRunner(const CanaryRunner&) = delete;
  CanaryRunner& operator=(const CanaryRunner&) = delete;

  // `run_start_ns`: the monotonic time the load started; the first round is at once.
  void start(int64_t run_start_ns);
  // Ends the waiting at once (an attempt in flight finishes within its timeout) and joins.
  void stop();

 private:
  void loop(int64_t run_start_ns);

  CanarySet& set_;
  int64_t every_ns_;
  int64_t timeout_ns_;
  std::function<void(const CanaryResult&)> record_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace proofload::experiments
