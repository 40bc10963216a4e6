// The drain gate: between ladder levels, wait until the system under test has caught up with the
// level before (its queues empty, its latency back to idle), so the next level measures capacity
// and not the backlog it inherited. Thread-safe (no shared state).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "net/tls.h"

namespace proofload::experiments {

struct DrainResult {
  bool drained = false;     // the last attempt said "caught up"
  bool cancelled = false;   // *cancel became true first
  double waited_s = 0;      // from the call until it returned
  int attempts = 0;         // probes or command runs started
  std::string last_answer;  // of the last attempt: "HTTP 503", "exit 1", "connection refused"
  // "drained after 1.5 s (4 attempts)", "not drained after 60 s (21 attempts; last: HTTP 503)",
  // "cancelled after 3 s (2 attempts; last: exit 1)"
  std::string describe() const;
};

// A JSON condition on a drain URL's answer, written as the URL's fragment (never sent):
// "http://host/admin/backlog#/backlog==0" is drained when the GET answers 2xx with a JSON body
// whose /backlog (an RFC 6901 pointer) is 0. Operators: == and != (numbers, strings, true, false,
// null), <, <=, >, >= (numbers).
struct DrainCondition {
  std::string pointer;
  std::string op;
  nlohmann::json value;
  std::string text;  // as written: "/backlog==0"

  // Whether `body` (JSON) meets it; `seen` is what the pointer found, for the log ("8682").
  bool holds(std::string_view body, std::string& seen) const;
};

struct DrainUrl {
  std::string url;  // without the fragment
  std::optional<DrainCondition> condition;
};

// "URL#CONDITION" split and checked; no '#': no condition. Throws UsageError (one line) for a
// condition that does not parse.
DrainUrl parse_drain_url(const std::string& until);

// `until` is a URL (is_url(): drained when a GET answers 2xx, and meets its JSON condition when it
// has one) or a shell command (drained when it exits 0). Tries at once, then every `every_ns`
// (counted from the start of the previous try) until drained, `timeout_ns` has passed, or *cancel
// (may be null) becomes true; one last try is made at the deadline itself. A command runs through
// run_hook (name "drain") with the time left as its timeout, at least kDrainMinTryNs; a GET gets
// the time left, at least kDrainMinTryNs and at most max(every_ns, kDrainMinTryNs), so a server
// that hangs one connection gets a fresh one. Every try appends one line to `output_file` ("try 2
// at 0.5 s: HTTP 503"), after the command's own output. An https URL is verified as `trust` says.
// Throws UsageError for a malformed URL, std::runtime_error if output_file cannot be written or
// a command cannot be started.
DrainResult wait_until_drained(const std::string& until, int64_t timeout_ns, int64_t every_ns,
                               const std::filesystem::path& output_file,
                               const std::atomic<bool>* cancel = nullptr,
                               const net::TlsOptions& trust = {});

// The least time one try is given, even at the deadline.
constexpr int64_t kDrainMinTryNs = 1'000'000'000;

}  // namespace proofload::experiments
