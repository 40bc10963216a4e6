// The configuration model of the route-based built-in server: plain, validated values that a
// routes file (routes_yaml.h) or a built-in profile turns into. Immutable once built; safe to
// share read-only between threads. All times are in ns, all rates per second.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::serve {

// How long a response waits before it is sent (no CPU spent). Draws come from the table's seed.
struct DelaySpec {
  enum class Kind { kNone, kFixed, kUniform, kExponential, kLognormal };
  Kind kind = Kind::kNone;
  int64_t fixed_ns = 0;  // kFixed: every response waits exactly this (> 0; 0 is kNone)
  int64_t min_ns = 0;    // kUniform: uniform on [min_ns, max_ns], 0 <= min_ns <= max_ns
  int64_t max_ns = 0;
  int64_t mean_ns = 0;    // kExponential: mean (> 0); the median is mean * ln 2
  int64_t median_ns = 0;  // kLognormal: ln(delay) ~ Normal(ln median, sigma), given by its
  int64_t p99_ns = 0;     // median and p99 (median < p99): sigma = ln(p99 / median) / z_0.99.
                          // A file may give sigma instead; p99 is then computed from it.
  bool operator==(const DelaySpec&) const = default;
};

// The longest delay a route may ask for (the delay samplers cap there too).
constexpr int64_t kMaxRouteDelayNs = int64_t{86'400} * 1'000'000'000;

// z_0.99 = Phi^-1(0.99) for the standard normal: links a lognormal's sigma and p99.
constexpr double kLognormalZ99 = 2.3263478740408408;

// A token bucket per caller: `burst` tokens, refilled at `rate_per_s`; a request without a
// token gets 429 with Retry-After. A request carrying `trusted_header` (name compared
// case-insensitively, value exactly) skips the bucket, like a client-set header lifting a limit.
// `key` and `instances` reproduce two real misconfigurations: callers that share an allowance
// (a proxy hid their addresses) or get a fresh one at will (a client-set header is the key), and
// an allowance split over `instances` pods behind a load balancer.
struct LimitSpec {
  enum class Key {
    kAddress,  // the peer's address without port
    kShared,   // the peer addresses hashed onto `shared_allowances` allowances
    kHeader,   // the value of the header `key_header`; the peer's address without it
  };
  double rate_per_s = 0;                                              // > 0
  int64_t burst = 1;                                                  // >= 1
  std::optional<std::pair<std::string, std::string>> trusted_header;  // {name, value}
  Key key = Key::kAddress;
  int64_t shared_allowances = 0;  // kShared: 1..kMaxSharedAllowances; else 0
  std::string key_header = {};    // kHeader: an HTTP token, as written; else empty
  int64_t instances = 1;          // 1..min(burst, kMaxLimitInstances): each rate/K, burst/K
  bool operator==(const LimitSpec&) const = default;
};

constexpr int64_t kMaxSharedAllowances = 1'000'000;
// Each instance keeps its own table of buckets; a few hundred pods is already a large service.
constexpr int64_t kMaxLimitInstances = 1000;

// Probabilities of injected failures, each in [0, 1], summing to at most 1; with the rest the
// route answers normally. One draw per request picks at most one failure.
struct FailSpec {
  double p500 = 0;              // answer 500
  double p503 = 0;              // answer 503
  double reset = 0;             // close the connection without answering (RST)
  double garbage = 0;           // send bytes that are not HTTP, then close
  double trickle = 0;           // send the body a few bytes at a time, slowly
  double oversized_header = 0;  // send a response header far over any client's limit
  double total() const { return p500 + p503 + reset + garbage + trickle + oversized_header; }
  bool operator==(const FailSpec&) const = default;
};

// A text/event-stream answer: `events` events spread evenly over `over_ns`, each about
// `event_bytes` long and carrying `tokens_per_event` tokens, then one terminator event.
struct SseSpec {
  int events = 0;            // >= 1
  int64_t over_ns = 0;       // >= 0; 0 sends every event at once
  int64_t event_bytes = 64;  // >= 1, the data of one event
  int tokens_per_event = 1;  // >= 0
  bool operator==(const SseSpec&) const = default;
};

// An OpenAI-compatible completion (`llm`, for streaming tests): after `ttft_ns` the first token,
// then one every 1 / tokens_per_s, tokens_min..tokens_max of them (uniform; a request's
// max_tokens caps it), at most `concurrency` generations at once with the rest queued in front
// (0: no cap). `"stream": true` in the request's JSON asks for the event stream.
struct LlmSpec {
  int64_t ttft_ns = 200'000'000;  // >= 0
  double tokens_per_s = 50;       // > 0
  int tokens_min = 100;           // 1..kMaxLlmTokens, <= tokens_max
  int tokens_max = 100;
  int concurrency = 0;            // 0..100'000
  bool operator==(const LlmSpec&) const = default;
};
constexpr int kMaxLlmTokens = 10'000;

// A delay that grows with the server's age: `add_ns` more for every whole `every_ns` since time
// zero (when the server began listening), on top of the route's `delay`, capped at
// kMaxRouteDelayNs. Steps rather than a slope, so a test knows the exact delay of each second.
struct DriftSpec {
  int64_t add_ns = 0;    // > 0, at most kMaxRouteDelayNs
  int64_t every_ns = 0;  // > 0
  bool operator==(const DriftSpec&) const = default;
};

// A fault in force during [at_ns, at_ns + for_ns) from time zero: the route answers `status`
// (with a short body) instead, or, when status is 0, its own status with `body` instead (a
// canary whose answer turns wrong). Of overlapping faults the first in the list wins.
struct FaultSpec {
  int64_t at_ns = 0;   // >= 0
  int64_t for_ns = 0;  // > 0
  int status = 0;      // 100..599, or 0 for a body fault
  std::string body;    // the wrong answer of a body fault
  bool operator==(const FaultSpec&) const = default;
};

// The handlers the server implements itself; a route names one in `builtin`.
inline constexpr std::array<std::string_view, 10> kBuiltinHandlers = {
    "lifecycle.create", "lifecycle.assign", "lifecycle.resolve", "lifecycle.get",
    "lifecycle.search", "admin.backlog",    "admin.ready",       "admin.reset",
    "health",           "metrics"};

// Methods a route may name; "*" matches any method.
inline constexpr std::array<std::string_view, 8> kRouteMethods = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "*"};

// Limits of a path template, those of the server's path matcher (serve/behaviour).
constexpr size_t kMaxPathParameters = 4;
constexpr size_t kMaxPathSegments = 16;

constexpr int64_t kMaxRouteBodyBytes = int64_t{64} * 1024 * 1024;  // as `serve --body-size`

struct RouteSpec {
  std::string name;                   // label in metrics; unique; default "METHOD path"
  std::string method;                 // one of kRouteMethods
  std::string path;                   // template: "/items/{id}"; see parse_path_template
  int status = 200;                   // 100..599
  std::string body;                   // fixed body (used when body_bytes is empty)
  std::optional<int64_t> body_bytes;  // generated filler body of this size, 0..kMaxRouteBodyBytes
  std::string content_type = "text/plain";  // "text/event-stream" by default for sse routes
  int64_t cpu_ns = 0;                       // busy CPU time spent on the request
  DelaySpec delay;
  bool serial = false;  // requests on this route run one at a time per server (one mutex each)
  bool cache = false;   // the answer per query string is computed once (paying cpu), then reused
  std::optional<LimitSpec> limit;
  std::optional<FailSpec> fail;
  std::optional<SseSpec> sse;
  std::optional<LlmSpec> llm;
  std::optional<DriftSpec> drift;
  std::vector<FaultSpec> faults;  // in file order: the first in force wins
  std::string builtin;  // "" or one of kBuiltinHandlers (then status, body, content_type, sse
                        // and cache are the handler's own)
  bool operator==(const RouteSpec&) const = default;
};

// The stateful create -> assign -> resolve API: writes are accepted at once and committed by
// `committers` threads, each commit costing `commit_cost_ns`; a search costs
// `search_cost_per_item_ns` for every stored item.
struct LifecycleSpec {
  int committers = 2;                      // 1..64
  int64_t commit_cost_ns = 2'000'000;      // >= 0
  int64_t initial_items = 1000;            // 0..10'000'000, restored by admin.reset
  int64_t search_cost_per_item_ns = 1000;  // >= 0
  bool operator==(const LifecycleSpec&) const = default;
};

// The whole server freezes for stall_ns every every_ns, the first at first_ns after start.
struct StallSpec {
  int64_t stall_ns = 0;  // 0 < stall_ns < every_ns
  int64_t every_ns = 0;
  int64_t first_ns = 0;  // >= 0 (a file that omits it gets every_ns)
  bool operator==(const StallSpec&) const = default;
};

struct RouteTable {
  std::vector<RouteSpec> routes;           // at least one, in file order
  std::optional<LifecycleSpec> lifecycle;  // set when any lifecycle.* route exists
  std::optional<StallSpec> stalls;
  uint64_t seed = 1;  // every random draw (delays, failures) derives from it: runs repeat
  bool operator==(const RouteTable&) const = default;
};

// One segment of a path template: literal text, or a parameter that matches any one non-empty
// segment ("{id}" -> {"id", true}).
struct PathSegment {
  std::string text;
  bool is_parameter = false;
  bool operator==(const PathSegment&) const = default;
};

// Splits "/items/{id}/assign" into segments ("/" has none). Throws UsageError (message without
// location) for: no leading '/', empty segments ("//", trailing '/'), a query string or
// fragment, '.' or '..' segments, characters outside RFC 3986 pchar, a '{' or '}' that is not
// a whole "{name}" segment, a name that is not [A-Za-z_][A-Za-z0-9_]*, a name used twice,
// more than kMaxPathParameters parameters or kMaxPathSegments segments.
std::vector<PathSegment> parse_path_template(std::string_view path);

// The path with every parameter name erased ("/items/{}"): two routes with the same method and
// shape match the same requests.
std::string path_shape(std::string_view path);

bool is_builtin_handler(std::string_view name);

}  // namespace proofload::serve
