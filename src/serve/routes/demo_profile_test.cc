// Tests of the built-in profiles: "demo" parses, and has every route the docs and the demo
// rely on, with the costs that make its routes differ as described; "soak-faults" has the
// schedule its docs give.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "common/clock.h"
#include "common/usage_error.h"
#include "serve/routes/routes_yaml.h"

namespace proofload::serve {
namespace {

const RouteSpec* find_route(const RouteTable& table, std::string_view method,
                            std::string_view path) {
  auto found = std::find_if(table.routes.begin(), table.routes.end(), [&](const RouteSpec& r) {
    return r.method == method && r.path == path;
  });
  return found == table.routes.end() ? nullptr : &*found;
}

TEST(DemoProfile, ParsesAndHasEveryRoute) {
  RouteTable demo = builtin_profile("demo");
  struct Expected {
    std::string_view method, path, builtin;
  };
  for (const Expected& e : std::initializer_list<Expected>{
           {"GET", "/sic/{code}", ""},
           {"POST", "/sic/similarity", ""},
           {"GET", "/sic/hybrid", ""},
           {"GET", "/sic/description", ""},
           {"GET", "/sic/bulk", ""},
           {"GET", "/flaky", ""},
           {"GET", "/stream", ""},
           {"POST", "/v1/chat/completions", ""},
           {"POST", "/v1/completions", ""},
           {"POST", "/items", "lifecycle.create"},
           {"POST", "/items/{id}/assign", "lifecycle.assign"},
           {"POST", "/items/{id}/resolve", "lifecycle.resolve"},
           {"GET", "/items/{id}", "lifecycle.get"},
           {"GET", "/items", "lifecycle.search"},
           {"GET", "/health", "health"},
           {"GET", "/metrics", "metrics"},
           {"GET", "/admin/backlog", "admin.backlog"},
           {"GET", "/admin/ready", "admin.ready"},
           {"POST", "/admin/reset", "admin.reset"},
       }) {
    const RouteSpec* route = find_route(demo, e.method, e.path);
    ASSERT_NE(route, nullptr) << e.method << " " << e.path;
    EXPECT_EQ(route->builtin, e.builtin) << e.path;
  }
  EXPECT_EQ(demo.routes.size(), 19u);
  ASSERT_TRUE(demo.lifecycle);
  EXPECT_FALSE(demo.stalls);  // a demo's numbers should not depend on when a stall falls
}

TEST(DemoProfile, RoutesCostWhatTheDocsSay) {
  RouteTable demo = builtin_profile("demo");
  const RouteSpec* lookup = find_route(demo, "GET", "/sic/{code}");
  const RouteSpec* similarity = find_route(demo, "POST", "/sic/similarity");
  const RouteSpec* hybrid = find_route(demo, "GET", "/sic/hybrid");
  const RouteSpec* description = find_route(demo, "GET", "/sic/description");
  const RouteSpec* bulk = find_route(demo, "GET", "/sic/bulk");
  const RouteSpec* stream = find_route(demo, "GET", "/stream");
  ASSERT_TRUE(lookup && similarity && hybrid && description && bulk && stream);

  EXPECT_EQ(lookup->cpu_ns, 200 * kNsPerUs);
  EXPECT_EQ(hybrid->cpu_ns, 4 * lookup->cpu_ns);
  EXPECT_EQ(similarity->cpu_ns, 5 * kNsPerMs);
  EXPECT_TRUE(similarity->serial);
  EXPECT_FALSE(lookup->serial);
  EXPECT_TRUE(description->cache);
  ASSERT_TRUE(bulk->limit);
  EXPECT_EQ(bulk->limit->rate_per_s, 20);
  EXPECT_EQ(bulk->limit->burst, 40);
  EXPECT_EQ(bulk->limit->trusted_header,
            (std::pair<std::string, std::string>{"Origin", "https://example.test"}));
  ASSERT_TRUE(stream->sse);
  EXPECT_EQ(stream->content_type, "text/event-stream");
}

// The docs show the profile verbatim, so what users read is what the server runs.
TEST(DemoProfile, DocsShowTheProfileVerbatim) {
  std::ifstream in(PROOFLOAD_DOCS_DIR "/serve-routes.md");
  ASSERT_TRUE(in) << "docs/serve-routes.md is missing";
  std::stringstream docs;
  docs << in.rdbuf();
  EXPECT_NE(docs.str().find("```yaml\n" + std::string(builtin_profile_yaml("demo")) + "```"),
            std::string::npos);
}

// The schedule a soak test relies on: which route drifts, when the burst and the canary's
// wrong answer fall.
TEST(SoakFaultsProfile, HasASteadyADriftingABurstAndACanaryRoute) {
  RouteTable soak = builtin_profile("soak-faults");
  const RouteSpec* steady = find_route(soak, "GET", "/steady");
  const RouteSpec* drifting = find_route(soak, "GET", "/drifting");
  const RouteSpec* burst = find_route(soak, "GET", "/burst");
  const RouteSpec* canary = find_route(soak, "GET", "/canary");
  ASSERT_TRUE(steady && drifting && burst && canary);
  EXPECT_FALSE(steady->drift);
  EXPECT_TRUE(steady->faults.empty());
  EXPECT_EQ(drifting->drift, (DriftSpec{kNsPerMs, kNsPerS}));
  EXPECT_EQ(burst->faults, (std::vector<FaultSpec>{{30 * kNsPerS, 10 * kNsPerS, 500, ""},
                                                   {90 * kNsPerS, 5 * kNsPerS, 503, ""}}));
  ASSERT_EQ(canary->faults.size(), 1u);
  EXPECT_EQ(canary->faults[0].at_ns, 60 * kNsPerS);
  EXPECT_EQ(canary->faults[0].for_ns, 60 * kNsPerS);
  EXPECT_EQ(canary->faults[0].status, 0);
  EXPECT_EQ(canary->body, R"({"status":"ok","version":1})");
  EXPECT_EQ(canary->faults[0].body, R"({"status":"wrong","version":1})");
  EXPECT_TRUE(find_route(soak, "GET", "/health") && find_route(soak, "GET", "/metrics"));
}

TEST(SoakFaultsProfile, DocsShowTheProfileVerbatim) {
  std::ifstream in(PROOFLOAD_DOCS_DIR "/serve-routes.md");
  ASSERT_TRUE(in) << "docs/serve-routes.md is missing";
  std::stringstream docs;
  docs << in.rdbuf();
  EXPECT_NE(docs.str().find("```yaml\n" + std::string(builtin_profile_yaml("soak-faults")) + "```"),
            std::string::npos);
}

TEST(DemoProfile, UnknownProfileIsAUsageError) {
  try {
    builtin_profile("dmeo");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown profile 'dmeo'; built-in profiles: demo, soak-faults");
  }
  EXPECT_EQ(builtin_profile_names(), (std::vector<std::string_view>{"demo", "soak-faults"}));
  EXPECT_TRUE(builtin_profile_yaml("demo").starts_with("# proofload built-in profile"));
}

}  // namespace
}  // namespace proofload::serve
