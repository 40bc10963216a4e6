// See probe_analysis.h.
#include "analyze/probe_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "analyze/median.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {

using namespace words;  // numbers as the report writes them (words/numbers.h)

// Below this coefficient of variation a source's per-second counts are taken as constant: r over
// near-constant counts is the correlation of their jitter (±1 request), not of the allowance.
constexpr double kMinVariation = 0.03;
// Two sources sharing one allowance correlate near −1; r at or below this says shared.
constexpr double kSharedR = -0.5;
// r below this (and above kSharedR): weakly opposed. Also what makes a source a candidate of the
// group rule below.
constexpr double kOpposedR = -0.2;
// |r| at or below this: independent.
constexpr double kIndependentR = 0.2;
// k sources sharing one allowance correlate pairwise near −1/(k−1) only, so three average −0.5.
// What they do show: their per-second sum is far steadier than its parts (the allowance fixes
// the sum). Shared when var(sum) is below this share of the sum of their variances.
constexpr double kSharedSumVarianceShare = 0.25;
// The first 429 came before this share of the totals' burst was let through: the burst before
// it is only a lower bound (an allowance split over instances).
constexpr double kLowerBoundShare = 0.8;
// Longer than this (about 116 days) is no probe but a damaged record: the counted window is cut
// there rather than allocated.
constexpr double kMaxProbeSeconds = 1e7;


// ---- the counted seconds and their statistics ----

int64_t whole_seconds(double seconds) {
  if (!(seconds > 0)) return 0;  // also NaN
  return static_cast<int64_t>(std::min(seconds, kMaxProbeSeconds));
}

// The whole seconds the sustained rate and the correlations count: from the settle time to the
// probe's last whole second.
struct CountedSeconds {
  int64_t first = 0;
  int64_t count = 0;
};

CountedSeconds counted_seconds(double duration_s, double settle_s) {
  const int64_t first = whole_seconds(std::ceil(settle_s));
  const int64_t end = whole_seconds(std::floor(duration_s));
  return {first, std::max<int64_t>(0, end - first)};
}

// A source's let-through per counted second, matched by `second`: rows may come in any order (a
// merge of files), a second with no row counts 0, and two rows for one second add up.
std::vector<double> let_through_counted(const ProbeSourceSeries& source, CountedSeconds counted) {
  std::vector<double> out(static_cast<size_t>(counted.count), 0.0);
  for (const ProbeSecond& row : source.per_second) {
    if (row.second >= counted.first && row.second - counted.first < counted.count) {
      out[static_cast<size_t>(row.second - counted.first)] += static_cast<double>(row.let_through);
    }
  }
  return out;
}

struct Spread {
  double mean = 0;
  double variance = 0;  // population variance
};

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  for (double v : values) s.mean += v;
  s.mean /= static_cast<double>(values.size());
  for (double v : values) s.variance += (v - s.mean) * (v - s.mean);
  s.variance /= static_cast<double>(values.size());
  return s;
}

// Enough movement (coefficient of variation) for r to mean something.
bool varies(const Spread& s) {
  return s.mean > 0 && std::sqrt(s.variance) >= kMinVariation * s.mean;
}

std::optional<double> pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const Spread sa = spread_of(a), sb = spread_of(b);
  if (a.empty() || sa.variance == 0 || sb.variance == 0) return std::nullopt;
  double covariance = 0;
  for (size_t i = 0; i < a.size(); ++i) covariance += (a[i] - sa.mean) * (b[i] - sb.mean);
  covariance /= static_cast<double>(a.size());
  return std::clamp(covariance / std::sqrt(sa.variance * sb.variance), -1.0, 1.0);
}

// "one allowance", "two allowances": as many as `implied` rounds to, at least one; "an
// allowance" when how many is not known (no --expect to divide by).
std::string allowances_words(std::optional<double> implied) {
  if (!implied) return "an allowance";
  static constexpr const char* kNames[] = {"one", "two",   "three", "four", "five",
                                           "six", "seven", "eight", "nine", "ten"};
  const double n = std::max(1.0, std::round(*implied));
  const std::string count = n <= 10 ? kNames[static_cast<size_t>(n) - 1] : count_text(n);
  return count + (n == 1 ? " allowance" : " allowances");
}

// A pair on its own: `implied` is how many allowances their sum makes under --expect.
std::string meaning_of(std::optional<double> r, std::optional<double> implied) {
  if (!r || std::abs(*r) <= kIndependentR) return "independent: each has its own allowance";
  if (*r <= kSharedR) {
    return "share " + allowances_words(implied) + ": what one gains, the other loses";
  }
  if (*r < kOpposedR) return "weakly opposed: perhaps a shared allowance, perhaps noise";
  return "move together: something common to both (the server), not the allowance";
}

// ---- one source ----

ProbeSourceFigures figures_of(const ProbeSourceSeries& source, const std::vector<double>& counted,
                              double duration_s) {
  ProbeSourceFigures f;
  f.address = source.address;
  f.headers = source.headers;
  for (const ProbeSecond& row : source.per_second) {
    f.let_through += row.let_through;
    f.limited += row.limited;
    f.other += row.other;
  }
  f.total = f.let_through + f.limited + f.other;
  f.burst_before_first_429 = source.let_through_before_first_429;
  f.failed = !source.failure.empty() || f.let_through + f.limited == 0;
  if (f.failed) f.failure = source.failure.empty() ? std::string(kNoAnswerFailure) : source.failure;
  if (!counted.empty()) {
    SustainedRate rate;
    rate.seconds = static_cast<int64_t>(counted.size());
    rate.mean = spread_of(counted).mean;
    rate.min = *std::min_element(counted.begin(), counted.end());
    rate.max = *std::max_element(counted.begin(), counted.end());
    f.sustained = rate;
    f.burst_from_totals =
        std::max(0.0, static_cast<double>(f.let_through) - rate.mean * duration_s);
    f.burst_is_lower_bound =
        f.burst_before_first_429 &&
        static_cast<double>(*f.burst_before_first_429) < kLowerBoundShare * *f.burst_from_totals;
  }
  return f;
}

struct ExpectationCheck {
  bool rate_met = false;
  bool burst_met = true;  // true without a burst to judge
  double burst_slack = 0;
};

ExpectationCheck check_expectation(const ProbeExpectation& e, const ProbeSourceFigures& f) {
  ExpectationCheck c;
  c.rate_met = std::abs(f.sustained->mean - e.rate_per_s) <= e.tolerance * e.rate_per_s;
  if (e.burst) {
    // A second's worth of the rate either way: when the burst ends is known to a second at best.
    c.burst_slack = e.tolerance * static_cast<double>(*e.burst) + e.rate_per_s;
    c.burst_met =
        std::abs(f.burst_from_totals.value_or(0) - static_cast<double>(*e.burst)) <= c.burst_slack;
  }
  return c;
}

void judge_expectation(const ProbeExpectation& e, ProbeSourceFigures& f) {
  if (!f.sustained) {
    f.expect_reason = "not judged: no whole second after the settle time";
    return;
  }
  const ExpectationCheck c = check_expectation(e, f);
  f.expect_met = c.rate_met && c.burst_met;
  f.expect_reason = fmt::format("sustained {}, {}within {} of {}", rate_text(f.sustained->mean),
                                c.rate_met ? "" : "not ", given_percent_text(e.tolerance),
                                given_rate_text(e.rate_per_s));
  if (e.burst) {
    f.expect_reason += fmt::format("; burst from the totals {}, {}within {} of {}",
                                   count_text(std::round(f.burst_from_totals.value_or(0))),
                                   c.burst_met ? "" : "not ", count_text(std::round(c.burst_slack)),
                                   count_text(static_cast<double>(*e.burst)));
  }
}

// ---- the verdict ----

// What the verdict is judged from: the sources that answered, with their counted seconds.
struct Evidence {
  const ProbeAnalysis& analysis;
  std::vector<size_t> answered;                       // indices into analysis.sources
  std::vector<std::vector<double>> counted;           // per answered source
  std::vector<Spread> spreads;                        // per answered source
  std::vector<std::vector<std::optional<double>>> r;  // answered x answered
  const std::optional<ProbeExpectation>& expect;
  double tolerance = 0.10;

  const ProbeSourceFigures& source(size_t k) const { return analysis.sources[answered[k]]; }
  const std::string& address(size_t k) const { return source(k).address; }
  double mean(size_t k) const { return source(k).sustained ? source(k).sustained->mean : 0; }
};

struct Verdict {
  Verdict(std::string_view verdict_in, std::string reason_in, std::vector<size_t> shared_in = {})
      : verdict(verdict_in), reason(std::move(reason_in)), shared(std::move(shared_in)) {}
  std::string_view verdict;
  std::string reason;
  std::vector<size_t> shared;  // with a shared allowance: the sources sharing it
};

// How many allowances the sustained means of `named` add up to: their sum / the expected rate.
std::optional<double> implied_by(const Evidence& e, const std::vector<size_t>& named) {
  if (!e.expect) return std::nullopt;
  double sum = 0;
  for (size_t k : named) sum += e.mean(k);
  return sum / e.expect->rate_per_s;
}

// "together they got 199/s, against 2 × 100/s expected: 1.99 allowances of 100/s" for the
// sources `named`.
std::string together_words(const Evidence& e, const std::vector<size_t>& named) {
  double sum = 0;
  for (size_t k : named) sum += e.mean(k);
  std::string out = "together they got " + rate_text(sum);
  if (const std::optional<double> implied = implied_by(e, named)) {
    out +=
        fmt::format(", against {} × {} expected: {} allowance{} of {}", named.size(),
                    given_rate_text(e.expect->rate_per_s), fixed(*implied, 2),
                    fixed(*implied, 2) == "1.00" ? "" : "s", given_rate_text(e.expect->rate_per_s));
  }
  return out;
}

// r of source `k`'s counts against the per-second sum of the others in `group`: near −1 when k
// shares the group's allowance (the sum fixes what k gets), near 0 when k only happened to be
// weakly opposed to one of them.
std::optional<double> r_against_rest(const Evidence& e, const std::vector<size_t>& group,
                                     size_t k) {
  std::vector<double> rest(e.counted[k].size(), 0.0);
  for (size_t other : group) {
    if (other == k) continue;
    for (size_t s = 0; s < rest.size(); ++s) rest[s] += e.counted[other][s];
  }
  return pearson(e.counted[k], rest);
}

std::vector<std::string> addresses_of(const Evidence& e, const std::vector<size_t>& named) {
  std::vector<std::string> out;
  for (size_t k : named) out.push_back(e.address(k));
  return out;
}

// Sharing, if the counts show it: a pair opposed at r <= −0.5, a group whose per-second sum is
// far steadier than its parts, or (with an expectation) too little in all. Both guards against
// jitter (kMinVariation) apply to the first two.
std::optional<Verdict> shared_allowance(const Evidence& e) {
  const size_t n = e.answered.size();
  std::vector<bool> moving(n);
  for (size_t k = 0; k < n; ++k) moving[k] = varies(e.spreads[k]);

  // The most opposed pair, and how many pairs are opposed at all.
  std::optional<std::pair<size_t, size_t>> lowest;
  int64_t opposed_pairs = 0;
  std::vector<size_t> group;  // moving sources opposed (r < −0.2) to some other moving one
  for (size_t i = 0; i < n; ++i) {
    bool in_group = false;
    for (size_t j = 0; j < n; ++j) {
      if (i == j || !moving[i] || !moving[j] || !e.r[i][j]) continue;
      in_group |= *e.r[i][j] < kOpposedR;
      if (j < i || *e.r[i][j] > kSharedR) continue;
      ++opposed_pairs;
      if (!lowest || *e.r[i][j] < *e.r[lowest->first][lowest->second]) lowest = {i, j};
    }
    if (in_group) group.push_back(i);
  }
  // A source weakly opposed to a member by chance is not of the group: drop, one at a time, the
  // member least opposed to the rest, while it is not opposed at r <= −0.5.
  while (group.size() >= 3) {
    size_t least = 0;
    double least_r = -1;
    for (size_t g = 0; g < group.size(); ++g) {
      const double r = r_against_rest(e, group, group[g]).value_or(0);
      if (g == 0 || r > least_r) {
        least = g;
        least_r = r;
      }
    }
    if (least_r <= kSharedR) break;
    group.erase(group.begin() + static_cast<std::ptrdiff_t>(least));
  }

  double sum_variance = 0, variance_of_sum = 0;
  if (group.size() >= 2) {
    std::vector<double> sum(e.counted[group[0]].size(), 0.0);
    for (size_t k : group) {
      sum_variance += e.spreads[k].variance;
      for (size_t s = 0; s < sum.size(); ++s) sum[s] += e.counted[k][s];
    }
    variance_of_sum = spread_of(sum).variance;
  }
  const bool group_steady =
      group.size() >= 2 && variance_of_sum < kSharedSumVarianceShare * sum_variance;

  // Three or more in the group: the group names them all, where a pair would name two.
  if (group_steady && (group.size() >= 3 || !lowest)) {
    return Verdict{
        kSharedAllowance,
        fmt::format("{} share {}: the sum of their per-second counts "
                    "varies far less than they do (variance {} against {} summed) "
                    "and {}",
                    list_text(addresses_of(e, group)), allowances_words(implied_by(e, group)),
                    fixed(variance_of_sum, 0), fixed(sum_variance, 0), together_words(e, group)),
        group};
  }
  if (lowest) {
    const auto [i, j] = *lowest;
    std::string reason = fmt::format(
        "{} and {} share {}: their per-second counts correlate at r = {} and {}", e.address(i),
        e.address(j), allowances_words(implied_by(e, {i, j})), correlation_text(*e.r[i][j]),
        together_words(e, {i, j}));
    if (opposed_pairs > 1) {
      reason += fmt::format(" ({} other pair{} at r ≤ −0.5 too)", opposed_pairs - 1,
                            opposed_pairs > 2 ? "s" : "");
    }
    return Verdict{kSharedAllowance, reason, {i, j}};
  }
  if (e.expect && n >= 2) {
    const double sum = e.analysis.sustained_sum;
    if (sum < (static_cast<double>(n) - 0.5) * e.expect->rate_per_s) {
      std::vector<size_t> all(n);
      for (size_t k = 0; k < n; ++k) all[k] = k;
      return Verdict{kSharedAllowance,
                     fmt::format("{} share {}: {}, though no pair's per-second "
                                 "counts show it (none at r ≤ −0.5)",
                                 list_text(addresses_of(e, all)),
                                 allowances_words(implied_by(e, all)), together_words(e, all)),
                     all};
    }
  }
  return std::nullopt;
}

// "(r from −0.12 to 0.08)", or why there is no r.
std::string correlations_words(const ProbeAnalysis& a) {
  std::optional<double> low, high;
  for (const ProbeCorrelation& c : a.correlations) {
    if (!c.r) continue;
    low = low ? std::min(*low, *c.r) : *c.r;
    high = high ? std::max(*high, *c.r) : *c.r;
  }
  if (!low) return "(their per-second counts did not vary: no r to compute)";
  if (*low == *high) return fmt::format("(r = {})", correlation_text(*low));
  return fmt::format("(r from {} to {})", correlation_text(*low), correlation_text(*high));
}

Verdict separate_or_unclear(const Evidence& e, const std::string& sources_words) {
  const size_t n = e.answered.size();
  double low = e.mean(0), high = e.mean(0);
  for (size_t k = 0; k < n; ++k) {
    low = std::min(low, e.mean(k));
    high = std::max(high, e.mean(k));
  }
  const std::string no_opposed_pair = "no pair shows sharing " + correlations_words(e.analysis);
  std::vector<std::string> misses;
  if (e.expect) {
    for (size_t k = 0; k < n; ++k) {
      const ProbeSourceFigures& f = e.source(k);
      if (f.expect_met == true) continue;
      if (!f.sustained) {
        misses.push_back(f.address + " was not judged against --expect");
      } else if (!check_expectation(*e.expect, f).rate_met) {
        misses.push_back(fmt::format("{} sustained {} against {} expected", f.address,
                                     rate_text(f.sustained->mean),
                                     given_rate_text(e.expect->rate_per_s)));
      } else {
        misses.push_back(fmt::format("{}'s burst from the totals was {} against {} expected",
                                     f.address,
                                     count_text(std::round(f.burst_from_totals.value_or(0))),
                                     count_text(static_cast<double>(e.expect->burst.value_or(0)))));
      }
    }
    if (misses.empty()) {
      return {kSeparateAllowances,
              fmt::format("each of {} met {} on its own (sustained {} to {}, together {}) and {}",
                          sources_words, e.expect->text, rate_text(low), rate_text(high),
                          rate_text(e.analysis.sustained_sum), no_opposed_pair)};
    }
  } else {
    std::vector<double> means;
    for (size_t k = 0; k < n; ++k) means.push_back(e.mean(k));
    const double median = median_of(means).value_or(0);
    for (size_t k = 0; k < n; ++k) {
      if (std::abs(e.mean(k) - median) <= e.tolerance * median) continue;
      misses.push_back(fmt::format(
          "{} sustained {} against the sources' median {} (more than {} "
          "apart)",
          e.address(k), rate_text(e.mean(k)), rate_text(median), given_percent_text(e.tolerance)));
    }
    if (misses.empty()) {
      return {kSeparateAllowances,
              fmt::format("{} each sustained {} to {}, within {} of their median {}, and {}",
                          sources_words, rate_text(low), rate_text(high),
                          given_percent_text(e.tolerance), rate_text(median), no_opposed_pair)};
    }
  }
  std::string reason;
  for (const std::string& miss : misses) reason += (reason.empty() ? "" : "; ") + miss;
  return {kUnclear, reason + ", with no sign of sharing"};
}

Verdict judge(const Evidence& e, const CountedSeconds& counted, double duration_s,
              double settle_s) {
  const ProbeAnalysis& a = e.analysis;
  std::vector<std::string> failed;
  for (const ProbeSourceFigures& f : a.sources) {
    if (f.failed) failed.push_back(f.address);
  }
  const std::string failed_words =
      failed.empty() ? "" : fmt::format(" ({} failed)", list_text(failed));
  if (e.answered.empty()) {
    return {kUnclear, "no source got an answer" + failed_words + ": nothing to compare"};
  }
  if (e.answered.size() == 1) {
    return {kUnclear, failed.empty()
                          ? std::string("one source: nothing to compare")
                          : "one source answered" + failed_words + ": nothing to compare"};
  }
  if (counted.count == 0) {
    return {kUnclear, fmt::format("no whole second after the settle time ({} s) in the {} s "
                                  "probe: nothing to compare",
                                  given_text(settle_s), given_text(duration_s))};
  }
  int64_t limited = 0;
  for (size_t k = 0; k < e.answered.size(); ++k) limited += e.source(k).limited;
  if (limited == 0) {
    return {kUnclear,
            fmt::format("no 429 in {} s: no limit was seen at this load", given_text(duration_s))};
  }
  if (std::optional<Verdict> shared = shared_allowance(e)) return *shared;
  const std::string sources_words =
      fmt::format("the {} sources{}", e.answered.size(), failed.empty() ? "" : " that answered");
  return separate_or_unclear(e, sources_words);
}

// Each pair's meaning, in the light of the verdict: a pair inside the sharing group shares the
// group's allowances (a pair of a group of three or more says with whom, since its own r is only
// near −1/(k−1)); any other pair is read from its own r and sum.
void name_pairs(const Evidence& e, const std::vector<size_t>& shared,
                std::vector<ProbeCorrelation>& correlations) {
  const auto in_shared = [&](size_t k) {
    return std::find(shared.begin(), shared.end(), k) != shared.end();
  };
  const std::string allowances = allowances_words(implied_by(e, shared));
  size_t pair = 0;
  for (size_t i = 0; i < e.answered.size(); ++i) {
    for (size_t j = i + 1; j < e.answered.size(); ++j, ++pair) {
      std::string& meaning = correlations[pair].meaning;
      if (!in_shared(i) || !in_shared(j)) {
        meaning = meaning_of(e.r[i][j], implied_by(e, {i, j}));
      } else if (shared.size() == 2) {
        meaning = "share " + allowances + ": what one gains, the other loses";
      } else {
        std::vector<std::string> others;
        for (size_t k : shared) {
          if (k != i && k != j) others.push_back(e.address(k));
        }
        meaning = fmt::format("share {} with {}: the group's per-second sum is steady", allowances,
                              list_text(others));
      }
    }
  }
}

}  // namespace

std::string correlation_text(double r) {
  std::string text = fmt::format("{:.2f}", r);
  if (text.starts_with("-")) {
    text = std::strtod(text.c_str(), nullptr) == 0 ? text.substr(1) : "−" + text.substr(1);
  }
  return text;
}

ProbeAnalysis analyze_probe(std::span<const ProbeSourceSeries> sources, double duration_s,
                            double settle_s, const std::optional<ProbeExpectation>& expect,
                            double tolerance) {
  const CountedSeconds counted = counted_seconds(duration_s, settle_s);
  ProbeAnalysis a;
  std::vector<std::vector<double>> counts;
  for (const ProbeSourceSeries& source : sources) {
    counts.push_back(let_through_counted(source, counted));
    a.sources.push_back(figures_of(source, counts.back(), duration_s));
    if (expect && !a.sources.back().failed) judge_expectation(*expect, a.sources.back());
  }

  Evidence e{a, {}, {}, {}, {}, expect, expect ? expect->tolerance : tolerance};
  for (size_t i = 0; i < a.sources.size(); ++i) {
    if (a.sources[i].failed) continue;
    e.answered.push_back(i);
    e.counted.push_back(counts[i]);
    e.spreads.push_back(spread_of(counts[i]));
    a.sustained_sum += e.mean(e.answered.size() - 1);
  }
  if (expect) a.expected_sum = static_cast<double>(e.answered.size()) * expect->rate_per_s;

  const size_t n = e.answered.size();
  e.r.assign(n, std::vector<std::optional<double>>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      e.r[i][j] = e.r[j][i] = pearson(e.counted[i], e.counted[j]);
      a.correlations.push_back({e.address(i), e.address(j), e.r[i][j], ""});
    }
  }
  const Verdict verdict = judge(e, counted, duration_s, settle_s);
  a.verdict = std::string(verdict.verdict);
  a.reason = verdict.reason;
  a.shared_by = addresses_of(e, verdict.shared);
  if (!verdict.shared.empty()) a.allowances_implied = implied_by(e, verdict.shared);
  name_pairs(e, verdict.shared, a.correlations);
  // Sources sharing one allowance each let through a random share of one burst: a source's
  // totals then say nothing about instances, and its first 429 is no lower bound of its own.
  if (verdict.verdict == kSharedAllowance) {
    for (ProbeSourceFigures& f : a.sources) f.burst_is_lower_bound = false;
  }
  return a;
}

}  // namespace proofload::analyze
