// The routes-file schema: which keys exist where, their types, ranges and combinations (see
// routes_yaml.h and docs/serve-routes.md). Stateless; throws UsageError only.
#include "serve/routes/routes_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "common/file_text.h"
#include "common/text.h"
#include "common/usage_error.h"
#include "config/yaml_reader.h"

namespace proofload::serve {
namespace {

namespace yaml_reader = config::yaml_reader;

using yaml_reader::FieldMap;
using yaml_reader::Source;

constexpr std::array<std::string_view, 4> kTopKeys = {"seed", "stalls", "lifecycle", "routes"};
constexpr std::array<std::string_view, 18> kRouteKeys = {
    "name",  "method", "path",  "status", "body",   "body_bytes", "content_type", "cpu",  "delay",
    "drift", "serial", "cache", "limit",  "fail",   "faults",     "sse",          "llm",  "builtin"};
constexpr std::array<std::string_view, 4> kLlmKeys = {"ttft", "tokens_per_s", "tokens",
                                                      "concurrency"};
constexpr std::array<std::string_view, 2> kRangeKeys = {"min", "max"};
constexpr std::array<std::string_view, 4> kDistributions = {"fixed", "uniform", "exponential",
                                                            "lognormal"};
constexpr std::array<std::string_view, 2> kFixedKeys = {"dist", "value"};
constexpr std::array<std::string_view, 3> kUniformKeys = {"dist", "min", "max"};
constexpr std::array<std::string_view, 2> kExponentialKeys = {"dist", "mean"};
constexpr std::array<std::string_view, 4> kLognormalKeys = {"dist", "median", "p99", "sigma"};
constexpr std::array<std::string_view, 5> kLimitKeys = {"rate", "burst", "trusted_header", "key",
                                                        "instances"};
constexpr std::array<std::string_view, 6> kFailKeys = {"500",     "503",     "reset",
                                                       "garbage", "trickle", "oversized_header"};
constexpr std::array<std::string_view, 4> kSseKeys = {"events", "over", "event_bytes",
                                                      "tokens_per_event"};
constexpr std::array<std::string_view, 4> kLifecycleKeys = {
    "committers", "commit_cost", "initial_items", "search_cost_per_item"};
constexpr std::array<std::string_view, 3> kStallKeys = {"length", "every", "first"};
constexpr std::array<std::string_view, 2> kDriftKeys = {"add", "every"};
constexpr std::array<std::string_view, 4> kFaultKeys = {"at", "for", "status", "body"};
// Keys a route with `builtin` may not have: the handler makes its own answer.
constexpr std::array<std::string_view, 8> kNotWithBuiltin = {
    "status", "body", "body_bytes", "content_type", "sse", "llm", "cache", "drift"};
// A soak has a handful of faults per route; thousands would be a generated file gone wrong.
constexpr size_t kMaxFaultsPerRoute = 1000;

constexpr int64_t kMaxSseEventBytes = 1024 * 1024;
constexpr int64_t kMaxCount = 1'000'000'000;
constexpr size_t kMaxNameBytes = 100;
// A routes file is a few kilobytes; anything this large is the wrong file.
constexpr int64_t kMaxFileBytes = int64_t{16} << 20;

using yaml_reader::unknown_choice;

// The value under `key` in a map, read before the map is checked (to name it in messages).
std::optional<YAML::Node> peek(const YAML::Node& map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) return pair.second;
  }
  return std::nullopt;
}

std::optional<std::string> peek_scalar(const YAML::Node& map, std::string_view key) {
  std::optional<YAML::Node> value = peek(map, key);
  if (!value || !value->IsScalar()) return std::nullopt;
  return value->Scalar();
}

// A delay duration, at most kMaxRouteDelayNs (the samplers cap there).
int64_t get_delay_ns(const FieldMap& map, std::string_view key) {
  int64_t value_ns = *map.get_duration_ns(key);
  if (value_ns > kMaxRouteDelayNs) map.fail_at_value(key, "must be at most 24h");
  return value_ns;
}

// sigma = ln(p99 / median) / z_0.99, so p99 = median * e^(z_0.99 * sigma).
int64_t lognormal_p99_ns(const FieldMap& map, int64_t median_ns) {
  const YAML::Node& node = *map.present("sigma");
  std::string text = yaml_reader::read_string(map.source(), node, map.what("sigma"));
  char* end = nullptr;
  double sigma = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(sigma > 0) || !(sigma <= 10)) {
    map.fail_at_value("sigma", "expected a number above 0 and at most 10, got '" + text + "'");
  }
  double p99_ns = static_cast<double>(median_ns) * std::exp(kLognormalZ99 * sigma);
  if (!(p99_ns <= static_cast<double>(kMaxRouteDelayNs))) {
    map.fail_at_value("sigma", "makes p99 longer than 24h");
  }
  // A sigma so small that p99 rounds to the median is a fixed delay, which needs no sigma.
  return std::max(median_ns + 1, static_cast<int64_t>(std::llround(p99_ns)));
}

DelaySpec parse_delay(const FieldMap& route) {
  const YAML::Node& node = *route.present("delay");
  DelaySpec delay;
  if (!node.IsMap()) {
    // The short form "delay: 2ms" is a fixed delay.
    delay.fixed_ns = yaml_reader::read_duration_ns(route.source(), node, route.what("delay"));
    if (delay.fixed_ns > kMaxRouteDelayNs) route.fail_at_value("delay", "must be at most 24h");
    delay.kind = delay.fixed_ns > 0 ? DelaySpec::Kind::kFixed : DelaySpec::Kind::kNone;
    return delay;
  }
  std::string where = "'delay' of " + route.where();
  std::optional<YAML::Node> dist_node = peek(node, "dist");
  if (!dist_node) {
    route.source().fail(node,
                        where + " needs 'dist' (" + yaml_reader::join_names(kDistributions) + ")");
  }
  std::string what_dist = "'dist' in " + where;
  std::string dist = yaml_reader::read_string(route.source(), *dist_node, what_dist);
  if (dist == "fixed") {
    FieldMap map(route.source(), node, where, kFixedKeys);
    if (!map.has("value")) map.fail_missing("value");
    delay.fixed_ns = get_delay_ns(map, "value");
    delay.kind = delay.fixed_ns > 0 ? DelaySpec::Kind::kFixed : DelaySpec::Kind::kNone;
  } else if (dist == "uniform") {
    FieldMap map(route.source(), node, where, kUniformKeys);
    if (!map.has("min")) map.fail_missing("min");
    if (!map.has("max")) map.fail_missing("max");
    delay.kind = DelaySpec::Kind::kUniform;
    delay.min_ns = get_delay_ns(map, "min");
    delay.max_ns = get_delay_ns(map, "max");
    if (delay.max_ns < delay.min_ns) map.fail_at_value("max", "must not be below 'min'");
  } else if (dist == "exponential") {
    FieldMap map(route.source(), node, where, kExponentialKeys);
    if (!map.has("mean")) map.fail_missing("mean");
    delay.kind = DelaySpec::Kind::kExponential;
    delay.mean_ns = get_delay_ns(map, "mean");
    if (delay.mean_ns <= 0) map.fail_at_value("mean", "must be above 0");
  } else if (dist == "lognormal") {
    FieldMap map(route.source(), node, where, kLognormalKeys);
    if (!map.has("median")) map.fail_missing("median");
    delay.kind = DelaySpec::Kind::kLognormal;
    delay.median_ns = get_delay_ns(map, "median");
    if (delay.median_ns <= 0) map.fail_at_value("median", "must be above 0");
    if (map.has("sigma") == map.has("p99")) {
      route.source().fail(node, where + " needs one of 'p99' or 'sigma' (spread of ln delay)");
    }
    if (map.has("sigma")) {
      delay.p99_ns = lognormal_p99_ns(map, delay.median_ns);
    } else {
      delay.p99_ns = get_delay_ns(map, "p99");
      if (delay.p99_ns <= delay.median_ns) map.fail_at_value("p99", "must be above 'median'");
    }
  } else {
    route.source().fail(*dist_node,
                        what_dist + ": " + unknown_choice("distribution", dist, kDistributions));
  }
  return delay;
}

// "Origin: https://example.test" -> {"Origin", "https://example.test"}.
std::pair<std::string, std::string> parse_trusted_header(const FieldMap& limit) {
  std::string text = *limit.get_string("trusted_header");
  size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  bool ok = colon != std::string::npos && is_http_token(name) && !value.empty() &&
            std::none_of(value.begin(), value.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\t'; });
  if (!ok) {
    limit.fail_at_value("trusted_header",
                        "expected 'Name: value', like 'Origin: https://example.test'");
  }
  return {name, value};
}

// "address", "shared:N" or "header:NAME": what a caller's allowance is keyed by.
void parse_limit_key(const FieldMap& map, LimitSpec& limit) {
  std::string text = *map.get_string("key");
  std::string_view rest = text;
  if (text == "address") {
    limit.key = LimitSpec::Key::kAddress;
  } else if (rest.starts_with("shared:")) {
    rest.remove_prefix(7);
    int64_t n = 0;
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (rest.empty() || error != std::errc() || end != rest.data() + rest.size() || n < 1 ||
        n > kMaxSharedAllowances) {
      map.fail_at_value("key", "expected shared:N with N from 1 to " +
                                   std::to_string(kMaxSharedAllowances) + ", got '" + text + "'");
    }
    limit.key = LimitSpec::Key::kShared;
    limit.shared_allowances = n;
  } else if (rest.starts_with("header:")) {
    rest.remove_prefix(7);
    if (!is_http_token(rest)) {
      map.fail_at_value(
          "key",
          "expected header:NAME with a header name like X-Forwarded-For, got '" + text + "'");
    }
    limit.key = LimitSpec::Key::kHeader;
    limit.key_header = std::string(rest);
  } else {
    map.fail_at_value("key", "expected address, shared:N or header:NAME, got '" + text + "'");
  }
}

// Checked after the burst is known: each instance gets burst / K whole tokens and rate / K.
int64_t parse_instances(const FieldMap& map, const LimitSpec& limit) {
  int64_t instances = *map.get_integer("instances", 1, kMaxLimitInstances);
  if (instances > limit.burst) {
    map.fail_at_value("instances", "must be at most 'burst' (" + std::to_string(limit.burst) +
                                       "): each instance needs at least one token");
  }
  if (instances > 1 && limit.rate_per_s / static_cast<double>(instances) < 0.001) {
    map.fail_at_value("instances", "leaves each instance a rate below 0.001/s");
  }
  return instances;
}

LimitSpec parse_limit(const FieldMap& route) {
  const YAML::Node& node = *route.present("limit");
  // Without a burst, one second's worth.
  auto default_burst = [](double rate_per_s) {
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rate_per_s)));
  };
  LimitSpec limit;
  if (!node.IsMap()) {
    // The short form "limit: 10/s".
    limit.rate_per_s = yaml_reader::read_rate_per_s(route.source(), node, route.what("limit"));
    limit.burst = default_burst(limit.rate_per_s);
    return limit;
  }
  FieldMap map(route.source(), node, "'limit' of " + route.where(), kLimitKeys);
  if (!map.has("rate")) map.fail_missing("rate");
  limit.rate_per_s = *map.get_rate_per_s("rate");
  limit.burst =
      map.has("burst") ? *map.get_integer("burst", 1, kMaxCount) : default_burst(limit.rate_per_s);
  if (map.has("trusted_header")) limit.trusted_header = parse_trusted_header(map);
  if (map.has("key")) parse_limit_key(map, limit);
  if (map.has("instances")) limit.instances = parse_instances(map, limit);
  return limit;
}

FailSpec parse_fail(const FieldMap& route) {
  FieldMap map(route.source(), *route.present("fail"), "'fail' of " + route.where(), kFailKeys);
  FailSpec fail;
  fail.p500 = map.get_probability("500").value_or(0);
  fail.p503 = map.get_probability("503").value_or(0);
  fail.reset = map.get_probability("reset").value_or(0);
  fail.garbage = map.get_probability("garbage").value_or(0);
  fail.trickle = map.get_probability("trickle").value_or(0);
  fail.oversized_header = map.get_probability("oversized_header").value_or(0);
  // A little slack for decimal fractions that add up to exactly 1 on paper.
  if (fail.total() > 1 + 1e-9) {
    route.source().fail(map.node(), map.where() + ": the probabilities add up to " +
                                        std::to_string(fail.total()) + ", more than 1");
  }
  return fail;
}

SseSpec parse_sse(const FieldMap& route) {
  FieldMap map(route.source(), *route.present("sse"), "'sse' of " + route.where(), kSseKeys);
  if (!map.has("events")) map.fail_missing("events");
  if (!map.has("over")) map.fail_missing("over");
  SseSpec sse;
  sse.events = static_cast<int>(*map.get_integer("events", 1, 1'000'000));
  sse.over_ns = *map.get_duration_ns("over");
  if (map.has("event_bytes")) sse.event_bytes = *map.get_bytes("event_bytes", kMaxSseEventBytes);
  if (sse.event_bytes < 1) map.fail_at_value("event_bytes", "must be at least 1 byte");
  if (map.has("tokens_per_event")) {
    sse.tokens_per_event = static_cast<int>(*map.get_integer("tokens_per_event", 0, 1'000'000));
  }
  return sse;
}

LlmSpec parse_llm(const FieldMap& route) {
  FieldMap map(route.source(), *route.present("llm"), "'llm' of " + route.where(), kLlmKeys);
  LlmSpec llm;
  if (auto ttft = map.get_duration_ns("ttft")) {
    if (*ttft < 0) map.fail_at_value("ttft", "must not be negative");
    llm.ttft_ns = *ttft;
  }
  if (auto rate = map.get_rate_per_s("tokens_per_s")) llm.tokens_per_s = *rate;
  if (const YAML::Node* tokens = map.present("tokens")) {
    if (tokens->IsMap()) {
      FieldMap range(route.source(), *tokens, "'tokens' of " + map.where(), kRangeKeys);
      if (!range.has("min")) range.fail_missing("min");
      if (!range.has("max")) range.fail_missing("max");
      llm.tokens_min = static_cast<int>(*range.get_integer("min", 1, kMaxLlmTokens));
      llm.tokens_max = static_cast<int>(*range.get_integer("max", 1, kMaxLlmTokens));
      if (llm.tokens_max < llm.tokens_min) range.fail_at_value("max", "must not be below min");
    } else {
      llm.tokens_min = llm.tokens_max =
          static_cast<int>(*map.get_integer("tokens", 1, kMaxLlmTokens));
    }
  }
  if (auto c = map.get_integer("concurrency", 0, 100'000)) llm.concurrency = static_cast<int>(*c);
  return llm;
}

DriftSpec parse_drift(const FieldMap& route) {
  FieldMap map(route.source(), *route.present("drift"), "'drift' of " + route.where(), kDriftKeys);
  if (!map.has("add")) map.fail_missing("add");
  if (!map.has("every")) map.fail_missing("every");
  DriftSpec drift;
  drift.add_ns = get_delay_ns(map, "add");
  drift.every_ns = *map.get_duration_ns("every");
  if (drift.add_ns <= 0) map.fail_at_value("add", "must be above 0");
  if (drift.every_ns <= 0) map.fail_at_value("every", "must be above 0");
  return drift;
}

// Parsed after the rest of the route: a body fault needs the route's own answer to replace.
std::vector<FaultSpec> parse_faults(const FieldMap& route, const RouteSpec& spec) {
  const YAML::Node& list = *route.present("faults");
  if (!list.IsSequence() || list.size() == 0) {
    route.fail_at_value(
        "faults",
        "expected a list like [{at: 30s, for: 10s, status: 500}], got " +
            std::string(list.IsSequence() ? "an empty list" : yaml_reader::node_kind(list)));
  }
  if (list.size() > kMaxFaultsPerRoute) {
    route.fail_at_value("faults", "at most " + std::to_string(kMaxFaultsPerRoute) + " faults");
  }
  std::vector<FaultSpec> faults;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = "fault #" + std::to_string(i + 1) + " of " + route.where();
    FieldMap map(route.source(), list[i], where, kFaultKeys);
    if (!map.has("at")) map.fail_missing("at");
    if (!map.has("for")) map.fail_missing("for");
    FaultSpec fault;
    fault.at_ns = *map.get_duration_ns("at");
    fault.for_ns = *map.get_duration_ns("for");
    if (fault.at_ns < 0) map.fail_at_value("at", "must not be negative");
    if (fault.for_ns <= 0) map.fail_at_value("for", "must be above 0");
    if (map.has("status") == map.has("body")) {
      route.source().fail(list[i], where + " needs exactly one of 'status' (answered instead) " +
                                       "or 'body' (the route's status with this body instead)");
    }
    if (map.has("status")) {
      fault.status = static_cast<int>(*map.get_integer("status", 100, 599));
    } else {
      fault.body = *map.get_string("body");
      if (!spec.builtin.empty() || spec.sse || spec.llm) {
        map.fail_at_key("body",
                        "cannot be used on a route with 'builtin', 'sse' or 'llm' (no body of "
                        "its own to replace); use 'status'");
      }
      if (!spec.body_bytes && fault.body == spec.body) {
        map.fail_at_value("body", "is the route's own body: a wrong answer must differ");
      }
    }
    faults.push_back(std::move(fault));
  }
  return faults;
}

std::string parse_method(const FieldMap& route) {
  if (!route.has("method")) return "GET";
  std::string method = *route.get_string("method");
  if (std::find(kRouteMethods.begin(), kRouteMethods.end(), method) == kRouteMethods.end()) {
    route.fail_at_value("method", unknown_choice("method", method, kRouteMethods));
  }
  return method;
}

void check_name(const FieldMap& route, const std::string& name) {
  bool printable = std::all_of(name.begin(), name.end(), [](char c) {
    return c >= ' ' && c < 0x7f && c != '"' && c != '\\';
  });
  if (name.empty() || name.size() > kMaxNameBytes || !printable) {
    route.fail_at_value("name",
                        "expected 1 to 100 printable ASCII characters without '\"' or "
                        "'\\' (it labels metrics)");
  }
}

void parse_builtin(const FieldMap& route, RouteSpec& spec) {
  spec.builtin = *route.get_string("builtin");
  if (!is_builtin_handler(spec.builtin)) {
    route.fail_at_value("builtin", unknown_choice("handler", spec.builtin, kBuiltinHandlers));
  }
  for (std::string_view key : kNotWithBuiltin) {
    if (route.has(key)) {
      route.fail_at_key(key,
                        "cannot be combined with 'builtin' (the handler makes its own "
                        "answer)");
    }
  }
  bool needs_id = spec.builtin == "lifecycle.assign" || spec.builtin == "lifecycle.resolve" ||
                  spec.builtin == "lifecycle.get";
  if (needs_id) {
    std::vector<PathSegment> segments = parse_path_template(spec.path);
    bool has_id = std::any_of(segments.begin(), segments.end(), [](const PathSegment& s) {
      return s.is_parameter && s.text == "id";
    });
    if (!has_id) {
      route.fail_at_value("path", "handler '" + spec.builtin + "' needs an {id} parameter");
    }
  }
}

RouteSpec parse_route(const Source& source, const YAML::Node& node, size_t index) {
  // Name the route in messages as the user will recognise it, before its keys are checked.
  std::string where = "route #" + std::to_string(index + 1);
  if (auto name = peek_scalar(node, "name")) {
    where = "route '" + *name + "'";
  } else if (auto path = peek_scalar(node, "path")) {
    where = "route '" + peek_scalar(node, "method").value_or("GET") + " " + *path + "'";
  }
  FieldMap route(source, node, where, kRouteKeys);
  RouteSpec spec;
  spec.method = parse_method(route);
  if (!route.has("path")) route.fail_missing("path");
  spec.path = *route.get_string("path");
  try {
    parse_path_template(spec.path);
  } catch (const UsageError& error) {
    route.fail_at_value("path", error.what());
  }
  spec.name = route.get_string("name").value_or(spec.method + " " + spec.path);
  if (route.has("name")) check_name(route, spec.name);
  if (route.has("builtin")) parse_builtin(route, spec);

  if (route.has("status")) spec.status = static_cast<int>(*route.get_integer("status", 100, 599));
  if (route.has("body")) spec.body = *route.get_string("body");
  if (route.has("body_bytes")) {
    if (route.has("body")) route.fail_at_key("body_bytes", "cannot be combined with 'body'");
    spec.body_bytes = *route.get_bytes("body_bytes", kMaxRouteBodyBytes);
  }
  if (route.has("sse")) {
    for (std::string_view key : {"body", "body_bytes", "cache"}) {
      if (route.has(key)) route.fail_at_key(key, "cannot be combined with 'sse'");
    }
    spec.sse = parse_sse(route);
    spec.content_type = "text/event-stream";
  }
  if (route.has("llm")) {
    for (std::string_view key : {"body", "body_bytes", "cache", "sse", "content_type"}) {
      if (route.has(key)) route.fail_at_key(key, "cannot be combined with 'llm'");
    }
    spec.llm = parse_llm(route);
  }
  if (route.has("content_type")) spec.content_type = *route.get_string("content_type");
  if (spec.content_type.empty() ||
      std::any_of(spec.content_type.begin(), spec.content_type.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    route.fail_at_value("content_type", "expected a media type like application/json");
  }
  spec.cpu_ns = route.get_duration_ns("cpu").value_or(0);
  if (route.has("delay")) spec.delay = parse_delay(route);
  spec.serial = route.get_bool("serial").value_or(false);
  spec.cache = route.get_bool("cache").value_or(false);
  if (route.has("limit")) spec.limit = parse_limit(route);
  if (route.has("fail")) spec.fail = parse_fail(route);
  if (route.has("drift")) spec.drift = parse_drift(route);
  if (route.has("faults")) spec.faults = parse_faults(route, spec);
  return spec;
}

StallSpec parse_stalls(const FieldMap& top) {
  FieldMap map(top.source(), *top.present("stalls"), "'stalls'", kStallKeys);
  if (!map.has("length")) map.fail_missing("length");
  if (!map.has("every")) map.fail_missing("every");
  StallSpec stalls;
  stalls.stall_ns = *map.get_duration_ns("length");
  stalls.every_ns = *map.get_duration_ns("every");
  stalls.first_ns = map.get_duration_ns("first").value_or(stalls.every_ns);
  if (stalls.stall_ns <= 0) map.fail_at_value("length", "must be above 0");
  if (stalls.stall_ns >= stalls.every_ns) {
    map.fail_at_value("every",
                      "must be longer than 'length' (the server must run between "
                      "stalls)");
  }
  return stalls;
}

LifecycleSpec parse_lifecycle(const FieldMap& top) {
  FieldMap map(top.source(), *top.present("lifecycle"), "'lifecycle'", kLifecycleKeys);
  LifecycleSpec lifecycle;
  if (map.has("committers")) {
    lifecycle.committers = static_cast<int>(*map.get_integer("committers", 1, 64));
  }
  lifecycle.commit_cost_ns = map.get_duration_ns("commit_cost").value_or(lifecycle.commit_cost_ns);
  lifecycle.initial_items =
      map.get_integer("initial_items", 0, 10'000'000).value_or(lifecycle.initial_items);
  lifecycle.search_cost_per_item_ns =
      map.get_duration_ns("search_cost_per_item").value_or(lifecycle.search_cost_per_item_ns);
  return lifecycle;
}

// Each (method, path shape) and each name at most once; messages point at the second one.
void check_unique(const Source& source, const YAML::Node& routes,
                  const std::vector<RouteSpec>& specs) {
  std::map<std::string, size_t> by_shape;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < specs.size(); ++i) {
    const RouteSpec& spec = specs[i];
    const YAML::Node& node = routes[i];
    auto line_of = [&](size_t other) { return std::to_string(routes[other].Mark().line + 1); };
    auto [shape, new_shape] = by_shape.emplace(spec.method + " " + path_shape(spec.path), i);
    if (!new_shape) {
      source.fail(node["path"], "duplicate route " + spec.method + " " + spec.path +
                                    " (the route at line " + line_of(shape->second) +
                                    " already matches it)");
    }
    auto [name, new_name] = by_name.emplace(spec.name, i);
    if (!new_name) {
      source.fail(node["name"].IsDefined() ? node["name"] : node,
                  "route name '" + spec.name + "' used twice (first at line " +
                      line_of(name->second) + ")");
    }
  }
}

}  // namespace

RouteTable parse_routes_yaml(std::string_view text, std::string_view file_name) {
  Source source(file_name);
  // The usual syntax slip: a path template in a flow map, "{path: /items/{id}}".
  YAML::Node document = yaml_reader::load_single_document(
      source, text, "routes file", "a 'routes:' list", "path: \"/items/{id}\"");
  FieldMap top(source, document, "the routes file", kTopKeys);

  RouteTable table;
  if (top.has("seed")) {
    table.seed =
        static_cast<uint64_t>(*top.get_integer("seed", 0, std::numeric_limits<int64_t>::max()));
  }
  if (top.has("stalls")) table.stalls = parse_stalls(top);
  if (top.has("lifecycle")) table.lifecycle = parse_lifecycle(top);
  if (!top.has("routes")) top.fail_missing("routes");
  const YAML::Node& routes = *top.present("routes");
  if (!routes.IsSequence() || routes.size() == 0) {
    top.fail_at_value(
        "routes",
        "expected a list of routes (\"- path: /...\"), got " +
            std::string(routes.IsSequence() ? "an empty list" : yaml_reader::node_kind(routes)));
  }
  for (size_t i = 0; i < routes.size(); ++i) {
    table.routes.push_back(parse_route(source, routes[i], i));
  }
  check_unique(source, routes, table.routes);
  bool any_lifecycle = std::any_of(table.routes.begin(), table.routes.end(), [](auto& route) {
    return route.builtin.starts_with("lifecycle.") || route.builtin.starts_with("admin.");
  });
  if (any_lifecycle && !table.lifecycle) table.lifecycle = LifecycleSpec{};
  return table;
}

RouteTable load_routes_file(const std::string& path) {
  return parse_routes_yaml(read_bounded_file(path, "routes file", kMaxFileBytes), path);
}

}  // namespace proofload::serve
