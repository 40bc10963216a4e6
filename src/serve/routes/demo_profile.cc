// The built-in route profiles, compiled in as YAML text and parsed with the routes-file parser,
// so a profile is also an example of the format (docs/serve-routes.md explains every route).
// Immutable data; safe from any thread.
#include <algorithm>
#include <array>

#include "common/usage_error.h"
#include "serve/routes/routes_yaml.h"

namespace proofload::serve {
namespace {

// A company-lookup service in miniature. Costs are chosen so the routes differ as real ones
// do: the lookup costs ~0.2 ms of CPU, the hybrid search ~4x that, the similarity search ~5 ms
// and one at a time (one model per process), so it saturates first.
constexpr std::string_view kDemoYaml =
    R"yaml(# proofload built-in profile "demo": a company-lookup service.
seed: 1

lifecycle:
  committers: 2
  commit_cost: 2ms
  initial_items: 1000
  search_cost_per_item: 1us

routes:
  # Look up one industry code: cheap CPU, plus a database-like wait.
  - name: lookup
    method: GET
    path: /sic/{code}
    cpu: 200us
    delay: {dist: lognormal, median: 1ms, p99: 8ms}
    content_type: application/json
    body: '{"code":"62012","title":"Business and domestic software development"}'

  # Embedding similarity search: CPU-heavy and serial, like one model per process.
  - name: similarity
    method: POST
    path: /sic/similarity
    cpu: 5ms
    serial: true
    content_type: application/json
    body_bytes: 2KiB

  # Keyword plus vector search: about four times the lookup's CPU, and a wait on an index.
  - name: hybrid
    method: GET
    path: /sic/hybrid
    cpu: 800us
    delay: {dist: exponential, mean: 1ms}
    content_type: application/json
    body_bytes: 1KiB

  # Description of a code, computed once per query string (?q=...) and then served from memory.
  - name: description
    method: GET
    path: /sic/description
    cpu: 3ms
    cache: true
    body: "Industry description\n"

  # Bulk export, limited per client address; a trusted Origin header skips the limit.
  - name: bulk
    method: GET
    path: /sic/bulk
    cpu: 200us
    limit: {rate: 20/s, burst: 40, trusted_header: "Origin: https://example.test"}
    body_bytes: 8KiB

  # A flaky dependency: a few 500s, 503s and resets.
  - name: flaky
    method: GET
    path: /flaky
    cpu: 100us
    fail: {500: 1%, 503: 1%, reset: 0.5%}
    body: "ok\n"

  # A token stream, like a language model's answer.
  - name: stream
    method: GET
    path: /stream
    sse: {events: 20, over: 2s, event_bytes: 64, tokens_per_event: 4}

  # An OpenAI-compatible chat completion, streamed when asked: 8 generations at once, the rest
  # queued, so a ramp shows the time to first token rising while the gap between tokens holds.
  - name: chat
    method: POST
    path: /v1/chat/completions
    llm: {ttft: 200ms, tokens_per_s: 50, tokens: {min: 50, max: 150}, concurrency: 8}
  - name: completions
    method: POST
    path: /v1/completions
    llm: {ttft: 200ms, tokens_per_s: 50, tokens: {min: 50, max: 150}, concurrency: 8}

  # The stateful lifecycle: create, assign, resolve, read, search.
  - {name: items.create,  method: POST, path: /items,                builtin: lifecycle.create}
  - {name: items.assign,  method: POST, path: "/items/{id}/assign",  builtin: lifecycle.assign}
  - {name: items.resolve, method: POST, path: "/items/{id}/resolve", builtin: lifecycle.resolve}
  - {name: items.get,     method: GET,  path: "/items/{id}",         builtin: lifecycle.get}
  - {name: items.search,  method: GET,  path: /items,                builtin: lifecycle.search}

  # Operations.
  - {name: health,        method: GET,  path: /health,               builtin: health}
  - {name: metrics,       method: GET,  path: /metrics,              builtin: metrics}
  - {name: admin.backlog, method: GET,  path: /admin/backlog,        builtin: admin.backlog}
  - {name: admin.ready,   method: GET,  path: /admin/ready,          builtin: admin.ready}
  - {name: admin.reset,   method: POST, path: /admin/reset,          builtin: admin.reset}
)yaml";

// A service that changes over time, for soak tests: one route of each kind a soak must catch.
// The times are those a minutes-long soak covers; docs/serve-routes.md shows it verbatim.
constexpr std::string_view kSoakFaultsYaml =
    R"yaml(# proofload built-in profile "soak-faults": a service that changes over time.
# Times count from the server's time zero, when it began listening (its stderr gives it).
seed: 1

routes:
  # Steady: the same answer and latency all run long.
  - name: steady
    path: /steady
    delay: 1ms
    body: "ok\n"

  # Drifting: 1 ms slower for every second up, like a leak (61 ms at one minute).
  - name: drifting
    path: /drifting
    delay: 1ms
    drift: {add: 1ms, every: 1s}
    body: "ok\n"

  # An error burst: 500s from 30 s to 40 s, then 503s from 90 s to 95 s.
  - name: burst
    path: /burst
    delay: 1ms
    body: "ok\n"
    faults:
      - {at: 30s, for: 10s, status: 500}
      - {at: 90s, for: 5s, status: 503}

  # A canary: 200 all along, but its JSON answer is wrong from 60 s to 120 s.
  - name: canary
    path: /canary
    content_type: application/json
    body: '{"status":"ok","version":1}'
    faults:
      - {at: 60s, for: 60s, body: '{"status":"wrong","version":1}'}

  - {name: health,  path: /health,  builtin: health}
  - {name: metrics, path: /metrics, builtin: metrics}
)yaml";

struct Profile {
  std::string_view name;
  std::string_view yaml;
};
constexpr std::array<Profile, 2> kProfiles = {
    {{"demo", kDemoYaml}, {"soak-faults", kSoakFaultsYaml}}};

}  // namespace

std::vector<std::string_view> builtin_profile_names() {
  std::vector<std::string_view> names;
  for (const Profile& profile : kProfiles) names.push_back(profile.name);
  return names;
}

std::string_view builtin_profile_yaml(std::string_view name) {
  auto found = std::find_if(kProfiles.begin(), kProfiles.end(),
                            [&](const Profile& profile) { return profile.name == name; });
  if (found == kProfiles.end()) {
    std::string known;
    for (const Profile& profile : kProfiles)
      known += (known.empty() ? "" : ", ") + std::string(profile.name);
    throw UsageError("unknown profile '" + std::string(name) + "'; built-in profiles: " + known);
  }
  return found->yaml;
}

RouteTable builtin_profile(std::string_view name) {
  return parse_routes_yaml(builtin_profile_yaml(name), "profile '" + std::string(name) + "'");
}

}  // namespace proofload::serve
