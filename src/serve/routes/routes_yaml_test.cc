// Tests of routes files: a full file gives the expected model, and every kind of mistake gives
// one line naming the file, line and column, as a user fixing the file needs.
#include "serve/routes/routes_yaml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "common/clock.h"
#include "common/usage_error.h"
#include "config/yaml_reader.h"

namespace proofload::serve {
namespace {

namespace yaml_reader = config::yaml_reader;

// The message of the UsageError that parsing `yaml` as "r.yaml" throws, or "" if none.
std::string error_of(std::string_view yaml) {
  try {
    parse_routes_yaml(yaml, "r.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// A routes file whose one route is `route_body` (lines indented under "  - ").
std::string one_route(std::string_view route_lines) {
  return "routes:\n  - name: lookup\n    path: /sic/{code}\n" + std::string(route_lines);
}

constexpr std::string_view kRouteKeyList =
    "allowed: name, method, path, status, body, body_bytes, content_type, cpu, delay, drift, "
    "serial, cache, limit, fail, faults, sse, llm, builtin";

TEST(RoutesYaml, FullExampleGivesTheExpectedModel) {
  RouteTable table = load_routes_file(PROOFLOAD_ROUTES_TESTDATA "/full_example.yaml");

  RouteTable expected;
  expected.seed = 42;
  expected.stalls = StallSpec{200 * kNsPerMs, 5 * kNsPerS, 1 * kNsPerS};
  expected.lifecycle = LifecycleSpec{3, 1'500'000, 500, 250};

  RouteSpec lookup;
  lookup.name = "lookup";
  lookup.method = "GET";
  lookup.path = "/sic/{code}";
  lookup.content_type = "application/json";
  lookup.body = R"({"code":"62012"})";
  lookup.cpu_ns = 200 * kNsPerUs;
  lookup.delay.kind = DelaySpec::Kind::kLognormal;
  lookup.delay.median_ns = 2 * kNsPerMs;
  lookup.delay.p99_ns = 20 * kNsPerMs;
  expected.routes.push_back(lookup);

  RouteSpec similarity;
  similarity.name = "similarity";
  similarity.method = "POST";
  similarity.path = "/sic/similarity";
  similarity.cpu_ns = 5 * kNsPerMs;
  similarity.serial = true;
  similarity.body_bytes = 2048;
  similarity.delay.kind = DelaySpec::Kind::kUniform;
  similarity.delay.min_ns = 1 * kNsPerMs;
  similarity.delay.max_ns = 3 * kNsPerMs;
  expected.routes.push_back(similarity);

  RouteSpec description;
  description.name = "GET /sic/description";  // the default name
  description.method = "GET";
  description.path = "/sic/description";
  description.cpu_ns = 3 * kNsPerMs;
  description.cache = true;
  description.delay.kind = DelaySpec::Kind::kFixed;
  description.delay.fixed_ns = 2 * kNsPerMs;
  description.body = "Software development\nand consultancy\n";
  expected.routes.push_back(description);

  RouteSpec exporter;
  exporter.name = "export";
  exporter.method = "*";
  exporter.path = "/export/{kind}/{year}";
  exporter.status = 202;
  exporter.body_bytes = 1000;
  exporter.delay.kind = DelaySpec::Kind::kExponential;
  exporter.delay.mean_ns = 4 * kNsPerMs;
  exporter.limit =
      LimitSpec{2500, 100, std::pair<std::string, std::string>{"Origin", "https://example.test"}};
  exporter.fail = FailSpec{0.01, 0.02, 0.001, 0.001, 0.002, 0.003};
  expected.routes.push_back(exporter);

  RouteSpec short_limit;
  short_limit.name = "limited-short";
  short_limit.method = "GET";
  short_limit.path = "/short";
  short_limit.limit = LimitSpec{10, 10, std::nullopt};  // burst: one second's worth
  short_limit.delay.kind = DelaySpec::Kind::kLognormal;
  short_limit.delay.median_ns = 1 * kNsPerMs;
  short_limit.delay.p99_ns = 3'200'074;  // 1 ms x e^(2.3263 x 0.5), from sigma: 0.5
  expected.routes.push_back(short_limit);

  RouteSpec stream;
  stream.name = "stream";
  stream.method = "GET";
  stream.path = "/stream";
  stream.content_type = "text/event-stream";
  stream.sse = SseSpec{20, 2 * kNsPerS, 128, 4};
  expected.routes.push_back(stream);

  RouteSpec create;
  create.name = "create";
  create.method = "POST";
  create.path = "/items";
  create.builtin = "lifecycle.create";
  create.cpu_ns = 100 * kNsPerUs;
  expected.routes.push_back(create);

  RouteSpec get;
  get.name = "get";
  get.method = "GET";
  get.path = "/items/{id}";
  get.builtin = "lifecycle.get";
  get.limit = LimitSpec{100, 100, std::nullopt};
  expected.routes.push_back(get);

  RouteSpec health;
  health.name = "GET /health";
  health.method = "GET";
  health.path = "/health";
  health.builtin = "health";
  expected.routes.push_back(health);

  ASSERT_EQ(table.routes.size(), expected.routes.size());
  for (size_t i = 0; i < expected.routes.size(); ++i) {
    EXPECT_EQ(table.routes[i], expected.routes[i]) << "route " << expected.routes[i].name;
  }
  EXPECT_EQ(table, expected);
}

TEST(RoutesYaml, DefaultsOfAMinimalFile) {
  RouteTable table = parse_routes_yaml("routes:\n  - path: /\n", "r.yaml");
  ASSERT_EQ(table.routes.size(), 1u);
  RouteSpec expected;
  expected.name = "GET /";
  expected.method = "GET";
  expected.path = "/";
  EXPECT_EQ(table.routes[0], expected);
  EXPECT_EQ(table.seed, 1u);
  EXPECT_FALSE(table.lifecycle);
  EXPECT_FALSE(table.stalls);
}

TEST(RoutesYaml, ZeroDelayMeansNoDelayAndLifecycleDefaultsWhenItsRoutesExist) {
  RouteTable table = parse_routes_yaml(
      "routes:\n  - {path: /a, delay: 0s}\n  - {path: /b, delay: {dist: fixed, value: 3ms}}\n"
      "  - {path: /admin/backlog, builtin: admin.backlog}\n"
      "stalls: {length: 1s, every: 5s}\n",
      "r.yaml");
  EXPECT_EQ(table.routes[0].delay.kind, DelaySpec::Kind::kNone);
  EXPECT_EQ(table.routes[1].delay.kind, DelaySpec::Kind::kFixed);
  EXPECT_EQ(table.routes[1].delay.fixed_ns, 3 * kNsPerMs);
  EXPECT_EQ(table.lifecycle, LifecycleSpec{});
  EXPECT_EQ(table.stalls, (StallSpec{kNsPerS, 5 * kNsPerS, 5 * kNsPerS}));  // first: one period
}

TEST(RoutesYamlErrors, YamlSyntax) {
  EXPECT_EQ(error_of("routes:\n  - path: /a\n   name: x\n"),
            "r.yaml:3:4: invalid YAML: end of sequence not found");
  EXPECT_EQ(error_of("routes: [{path: /a}\n"),
            "r.yaml:2:1: invalid YAML: end of sequence flow not found (inside { } or [ ], quote "
            "values that contain { } [ ] or commas, like path: \"/items/{id}\")");
  EXPECT_EQ(error_of("routes:\n  - path: /\n    method: *\n"),
            "r.yaml:3:14: invalid YAML: alias not found after * (a bare * starts a YAML alias: "
            "quote it, like method: \"*\")");
  // The usual mistake, with the hint that fixes it.
  EXPECT_EQ(error_of("routes:\n  - {path: /items/{id}}\n"),
            "r.yaml:2:19: invalid YAML: end of map flow not found (inside { } or [ ], quote "
            "values that contain { } [ ] or commas, like path: \"/items/{id}\")");
}

TEST(RoutesYamlErrors, UnknownKeySuggestsTheNearestAndListsAllowed) {
  EXPECT_EQ(error_of(one_route("    dely: 2ms\n")),
            "r.yaml:4:5: unknown key 'dely' in route 'lookup'; did you mean 'delay'? " +
                std::string(kRouteKeyList));
  EXPECT_EQ(error_of(one_route("    colour: red\n")),
            "r.yaml:4:5: unknown key 'colour' in route 'lookup'; " + std::string(kRouteKeyList));
  EXPECT_EQ(error_of("rutes:\n  - path: /\n"),
            "r.yaml:1:1: unknown key 'rutes' in the routes file; did you mean 'routes'? allowed: "
            "seed, stalls, lifecycle, routes");
  EXPECT_EQ(error_of(one_route("    limit: {rat: 10/s}\n")),
            "r.yaml:4:13: unknown key 'rat' in 'limit' of route 'lookup'; did you mean 'rate'? "
            "allowed: rate, burst, trusted_header, key, instances");
  // A route without a name is named by its method and path.
  EXPECT_EQ(error_of("routes:\n  - path: /a\n    method: POST\n    serail: true\n"),
            "r.yaml:4:5: unknown key 'serail' in route 'POST /a'; did you mean 'serial'? " +
                std::string(kRouteKeyList));
}

TEST(RoutesYamlErrors, WrongTypes) {
  EXPECT_EQ(error_of(one_route("    serial: yes\n")),
            "r.yaml:4:13: 'serial' in route 'lookup': expected true or false, got 'yes'");
  EXPECT_EQ(error_of(one_route("    status: ok\n")),
            "r.yaml:4:13: 'status' in route 'lookup': expected an integer from 100 to 599, got "
            "'ok'");
  EXPECT_EQ(error_of(one_route("    status: 700\n")),
            "r.yaml:4:13: 'status' in route 'lookup': expected an integer from 100 to 599, got "
            "'700'");
  EXPECT_EQ(error_of(one_route("    cpu: [1ms]\n")),
            "r.yaml:4:10: 'cpu' in route 'lookup': expected a duration like 5ms, got a list");
  EXPECT_EQ(error_of(one_route("    cpu:\n")),
            "r.yaml:4:5: 'cpu' in route 'lookup': needs a value");
  EXPECT_EQ(error_of(one_route("    body_bytes: 2 KiB\n")),
            "r.yaml:4:17: 'body_bytes' in route 'lookup': expected a size from 0 to 67108864 "
            "bytes (units B, kB, KiB, MB, MiB), got '2 KiB'");
  EXPECT_EQ(error_of("routes: {path: /}\n"),
            "r.yaml:1:9: 'routes' in the routes file: expected a list of routes (\"- path: "
            "/...\"), got a map");
  EXPECT_EQ(error_of("routes:\n  - /a\n"),
            "r.yaml:2:5: route #1: expected a map of keys (name, method, path, status, body, "
            "body_bytes, content_type, cpu, delay, drift, serial, cache, limit, fail, faults, sse, "
            "llm, builtin), got a single value");
}

TEST(RoutesYamlErrors, Probabilities) {
  EXPECT_EQ(error_of(one_route("    fail: {500: -0.1}\n")),
            "r.yaml:4:17: '500' in 'fail' of route 'lookup': a probability must be from 0 to 1 "
            "(or 0% to 100%), got '-0.1'");
  EXPECT_EQ(error_of(one_route("    fail:\n      reset: 1.5\n")),
            "r.yaml:5:14: 'reset' in 'fail' of route 'lookup': a probability must be from 0 to "
            "1 (or 0% to 100%), got '1.5'");
  EXPECT_EQ(error_of(one_route("    fail: {garbage: 120%}\n")),
            "r.yaml:4:21: 'garbage' in 'fail' of route 'lookup': a probability must be from 0 "
            "to 1 (or 0% to 100%), got '120%'");
  EXPECT_EQ(error_of(one_route("    fail: {500: 0.6, 503: 50%}\n")),
            "r.yaml:4:11: 'fail' of route 'lookup': the probabilities add up to 1.100000, more "
            "than 1");
  // Exactly 1 on paper is allowed despite decimal rounding.
  EXPECT_EQ(error_of(one_route("    fail: {500: 0.1, 503: 0.2, reset: 0.7}\n")), "");
}

TEST(RoutesYamlErrors, Rates) {
  EXPECT_EQ(error_of(one_route("    limit: {rate: 0}\n")),
            "r.yaml:4:19: 'rate' in 'limit' of route 'lookup': a rate must be above 0, got '0'");
  EXPECT_EQ(error_of(one_route("    limit: 0/s\n")),
            "r.yaml:4:12: 'limit' in route 'lookup': a rate must be above 0, got '0/s'");
  std::string negative = error_of(one_route("    limit: {rate: -5/s}\n"));
  EXPECT_TRUE(negative.starts_with("r.yaml:4:19: 'rate' in 'limit' of route 'lookup': "))
      << negative;
  EXPECT_EQ(error_of(one_route("    limit: {burst: 5}\n")),
            "r.yaml:4:12: 'limit' of route 'lookup' needs 'rate'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, burst: 0}\n")),
            "r.yaml:4:29: 'burst' in 'limit' of route 'lookup': expected an integer from 1 to "
            "1000000000, got '0'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, trusted_header: Origin}\n")),
            "r.yaml:4:38: 'trusted_header' in 'limit' of route 'lookup': expected 'Name: "
            "value', like 'Origin: https://example.test'");
}

// The two rate-limit bugs of a real team: an ingress that hid the callers' addresses (they
// shared allowances) and an allowance split over many pods.
TEST(RoutesYaml, LimitKeysAndInstancesGiveTheExpectedModel) {
  RouteTable table = parse_routes_yaml(R"(routes:
  - path: /address
    limit: {rate: 10/s, key: address}
  - path: /shared
    limit:
      rate: 10/s
      burst: 40
      key: shared:3
      instances: 4
  - path: /header
    limit: {rate: 10/s, key: "header:X-Forwarded-For"}
  - path: /plain
    limit: 10/s
)",
                                       "r.yaml");
  ASSERT_EQ(table.routes.size(), 4u);
  LimitSpec by_address{10, 10, std::nullopt};
  EXPECT_EQ(table.routes[0].limit, by_address);
  LimitSpec shared{10, 40, std::nullopt, LimitSpec::Key::kShared, 3, "", 4};
  EXPECT_EQ(table.routes[1].limit, shared);
  LimitSpec by_header{10, 10, std::nullopt, LimitSpec::Key::kHeader, 0, "X-Forwarded-For", 1};
  EXPECT_EQ(table.routes[2].limit, by_header);
  EXPECT_EQ(table.routes[3].limit, by_address) << "the default key is the address";
}

TEST(RoutesYamlErrors, LimitKeysAndInstances) {
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: shared:0}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected shared:N with N from 1 to "
            "1000000, got 'shared:0'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: shared:x}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected shared:N with N from 1 to "
            "1000000, got 'shared:x'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: shared:1000001}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected shared:N with N from 1 to "
            "1000000, got 'shared:1000001'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: \"header:X Forwarded\"}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected header:NAME with a header "
            "name like X-Forwarded-For, got 'header:X Forwarded'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: \"header:\"}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected header:NAME with a header "
            "name like X-Forwarded-For, got 'header:'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, key: nonsense}\n")),
            "r.yaml:4:27: 'key' in 'limit' of route 'lookup': expected address, shared:N or "
            "header:NAME, got 'nonsense'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, instances: 0}\n")),
            "r.yaml:4:33: 'instances' in 'limit' of route 'lookup': expected an integer from 1 to "
            "1000, got '0'");
  EXPECT_EQ(error_of(one_route("    limit: {rate: 5, burst: 4, instances: 5}\n")),
            "r.yaml:4:43: 'instances' in 'limit' of route 'lookup': must be at most 'burst' (4): "
            "each instance needs at least one token");
  // Without a burst, one second's worth: 2 tokens for 3 instances is too few.
  EXPECT_EQ(error_of(one_route("    limit: {rate: 2/s, instances: 3}\n")),
            "r.yaml:4:35: 'instances' in 'limit' of route 'lookup': must be at most 'burst' (2): "
            "each instance needs at least one token");
}

TEST(RoutesYamlErrors, Durations) {
  std::string message = error_of(one_route("    cpu: 5 parsecs\n"));
  EXPECT_TRUE(
      message.starts_with("r.yaml:4:10: 'cpu' in route 'lookup': invalid duration "
                          "\"5 parsecs\""))
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_EQ(error_of(one_route("    delay: {dist: uniform, min: 3ms, max: 1ms}\n")),
            "r.yaml:4:43: 'max' in 'delay' of route 'lookup': must not be below 'min'");
  EXPECT_EQ(
      error_of(one_route("    delay: {dist: lognormal, median: 2ms}\n")),
      "r.yaml:4:12: 'delay' of route 'lookup' needs one of 'p99' or 'sigma' (spread of ln delay)");
  EXPECT_EQ(error_of(one_route("    delay: {dist: lognormal, median: 2ms, p99: 1ms}\n")),
            "r.yaml:4:48: 'p99' in 'delay' of route 'lookup': must be above 'median'");
  EXPECT_EQ(error_of(one_route("    delay: 25h\n")),
            "r.yaml:4:12: 'delay' in route 'lookup': must be at most 24h");
  EXPECT_EQ(error_of(one_route("    delay: {dist: lognormal, median: 1ms, sigma: 0}\n")),
            "r.yaml:4:50: 'sigma' in 'delay' of route 'lookup': expected a number above 0 and at "
            "most 10, got '0'");
  EXPECT_EQ(error_of(one_route("    delay: {dist: normal, mean: 2ms}\n")),
            "r.yaml:4:19: 'dist' in 'delay' of route 'lookup': unknown distribution 'normal'; "
            "allowed: fixed, uniform, exponential, lognormal");
  EXPECT_EQ(error_of(one_route("    delay: {dist: uniform, mean: 2ms}\n")),
            "r.yaml:4:28: unknown key 'mean' in 'delay' of route 'lookup'; allowed: dist, min, "
            "max");
  EXPECT_EQ(error_of(one_route("    delay: {median: 2ms}\n")),
            "r.yaml:4:12: 'delay' of route 'lookup' needs 'dist' (fixed, uniform, exponential, "
            "lognormal)");
  EXPECT_EQ(error_of("stalls: {length: 5s, every: 5s}\nroutes:\n  - path: /\n"),
            "r.yaml:1:29: 'every' in 'stalls': must be longer than 'length' (the server must "
            "run between stalls)");
}

// The parts that change with the server's age: a drift and a list of faults, in file order.
TEST(RoutesYaml, DriftAndFaultsGiveTheExpectedModel) {
  RouteTable table = parse_routes_yaml(
      "routes:\n"
      "  - name: canary\n"
      "    path: /canary\n"
      "    delay: 2ms\n"
      "    drift: {add: 1ms, every: 1s}\n"
      "    content_type: application/json\n"
      "    body: '{\"ok\":true}'\n"
      "    faults:\n"
      "      - {at: 30s, for: 10s, status: 500}\n"
      "      - at: 1m\n"
      "        for: 1m\n"
      "        body: '{\"ok\":false}'\n"
      "  - {path: /health, builtin: health, faults: [{at: 0, for: 1ms, status: 503}]}\n",
      "r.yaml");
  ASSERT_EQ(table.routes.size(), 2u);
  const RouteSpec& canary = table.routes[0];
  EXPECT_EQ(canary.delay.fixed_ns, 2 * kNsPerMs);
  EXPECT_EQ(canary.drift, (DriftSpec{kNsPerMs, kNsPerS}));
  EXPECT_EQ(canary.faults,
            (std::vector<FaultSpec>{{30 * kNsPerS, 10 * kNsPerS, 500, ""},
                                    {60 * kNsPerS, 60 * kNsPerS, 0, R"({"ok":false})"}}));
  EXPECT_EQ(table.routes[1].faults, (std::vector<FaultSpec>{{0, kNsPerMs, 503, ""}}));
  EXPECT_FALSE(table.routes[1].drift);
  // operator== sees the new fields.
  RouteTable changed = table;
  changed.routes[0].faults[1].body = "x";
  EXPECT_NE(changed, table);
  changed = table;
  changed.routes[0].drift->every_ns = 2 * kNsPerS;
  EXPECT_NE(changed, table);
}

TEST(RoutesYamlErrors, Drift) {
  EXPECT_EQ(error_of(one_route("    drift: {add: 1ms}\n")),
            "r.yaml:4:12: 'drift' of route 'lookup' needs 'every'");
  EXPECT_EQ(error_of(one_route("    drift: {add: 0ms, every: 1s}\n")),
            "r.yaml:4:18: 'add' in 'drift' of route 'lookup': must be above 0");
  EXPECT_EQ(error_of(one_route("    drift: {add: 1ms, every: 0s}\n")),
            "r.yaml:4:30: 'every' in 'drift' of route 'lookup': must be above 0");
  EXPECT_EQ(error_of(one_route("    drift: {add: 25h, every: 1s}\n")),
            "r.yaml:4:18: 'add' in 'drift' of route 'lookup': must be at most 24h");
  EXPECT_EQ(error_of(one_route("    drift: {ad: 1ms, every: 1s}\n")),
            "r.yaml:4:13: unknown key 'ad' in 'drift' of route 'lookup'; did you mean 'add'? "
            "allowed: add, every");
  EXPECT_EQ(error_of(one_route("    builtin: health\n    drift: {add: 1ms, every: 1s}\n")),
            "r.yaml:5:5: 'drift' in route 'lookup': cannot be combined with 'builtin' (the "
            "handler makes its own answer)");
}

TEST(RoutesYamlErrors, Faults) {
  EXPECT_EQ(error_of(one_route("    faults: {at: 1s, for: 1s, status: 500}\n")),
            "r.yaml:4:13: 'faults' in route 'lookup': expected a list like [{at: 30s, for: 10s, "
            "status: 500}], got a map");
  EXPECT_EQ(error_of(one_route("    faults: []\n")),
            "r.yaml:4:13: 'faults' in route 'lookup': expected a list like [{at: 30s, for: 10s, "
            "status: 500}], got an empty list");
  EXPECT_EQ(error_of(one_route("    faults:\n      - {for: 1s, status: 500}\n")),
            "r.yaml:5:9: fault #1 of route 'lookup' needs 'at'");
  EXPECT_EQ(error_of(one_route("    faults:\n      - {at: 1s, status: 500}\n")),
            "r.yaml:5:9: fault #1 of route 'lookup' needs 'for'");
  std::string negative =
      error_of(one_route("    faults:\n      - {at: -1s, for: 1s, status: 500}\n"));
  EXPECT_TRUE(negative.starts_with("r.yaml:5:14: 'at' in fault #1 of route 'lookup': "))
      << negative;
  EXPECT_EQ(error_of(one_route("    faults:\n      - {at: 1s, for: 0s, status: 500}\n")),
            "r.yaml:5:23: 'for' in fault #1 of route 'lookup': must be above 0");
  EXPECT_EQ(error_of(one_route("    faults:\n      - {at: 1s, for: 1s}\n")),
            "r.yaml:5:9: fault #1 of route 'lookup' needs exactly one of 'status' (answered "
            "instead) or 'body' (the route's status with this body instead)");
  EXPECT_EQ(
      error_of(one_route("    faults:\n      - {at: 1s, for: 1s, status: 500}\n"
                         "      - {at: 1s, for: 1s, status: 500, body: x}\n")),
      "r.yaml:6:9: fault #2 of route 'lookup' needs exactly one of 'status' (answered instead) "
      "or 'body' (the route's status with this body instead)");
  EXPECT_EQ(error_of(one_route("    faults:\n      - {at: 1s, for: 1s, status: 600}\n")),
            "r.yaml:5:35: 'status' in fault #1 of route 'lookup': expected an integer from 100 "
            "to 599, got '600'");
  EXPECT_EQ(error_of(one_route("    faults:\n      - {at: 1s, for: 1s, stauts: 500}\n")),
            "r.yaml:5:27: unknown key 'stauts' in fault #1 of route 'lookup'; did you mean "
            "'status'? allowed: at, for, status, body");
  EXPECT_EQ(error_of(one_route("    body: ok\n    faults: [{at: 1s, for: 1s, body: ok}]\n")),
            "r.yaml:5:38: 'body' in fault #1 of route 'lookup': is the route's own body: a wrong "
            "answer must differ");
  EXPECT_EQ(error_of(one_route("    builtin: health\n    faults: [{at: 1s, for: 1s, body: x}]\n")),
            "r.yaml:5:32: 'body' in fault #1 of route 'lookup': cannot be used on a route with "
            "'builtin', 'sse' or 'llm' (no body of its own to replace); use 'status'");
}

TEST(RoutesYamlErrors, BuiltinHandlers) {
  EXPECT_EQ(error_of(one_route("    builtin: lifecycle.creat\n")),
            "r.yaml:4:14: 'builtin' in route 'lookup': unknown handler 'lifecycle.creat'; did "
            "you mean 'lifecycle.create'? allowed: lifecycle.create, lifecycle.assign, "
            "lifecycle.resolve, lifecycle.get, lifecycle.search, admin.backlog, admin.ready, "
            "admin.reset, "
            "health, metrics");
  EXPECT_EQ(error_of(one_route("    builtin: health\n    body: hi\n")),
            "r.yaml:5:5: 'body' in route 'lookup': cannot be combined with 'builtin' (the "
            "handler makes its own answer)");
  EXPECT_EQ(error_of("routes:\n  - {path: \"/items/{key}\", builtin: lifecycle.get}\n"),
            "r.yaml:2:12: 'path' in route 'GET /items/{key}': handler 'lifecycle.get' needs an "
            "{id} parameter");
}

TEST(RoutesYamlErrors, DuplicateRoutesAndNames) {
  EXPECT_EQ(error_of("routes:\n  - path: /items/{id}\n  - path: /items/{key}\n"),
            "r.yaml:3:11: duplicate route GET /items/{key} (the route at line 2 already matches "
            "it)");
  // The same path with another method is another route.
  EXPECT_EQ(error_of("routes:\n  - path: /a\n  - {path: /a, method: POST}\n"), "");
  EXPECT_EQ(error_of("routes:\n  - {name: x, path: /a}\n  - {name: x, path: /b}\n"),
            "r.yaml:3:12: route name 'x' used twice (first at line 2)");
}

TEST(RoutesYamlErrors, BadPathTemplatesAndMethods) {
  EXPECT_EQ(error_of("routes:\n  - path: /items/x{id}\n"),
            "r.yaml:2:11: 'path' in route 'GET /items/x{id}': bad path template '/items/x{id}': "
            "a parameter must be a whole segment, like /items/{id}");
  EXPECT_EQ(error_of("routes:\n  - name: q\n    path: /sic/description?q=\n"),
            "r.yaml:3:11: 'path' in route 'q': bad path template '/sic/description?q=': no query "
            "string here; a route matches any query string (with 'cache' the query string is "
            "the cache key)");
  EXPECT_EQ(error_of("routes:\n  - {name: q, method: GTE, path: /}\n"),
            "r.yaml:2:23: 'method' in route 'q': unknown method 'GTE'; did you mean 'GET'? "
            "allowed: GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, *");
  EXPECT_EQ(error_of("routes:\n  - {name: q}\n"), "r.yaml:2:5: route 'q' needs 'path'");
}

TEST(RoutesYamlErrors, ConflictingAndRepeatedKeys) {
  EXPECT_EQ(error_of(one_route("    body: hi\n    body_bytes: 10\n")),
            "r.yaml:5:5: 'body_bytes' in route 'lookup': cannot be combined with 'body'");
  EXPECT_EQ(error_of(one_route("    sse: {events: 3, over: 1s}\n    cache: true\n")),
            "r.yaml:5:5: 'cache' in route 'lookup': cannot be combined with 'sse'");
  EXPECT_EQ(error_of(one_route("    cpu: 1ms\n    cpu: 2ms\n")),
            "r.yaml:5:5: key 'cpu' given twice in route 'lookup' (first at line 4)");
  EXPECT_EQ(error_of(one_route("    sse: {events: 3}\n")),
            "r.yaml:4:10: 'sse' of route 'lookup' needs 'over'");
}

TEST(RoutesYaml, LlmGivesTheExpectedModel) {
  const RouteTable table = parse_routes_yaml(one_route(
      "    method: POST\n    llm: {ttft: 150ms, tokens_per_s: 40, tokens: {min: 20, max: 80}, "
      "concurrency: 4}\n"),
      "r.yaml");
  ASSERT_TRUE(table.routes[0].llm);
  const LlmSpec& llm = *table.routes[0].llm;
  EXPECT_EQ(llm.ttft_ns, 150'000'000);
  EXPECT_EQ(llm.tokens_per_s, 40);
  EXPECT_EQ(llm.tokens_min, 20);
  EXPECT_EQ(llm.tokens_max, 80);
  EXPECT_EQ(llm.concurrency, 4);
  const LlmSpec defaults =
      *parse_routes_yaml(one_route("    llm: {tokens: 7}\n"), "r.yaml").routes[0].llm;
  EXPECT_EQ(defaults.tokens_min, 7);
  EXPECT_EQ(defaults.tokens_max, 7);
  EXPECT_EQ(defaults.ttft_ns, 200'000'000);
  EXPECT_EQ(defaults.concurrency, 0);
}

TEST(RoutesYamlErrors, Llm) {
  EXPECT_EQ(error_of(one_route("    llm: {tokens: 3}\n    body: hi\n")),
            "r.yaml:5:5: 'body' in route 'lookup': cannot be combined with 'llm'");
  EXPECT_EQ(error_of(one_route("    llm: {tokens: {min: 9, max: 3}}\n")),
            "r.yaml:4:33: 'max' in 'tokens' of 'llm' of route 'lookup': must not be below min");
  EXPECT_EQ(error_of(one_route("    llm: {tokens: 100000}\n")),
            "r.yaml:4:19: 'tokens' in 'llm' of route 'lookup': expected an integer from 1 to "
            "10000, got '100000'");
}

TEST(RoutesYamlErrors, EmptyAndMultiDocumentFiles) {
  EXPECT_EQ(error_of(""), "r.yaml:1:1: the routes file is empty: it needs a 'routes:' list");
  EXPECT_EQ(error_of("# only a comment\n"),
            "r.yaml:1:1: the routes file is empty: it needs a 'routes:' list");
  EXPECT_EQ(error_of("seed: 3\n"), "r.yaml:1:1: the routes file needs 'routes'");
  EXPECT_EQ(error_of("routes: []\n"),
            "r.yaml:1:9: 'routes' in the routes file: expected a list of routes (\"- path: "
            "/...\"), got an empty list");
  EXPECT_EQ(error_of("routes:\n  - path: /\n---\nroutes: []\n"),
            "r.yaml:4:1: one YAML document per routes file");
}

TEST(RoutesFile, UnreadableFileSaysWhy) {
  try {
    load_routes_file("/nonexistent/routes.yaml");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot read routes file '/nonexistent/routes.yaml': No such file or directory");
  }
  try {
    load_routes_file(PROOFLOAD_ROUTES_TESTDATA);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read routes file '" PROOFLOAD_ROUTES_TESTDATA "': it is a directory");
  }
}

TEST(NearestKey, SuggestsTyposOnly) {
  constexpr std::array<std::string_view, 4> kAllowed = {"delay", "serial", "cpu", "cache"};
  EXPECT_EQ(yaml_reader::nearest_key("dely", kAllowed), "delay");
  EXPECT_EQ(yaml_reader::nearest_key("delays", kAllowed), "delay");
  EXPECT_EQ(yaml_reader::nearest_key("sreial", kAllowed), "serial");  // swapped letters
  EXPECT_EQ(yaml_reader::nearest_key("CPU", kAllowed), "cpu");        // case
  EXPECT_EQ(yaml_reader::nearest_key("cahce", kAllowed), "cache");
  EXPECT_EQ(yaml_reader::nearest_key("timeout", kAllowed), std::nullopt);
  EXPECT_EQ(yaml_reader::nearest_key("ab", kAllowed), std::nullopt);
}

// Every complete routes file shown in the documentation parses: the docs cannot drift from
// the parser.
TEST(RoutesDocs, EveryExampleFileInTheDocsParses) {
  std::ifstream in(PROOFLOAD_DOCS_DIR "/serve-routes.md");
  ASSERT_TRUE(in) << "docs/serve-routes.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  std::string docs = text.str();
  int files = 0;
  for (size_t at = docs.find("```yaml\n"); at != std::string::npos;
       at = docs.find("```yaml\n", at + 1)) {
    size_t begin = at + 8;
    size_t end = docs.find("```", begin);
    ASSERT_NE(end, std::string::npos);
    std::string block = docs.substr(begin, end - begin);
    if (block.find("\nroutes:") == std::string::npos && !block.starts_with("routes:")) continue;
    ++files;
    try {
      parse_routes_yaml(block, "docs example");
    } catch (const UsageError& e) {
      ADD_FAILURE() << e.what() << "\nin:\n" << block;
    }
  }
  EXPECT_GE(files, 2);
}

}  // namespace
}  // namespace proofload::serve
