// Parsing and evaluation of thresholds (see threshold.h). Stateless; parsing throws UsageError
// only, evaluation never throws.
#include "measure/threshold.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "measure/outcome.h"

namespace proofload::measure {
namespace {

using Kind = MetricRef::Kind;

// What a metric's values (and so its bound) are measured in.
// kVerdict: `reconcile`, whose only bound is the word "exact" (a difference of 0).
enum class Unit { kMs, kShare, kCount, kPerSecond, kVerdict };

Unit unit_of(Kind kind) {
  switch (kind) {
    case Kind::kPercentile:
    case Kind::kMean:
    case Kind::kMax:
    case Kind::kStreamPercentile:
      return Unit::kMs;
    case Kind::kErrorRate:
    case Kind::kNeverStarted:
    case Kind::kOutcomeRate:
    case Kind::kDrops:
    case Kind::kStreamGoodput:
      return Unit::kShare;
    case Kind::kCount:
      return Unit::kCount;
    case Kind::kThroughput:
    case Kind::kGoodput:
    case Kind::kStreamRate:
      return Unit::kPerSecond;
    case Kind::kReconcile:
      return Unit::kVerdict;
  }
  return Unit::kCount;
}

constexpr std::string_view kRequestsOutcome = "requests";
constexpr std::string_view kAllowedMetrics =
    "pNN (p50, p95, p99.9), mean, avg, max, errors, error_rate, never_started, "
    "rate(OUTCOME[, scope]), count(OUTCOME[, scope]), requests, rps, goodput, reconcile, drops, "
    "ttft_pNN, itl_pNN, tpot_pNN, ttfb_pNN, tokens_per_s, events_per_s, stream_goodput";
// Names a typo is compared with to suggest the nearest.
constexpr std::string_view kMetricNames[] = {
    "p50",    "p90",        "p95",  "p99",   "p99.9",    "mean", "avg",           "max",
    "errors", "error_rate", "rate", "count", "requests", "rps",  "never_started", "goodput",
    "reconcile", "drops", "ttft_p95", "itl_p99", "tpot_p50", "ttfb_p95", "tokens_per_s",
    "events_per_s", "stream_goodput"};

// The closest candidate, if it is close enough to be a plausible typo (at most half the word
// differs): suggesting "rps" for "latency" would mislead more than it helps.
template <typename Range>
std::optional<std::string_view> nearest(std::string_view word, const Range& candidates) {
  std::optional<std::string_view> best;
  size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (!best || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  if (best && best_distance * 2 <= std::max(word.size(), size_t{2})) return best;
  return std::nullopt;
}

std::string did_you_mean(std::optional<std::string_view> suggestion) {
  return suggestion ? "; did you mean \"" + std::string(*suggestion) + "\"?" : "";
}

// Outcomes the recorder counts, plus the ones counted per flow. Built from measure's list so a
// new outcome is accepted without touching this file.
const std::vector<std::string_view>& known_outcomes() {
  static const std::vector<std::string_view> outcomes = [] {
    std::vector<std::string_view> list(measure::kOutcomeNames.begin(),
                                       measure::kOutcomeNames.end());
    for (std::string_view extra : {"check_failed", "flow_success"}) {
      if (std::find(list.begin(), list.end(), extra) == list.end()) list.push_back(extra);
    }
    return list;
  }();
  return outcomes;
}

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// Throws for one threshold; every message quotes the expression as written.
class Parser {
 public:
  explicit Parser(std::string_view expression) : expression_(trim(expression)) {}

  Threshold parse() {
    if (expression_.empty()) fail("empty (write METRIC OP BOUND, like p95 < 200ms or errors < 1%)");
    std::string_view rest = expression_;
    Threshold t;
    t.expression = std::string(expression_);
    t.metric = parse_metric(rest);
    t.comparison = parse_comparison(rest, t.metric);
    t.bound = parse_bound(trim(rest), t.metric);
    return t;
  }

 private:
  [[noreturn]] void fail(std::string_view why) const {
    throw UsageError("invalid threshold \"" + std::string(expression_) + "\": " + std::string(why));
  }

  // The metric's name, then an optional "(args)". Leaves `rest` after the metric.
  MetricRef parse_metric(std::string_view& rest) {
    size_t end = 0;
    while (end < rest.size() && !is_blank(rest[end]) && rest[end] != '(' &&
           std::string_view("<>=!").find(rest[end]) == std::string_view::npos) {
      ++end;
    }
    const std::string_view raw_name = rest.substr(0, end);
    if (raw_name.empty()) fail("missing metric before the comparison (like p95 or errors)");
    rest = trim(rest.substr(end));

    std::vector<std::string> args;
    bool has_parens = false;
    if (!rest.empty() && rest.front() == '(') {
      has_parens = true;
      const size_t close = rest.find(')');
      if (close == std::string_view::npos) {
        fail("missing ) after \"" + std::string(raw_name) + "(\"");
      }
      args = split_args(rest.substr(1, close - 1), raw_name);
      rest = trim(rest.substr(close + 1));
    }
    return build_metric(ascii_lowercase(raw_name), raw_name, has_parens, args);
  }

  std::vector<std::string> split_args(std::string_view inside, std::string_view name) {
    std::vector<std::string> args;
    while (true) {
      const size_t comma = inside.find(',');
      const std::string_view arg = trim(inside.substr(0, comma));
      if (arg.empty()) fail("empty argument in " + std::string(name) + "(...)");
      for (char c : arg) {
        if (is_blank(c) || c == '(') {
          fail("\"" + std::string(arg) + "\" in " + std::string(name) +
               "(...) is not a name (names have no spaces or parentheses)");
        }
      }
      args.emplace_back(arg);
      if (comma == std::string_view::npos) break;
      inside.remove_prefix(comma + 1);
    }
    return args;
  }

  MetricRef build_metric(const std::string& name, std::string_view raw_name, bool has_parens,
                         const std::vector<std::string>& args) {
    MetricRef m;
    // Metrics read with at most one argument, the scope.
    auto scope_only = [&](Kind kind) {
      if (args.size() > 1) {
        fail(std::string(raw_name) + " takes at most one argument, the name of a request or flow");
      }
      m.kind = kind;
      if (!args.empty()) m.scope = args[0];
      return m;
    };
    if (name == "mean" || name == "avg") return scope_only(Kind::kMean);
    if (name == "max") return scope_only(Kind::kMax);
    if (name == "errors" || name == "error_rate") return scope_only(Kind::kErrorRate);
    if (name == "never_started") return scope_only(Kind::kNeverStarted);
    if (name == "rps") return scope_only(Kind::kThroughput);
    if (name == "goodput") return scope_only(Kind::kGoodput);
    if (name == "reconcile" || name == "drops") {
      m = scope_only(name == "reconcile" ? Kind::kReconcile : Kind::kDrops);
      if (!m.scope.empty()) {
        fail(name + " is of the whole run (its --reconcile): it takes no scope");
      }
      return m;
    }
    if (name == "stream_goodput") return scope_only(Kind::kStreamGoodput);
    if (name == "tokens_per_s" || name == "events_per_s") {
      m = scope_only(Kind::kStreamRate);
      m.figure = name.substr(0, name.find('_'));
      return m;
    }
    for (std::string_view figure : {"ttft", "itl", "tpot", "ttfb"}) {
      const std::string prefix = std::string(figure) + "_p";
      if (name.starts_with(prefix) && name.size() > prefix.size()) {
        m = scope_only(Kind::kStreamPercentile);
        m.figure = figure;
        m.percentile = parse_percentile(raw_name, std::string_view(name).substr(prefix.size()));
        return m;
      }
    }
    if (name == "requests") {
      m = scope_only(Kind::kCount);
      m.outcome = kRequestsOutcome;
      return m;
    }
    if (name == "rate" || name == "count") {
      return outcome_metric(name == "rate" ? Kind::kOutcomeRate : Kind::kCount, name, has_parens,
                            args);
    }
    if (name.size() > 1 && name[0] == 'p' &&
        name.find_first_not_of("0123456789.+-", 1) == std::string::npos) {
      m = scope_only(Kind::kPercentile);
      m.percentile = parse_percentile(raw_name, std::string_view(name).substr(1));
      return m;
    }
    fail("unknown metric \"" + std::string(raw_name) + "\" (use " + std::string(kAllowedMetrics) +
         ")" + did_you_mean(nearest(name, kMetricNames)));
  }

  MetricRef outcome_metric(Kind kind, const std::string& name, bool has_parens,
                           const std::vector<std::string>& args) {
    const std::string usage =
        name + "(OUTCOME[, scope]), like " + name + "(success) or " + name + "(status_429, lookup)";
    if (!has_parens) fail(name + " needs an outcome: " + usage);
    if (args.size() > 2) fail("too many arguments to " + name + ": " + usage);
    MetricRef m;
    m.kind = kind;
    m.outcome = ascii_lowercase(args[0]);
    if (args.size() == 2) m.scope = args[1];
    const auto& outcomes = known_outcomes();
    if (kind == Kind::kCount && m.outcome == kRequestsOutcome) return m;
    if (kind == Kind::kOutcomeRate && m.outcome == "never_started") {
      // Its denominator is the arrivals offered, not requests ended: a different metric.
      fail(
          "never-started work is a share of the arrivals offered: use never_started, not "
          "rate(never_started)");
    }
    if (std::find(outcomes.begin(), outcomes.end(), m.outcome) == outcomes.end()) {
      std::vector<std::string_view> allowed;
      for (std::string_view o : outcomes) {
        if (kind == Kind::kCount || o != "never_started") allowed.push_back(o);
      }
      if (kind == Kind::kCount) allowed.push_back(kRequestsOutcome);
      fail("unknown outcome \"" + args[0] + "\" in " + name + "(...) (use " + join(allowed) + ")" +
           did_you_mean(nearest(m.outcome, allowed)));
    }
    return m;
  }

  double parse_percentile(std::string_view raw_name, std::string_view digits) {
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const bool is_number = ec == std::errc() && end == digits.data() + digits.size();
    if (!is_number || !(value > 0 && value < 100)) {
      fail("bad percentile \"" + std::string(raw_name) +
           "\" (a percentile is above 0 and below 100, like p50, p95 or p99.9)");
    }
    return value;
  }

  Comparison parse_comparison(std::string_view& rest, const MetricRef& metric) {
    struct Op {
      std::string_view text;
      Comparison comparison;
    };
    // Two-character operators first, so "<=" is not read as "<" and a bound "=...".
    static constexpr Op kOps[] = {{"<=", Comparison::kLessEqual}, {">=", Comparison::kGreaterEqual},
                                  {"==", Comparison::kEqual},     {"<", Comparison::kLess},
                                  {">", Comparison::kGreater},    {"=", Comparison::kEqual}};
    const std::string after = " after " + metric.text() + " (use <, <=, >, >= or ==)";
    if (rest.empty()) fail("missing comparison" + after);
    if (rest.starts_with("!=")) fail("!= cannot be used (use <, <=, >, >= or ==)");
    for (const Op& op : kOps) {
      if (rest.starts_with(op.text)) {
        rest.remove_prefix(op.text.size());
        if (metric.kind == Kind::kReconcile && op.comparison != Comparison::kEqual) {
          fail("reconcile is exact or not: write reconcile == exact (or drops <= 0.1% for a "
               "tolerance)");
        }
        return op.comparison;
      }
    }
    fail("expected a comparison" + after + ", found \"" + std::string(rest) + "\"");
  }

  double parse_bound(std::string_view bound, const MetricRef& metric) {
    const std::string name = metric.text();
    if (bound.empty()) fail("missing bound after the comparison");
    const Unit unit = unit_of(metric.kind);
    if (unit == Unit::kVerdict) {
      if (ascii_lowercase(bound) != "exact") {
        fail("reconcile takes one bound, exact (reconcile == exact), not \"" +
             std::string(bound) + "\"; for a tolerance write drops <= 0.1%");
      }
      return 0;  // no difference between the client's successes and the server's count
    }
    if (bound.front() == '-') fail("bound \"" + std::string(bound) + "\" must not be negative");
    // A plain decimal ("200", "1.5", ".5"), then an optional unit ("ms", "%"), spaces allowed
    // between them.
    const size_t number_end = std::min(bound.find_first_not_of("0123456789."), bound.size());
    const std::string_view number = bound.substr(0, number_end);
    const std::string_view suffix = trim(bound.substr(number_end));
    if (number.find_first_of("0123456789") == std::string_view::npos ||
        std::count(number.begin(), number.end(), '.') > 1 ||
        (!suffix.empty() &&
         std::string_view("0123456789.").find(suffix[0]) != std::string_view::npos)) {
      fail("bound \"" + std::string(bound) + "\" is not a number");
    }
    const bool percent = suffix == "%";
    const bool duration = !suffix.empty() && !percent && is_duration(number, suffix);
    if (unit == Unit::kMs) {
      if (percent) {
        fail(name + " is a latency: use a duration like 200ms or 1.5s, not a percentage");
      }
      if (suffix.empty()) return to_double(number, "");  // a bare number is ms
      try {
        return static_cast<double>(parse_duration_ns(std::string(number) + std::string(suffix))) /
               1e6;
      } catch (const UsageError& e) {
        fail(e.what());
      }
    }
    if (unit == Unit::kShare) {
      const std::string usage =
          name + " is a share: use a percentage like 1% or a fraction like 0.01";
      if (duration) fail(usage + ", not a duration");
      if (!suffix.empty() && !percent) {
        fail(usage + " (unknown unit \"" + std::string(suffix) + "\")");
      }
      // "1%" is read as the decimal text "1e-2", so the bound is the double nearest the exact
      // value: the same double the caller gets from dividing counts (1 / 100).
      const double share = to_double(number, percent ? "e-2" : "");
      if (share > 1) {
        fail(percent ? usage + " (at most 100%)"
                     : usage + "; a fraction is at most 1 (for a percentage write " +
                           std::string(number) + "%)");
      }
      return share;
    }
    const std::string usage =
        unit == Unit::kCount ? name + " is a count: use a plain number like 10"
                             : name + " is in requests per second: use a plain number like 500";
    if (percent) fail(usage + ", not a percentage");
    if (duration) fail(usage + ", not a duration");
    if (!suffix.empty()) fail(usage + " (unknown unit \"" + std::string(suffix) + "\")");
    return to_double(number, "");
  }

  static bool is_duration(std::string_view number, std::string_view suffix) {
    try {
      parse_duration_ns(std::string(number) + std::string(suffix));
      return true;
    } catch (const UsageError&) {
      return false;
    }
  }

  double to_double(std::string_view number, std::string_view exponent) {
    const std::string text = std::string(number) + std::string(exponent);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      fail("bound \"" + std::string(number) + "\" is not a number");
    }
    return value;
  }

  std::string_view expression_;
};

bool compare(double observed, Comparison comparison, double bound) {
  switch (comparison) {
    case Comparison::kLess:
      return observed < bound;
    case Comparison::kLessEqual:
      return observed <= bound;
    case Comparison::kGreater:
      return observed > bound;
    case Comparison::kGreaterEqual:
      return observed >= bound;
    case Comparison::kEqual:
      return observed == bound;
  }
  return false;
}

// `value` times `scale` (display units: percent for shares) with `decimals`, widened until the
// printed number says the same as the value about the bound and a non-zero value does not print
// as zero (nor a share short of everything as 100%). The printed number is read back with
// `exponent` undoing the scale ("e-2"), so it is compared with the bound exactly as a bound of that
// text would be parsed.
std::string fixed_consistent(double value, double scale, std::string_view exponent, int decimals,
                             Comparison comparison, double bound, bool trim_zeros) {
  constexpr int kMaxDecimals = 6;
  const bool verdict = compare(value, comparison, bound);
  std::string text;
  for (int d = decimals; d <= kMaxDecimals; ++d) {
    text = fmt::format("{:.{}f}", value * scale, d);
    const double shown = std::strtod((text + std::string(exponent)).c_str(), nullptr);
    const bool honest_zero = shown != 0 || value == 0;
    const bool honest_whole = exponent.empty() || shown != 1 || value == 1;
    if (compare(shown, comparison, bound) == verdict && honest_zero && honest_whole) break;
  }
  if (trim_zeros && text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::string format_observed(const Threshold& t, double value) {
  const std::string name = t.metric.text() + " = ";
  const Comparison cmp = t.comparison;
  switch (unit_of(t.metric.kind)) {
    case Unit::kMs:
      // Sub-millisecond latencies keep microsecond precision (the histogram's resolution).
      return name +
             group_thousands(
                 fixed_consistent(value, 1, "", std::abs(value) < 1 ? 3 : 1, cmp, t.bound, false)) +
             " ms";
    case Unit::kShare:
      return name + fixed_consistent(value, 100, "e-2", 2, cmp, t.bound, true) + "%";
    case Unit::kCount:
      return name + group_thousands(fixed_consistent(value, 1, "", 0, cmp, t.bound, true));
    case Unit::kPerSecond:
      return name + group_thousands(fixed_consistent(value, 1, "", 1, cmp, t.bound, false)) +
             " req/s";
    case Unit::kVerdict:
      // The value is how far apart the two counts were.
      return value == 0 ? name + "exact"
                        : name + "mismatch (" +
                              group_thousands(fixed_consistent(value, 1, "", 0, cmp, t.bound,
                                                               true)) +
                              " apart)";
  }
  return name;
}

}  // namespace

std::string MetricRef::text() const {
  auto with_scope = [this](std::string head) {
    return scope.empty() ? head : head + "(" + scope + ")";
  };
  switch (kind) {
    case Kind::kPercentile:
      return with_scope(fmt::format("p{}", percentile));
    case Kind::kMean:
      return with_scope("mean");
    case Kind::kMax:
      return with_scope("max");
    case Kind::kErrorRate:
      return with_scope("errors");
    case Kind::kNeverStarted:
      return with_scope("never_started");
    case Kind::kThroughput:
      return with_scope("rps");
    case Kind::kGoodput:
      return with_scope("goodput");
    case Kind::kReconcile:
      return "reconcile";
    case Kind::kDrops:
      return "drops";
    case Kind::kStreamPercentile:
      return with_scope(fmt::format("{}_p{}", figure, percentile));
    case Kind::kStreamRate:
      return with_scope(figure + "_per_s");
    case Kind::kStreamGoodput:
      return with_scope("stream_goodput");
    case Kind::kOutcomeRate:
    case Kind::kCount:
      break;
  }
  if (kind == Kind::kCount && outcome == kRequestsOutcome) return with_scope("requests");
  const std::string head = kind == Kind::kCount ? "count(" : "rate(";
  return head + outcome + (scope.empty() ? "" : ", " + scope) + ")";
}

std::string_view comparison_text(Comparison comparison) {
  switch (comparison) {
    case Comparison::kLess:
      return "<";
    case Comparison::kLessEqual:
      return "<=";
    case Comparison::kGreater:
      return ">";
    case Comparison::kGreaterEqual:
      return ">=";
    case Comparison::kEqual:
      return "==";
  }
  return "?";
}

Threshold parse_threshold(std::string_view expression) { return Parser(expression).parse(); }

std::vector<ThresholdResult> evaluate_thresholds(const std::vector<Threshold>& thresholds,
                                                 const MetricLookup& lookup) {
  std::vector<ThresholdResult> results;
  results.reserve(thresholds.size());
  for (const Threshold& t : thresholds) {
    ThresholdResult r;
    r.expression = t.expression;
    r.observed = lookup(t.metric);
    if (r.observed && std::isnan(*r.observed)) r.observed.reset();
    if (r.observed) {
      r.passed = compare(*r.observed, t.comparison, t.bound);
      r.observed_text = format_observed(t, *r.observed);
    } else {
      r.passed = false;
      r.observed_text = "no data";
    }
    results.push_back(std::move(r));
  }
  return results;
}

bool all_passed(const std::vector<ThresholdResult>& results) {
  return std::all_of(results.begin(), results.end(),
                     [](const ThresholdResult& r) { return r.passed; });
}

}  // namespace proofload::measure
