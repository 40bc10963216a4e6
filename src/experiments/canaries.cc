// See canaries.h.
#include "experiments/canaries.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/clock.h"
#include "common/usage_error.h"
#include "experiments/http_probe.h"
#include "http/response_parser.h"
#include "http/url.h"
#include "workload/json_body.h"
#include "workload/session.h"

namespace proofload::experiments {

CanarySet::CanarySet(const workload::Scenario& scenario, const std::string& target,
                     const net::TlsOptions& tls) {
  const http::Url url = http::parse_url(target);
  host_ = url.host;
  port_ = url.port;
  if (url.tls()) tls_ = std::make_unique<net::TlsContext>(net::trust_of(tls), url.host);
  for (const workload::RequestSpec& spec : scenario.canaries) {
    // Each canary compiles as a scenario of its one request, with the file's defaults and data
    // (a default header may draw from it) and its secrets.
    workload::Scenario one;
    one.file = scenario.file;
    one.default_headers = scenario.default_headers;
    one.data = scenario.data;
    one.requests = {spec};
    one.mix = {workload::MixEntry{spec.name, 1, spec.where}};
    workload::SecretStore secrets;
    secrets.set_base_dir(std::filesystem::path(scenario.file).parent_path());
    canaries_.push_back({spec.name, workload::Workload::compile(one, url, secrets, 1)});
  }
}

std::vector<std::string> CanarySet::names() const {
  std::vector<std::string> out;
  for (const Canary& c : canaries_) out.push_back(c.name);
  return out;
}

std::string CanarySet::attempt(const Canary& canary, int64_t timeout_ns) {
  const workload::Workload& workload = *canary.workload;
  workload::WorkerContext context(workload, 0, 1);
  workload::Session session;
  session.bind(workload);
  const workload::CompiledRequest& request = session.begin_step(context);

  http::ResponseParser parser;
  parser.start(request.is_head, request.capture);
  http::ExchangeLimits limits;
  limits.max_bytes = kProbeMaxBytes + static_cast<int64_t>(request.capture.max_body_bytes);
  const http::Exchange done = http::exchange(addresses_, session.request_bytes(), parser,
                                             monotonic_ns() + timeout_ns, limits, tls_.get());
  if (!done.ok()) return exchange_failure_text(done, parser, timeout_ns);

  workload::ResponseView response;
  response.status = parser.status();
  response.headers = parser.captured_headers();
  response.body = parser.captured_body();
  response.body_truncated = parser.body_truncated();
  workload::JsonBodyCache json;
  bool status_checked = false;
  for (const workload::CompiledCheck& check : request.checks) {
    status_checked |= check.kind() == workload::CheckSpec::Kind::kStatusIn ||
                      check.kind() == workload::CheckSpec::Kind::kStatusRange;
    switch (check.evaluate(response, json)) {
      case workload::CheckResult::kPassed:
        break;
      case workload::CheckResult::kFailed:
        return fmt::format("status {}, check failed: {}", response.status, check.description());
      case workload::CheckResult::kBodyTruncated:
        return fmt::format("status {}, body too long to check: {}", response.status,
                           check.description());
    }
  }
  // Without a check of its own on the status, a canary answers 1xx-3xx, as the load's requests.
  if (!status_checked && (response.status < 100 || response.status >= 400)) {
    return fmt::format("status {}", response.status);
  }
  return "";
}

std::vector<CanaryResult> CanarySet::check_all(int64_t at_ns, int64_t timeout_ns) {
  std::vector<CanaryResult> results;
  std::string resolve_error;
  if (addresses_.empty()) {
    try {
      addresses_ = http::resolve_addresses(host_, port_);
    } catch (const UsageError& e) {
      resolve_error = e.what();  // it may resolve at the next round
    }
  }
  for (const Canary& canary : canaries_) {
    CanaryResult result;
    result.name = canary.name;
    result.at_ns = at_ns;
    std::string why = resolve_error.empty() ? attempt(canary, timeout_ns) : resolve_error;
    if (!why.empty() && resolve_error.empty()) {
      result.retried = true;
      why = attempt(canary, timeout_ns);
    }
    result.right = why.empty();
    result.reason = why;
    results.push_back(std::move(result));
  }
  return results;
}

CanaryRunner::CanaryRunner(CanarySet& set, int64_t every_ns, int64_t timeout_ns,
                           std::function<void(const CanaryResult&)> record)
    : set_(set), every_ns_(every_ns), timeout_ns_(timeout_ns), record_(std::move(record)) {}

CanaryRunner::~CanaryRunner() { stop(); }

void CanaryRunner::start(int64_t run_start_ns) {
  thread_ = std::thread([this, run_start_ns] { loop(run_start_ns); });
}

void CanaryRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CanaryRunner::loop(int64_t run_start_ns) {
  for (int64_t round = 0;; ++round) {
    const int64_t due = run_start_ns + round * every_ns_;
    {
      std::unique_lock lock(mutex_);
      // The monotonic clock is steady_clock's: waits end on time whatever the wall clock does.
      const auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due));
      if (wake_.wait_until(lock, deadline, [this] { return stopping_; })) return;
    }
    for (const CanaryResult& result : set_.check_all(due - run_start_ns, timeout_ns_)) {
      record_(result);
    }
  }
}

}  // namespace proofload::experiments
