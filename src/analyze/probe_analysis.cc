// See probe_analysis.h.
#include "analyze/probe_analysis.h"

#include <algorithm>
#include <cmath>

#include "analyze/median.h"

namespace proofload::analyze {
namespace {

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

// A source's let-through in the counted seconds that have rows, by second: rows may come in any
// order (a merge of files), and two rows for one second add up (in the order recorded). As many
// as the source's rows, never one per second of the window.
std::vector<std::pair<int64_t, double>> let_through_rows(const ProbeSourceSeries& source,
                                                         CountedSeconds counted) {
  std::vector<std::pair<int64_t, double>> rows;
  for (const ProbeSecond& row : source.per_second) {
    if (row.second >= counted.first && row.second - counted.first < counted.count) {
      rows.emplace_back(row.second - counted.first, static_cast<double>(row.let_through));
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& row : rows) {
    if (out.empty() || out.back().first != row.first) out.emplace_back(row.first, 0.0);
    out.back().second += row.second;
  }
  return out;
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

// A pair on its own, from its r.
PairReading reading_of(std::optional<double> r) {
  if (!r || std::abs(*r) <= kIndependentR) return PairReading::kIndependent;
  if (*r <= kSharedR) return PairReading::kShare;
  if (*r < kOpposedR) return PairReading::kWeaklyOpposed;
  return PairReading::kMoveTogether;
}

// ---- one source ----

// Whether a source is in the verdict: it had no failure of its own and some 2xx or 429.
bool answered(const ProbeSourceSeries& source) {
  if (!source.failure.empty()) return false;
  for (const ProbeSecond& row : source.per_second) {
    if (row.let_through + row.limited > 0) return true;
  }
  return false;
}

// The sustained rate over the counted seconds, from the source's rows alone (a second with no
// row is 0): the same figures, summed in the same order, as over every second of the window.
std::optional<SustainedRate> sustained_of(const ProbeSourceSeries& source, CountedSeconds counted) {
  if (counted.count == 0) return std::nullopt;
  const std::vector<std::pair<int64_t, double>> rows = let_through_rows(source, counted);
  SustainedRate rate;
  rate.seconds = counted.count;
  const bool gaps = static_cast<int64_t>(rows.size()) < counted.count;
  rate.min = gaps ? 0 : rows.front().second;
  rate.max = gaps ? 0 : rows.front().second;
  for (const auto& row : rows) {
    rate.mean += row.second;
    rate.min = std::min(rate.min, row.second);
    rate.max = std::max(rate.max, row.second);
  }
  rate.mean /= static_cast<double>(counted.count);
  return rate;
}

ProbeSourceFigures figures_of(const ProbeSourceSeries& source, CountedSeconds counted,
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
  f.failed = !answered(source);
  if (f.failed) f.failure = source.failure.empty() ? std::string(kNoAnswerFailure) : source.failure;
  if (const std::optional<SustainedRate> rate = sustained_of(source, counted)) {
    f.sustained = rate;
    f.burst_from_totals =
        std::max(0.0, static_cast<double>(f.let_through) - rate->mean * duration_s);
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

// Not judged without a whole second after the settle time (expect_met stays nullopt).
void judge_expectation(const ProbeExpectation& e, ProbeSourceFigures& f) {
  if (!f.sustained) return;
  const ExpectationCheck c = check_expectation(e, f);
  f.expect_met = c.rate_met && c.burst_met;
  f.expect_check = ProbeExpectCheck{c.rate_met, c.burst_met, c.burst_slack};
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

// The verdict and its cause; the numbers its reason quotes go straight into the analysis.
struct Verdict {
  Verdict(std::string_view verdict_in, ProbeCause cause_in, std::vector<size_t> shared_in = {})
      : verdict(verdict_in), cause(cause_in), shared(std::move(shared_in)) {}
  std::string_view verdict;
  ProbeCause cause;
  std::vector<size_t> shared;  // with a shared allowance: the sources sharing it
};

// How many allowances the sustained means of `named` add up to: their sum / the expected rate.
std::optional<double> implied_by(const Evidence& e, const std::vector<size_t>& named) {
  if (!e.expect) return std::nullopt;
  double sum = 0;
  for (size_t k : named) sum += e.mean(k);
  return sum / e.expect->rate_per_s;
}

// The sustained means of the sources `named`, summed.
double sum_of(const Evidence& e, const std::vector<size_t>& named) {
  double sum = 0;
  for (size_t k : named) sum += e.mean(k);
  return sum;
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
std::optional<Verdict> shared_allowance(const Evidence& e, ProbeAnalysis& out) {
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
    out.variance_of_sum = variance_of_sum;
    out.sum_of_variances = sum_variance;
    return Verdict{kSharedAllowance, ProbeCause::kSharedGroup, group};
  }
  if (lowest) {
    const size_t i = lowest->first, j = lowest->second;
    out.shared_r = *e.r[i][j];
    out.other_opposed_pairs = opposed_pairs - 1;
    return Verdict{kSharedAllowance, ProbeCause::kSharedPair, {i, j}};
  }
  if (e.expect && n >= 2) {
    const double sum = e.analysis.sustained_sum;
    if (sum < (static_cast<double>(n) - 0.5) * e.expect->rate_per_s) {
      std::vector<size_t> all(n);
      for (size_t k = 0; k < n; ++k) all[k] = k;
      return Verdict{kSharedAllowance, ProbeCause::kSharedTooLittle, all};
    }
  }
  return std::nullopt;
}

// Separate allowances when every source met --expect (or, without one, lay near the sources'
// median), else unclear with the sources that missed.
Verdict separate_or_unclear(const Evidence& e, ProbeAnalysis& out) {
  const size_t n = e.answered.size();
  if (e.expect) {
    for (size_t k = 0; k < n; ++k) {
      const ProbeSourceFigures& f = e.source(k);
      if (f.expect_met == true) continue;
      const ProbeMissKind kind = !f.sustained ? ProbeMissKind::kNotJudged
                                 : !check_expectation(*e.expect, f).rate_met
                                     ? ProbeMissKind::kRate
                                     : ProbeMissKind::kBurst;
      out.misses.push_back({e.answered[k], kind});
    }
    if (out.misses.empty()) return {kSeparateAllowances, ProbeCause::kEachMetExpect};
  } else {
    std::vector<double> means;
    for (size_t k = 0; k < n; ++k) means.push_back(e.mean(k));
    const double median = median_of(means).value_or(0);
    out.median_sustained = median;
    for (size_t k = 0; k < n; ++k) {
      if (std::abs(e.mean(k) - median) <= e.tolerance * median) continue;
      out.misses.push_back({e.answered[k], ProbeMissKind::kFarFromMedian});
    }
    if (out.misses.empty()) return {kSeparateAllowances, ProbeCause::kNearMedian};
  }
  return {kUnclear, ProbeCause::kMisses};
}

Verdict judge(const Evidence& e, const CountedSeconds& counted, ProbeAnalysis& out) {
  if (e.answered.empty()) return {kUnclear, ProbeCause::kNoAnswer};
  if (e.answered.size() == 1) return {kUnclear, ProbeCause::kOneSource};
  if (counted.count == 0) return {kUnclear, ProbeCause::kNoCountedSecond};
  int64_t limited = 0;
  for (size_t k = 0; k < e.answered.size(); ++k) limited += e.source(k).limited;
  if (limited == 0) return {kUnclear, ProbeCause::kNo429};
  if (std::optional<Verdict> shared = shared_allowance(e, out)) return *shared;
  return separate_or_unclear(e, out);
}

// Each pair's meaning, in the light of the verdict: a pair inside the sharing group shares the
// group's allowances (a pair of a group of three or more says with whom, since its own r is only
// near −1/(k−1)); any other pair is read from its own r and sum.
void read_pairs(const Evidence& e, const std::vector<size_t>& shared,
                std::vector<ProbeCorrelation>& correlations) {
  const auto in_shared = [&](size_t k) {
    return std::find(shared.begin(), shared.end(), k) != shared.end();
  };
  size_t pair = 0;
  for (size_t i = 0; i < e.answered.size(); ++i) {
    for (size_t j = i + 1; j < e.answered.size(); ++j, ++pair) {
      ProbeCorrelation& c = correlations[pair];
      if (!in_shared(i) || !in_shared(j)) {
        c.reading = reading_of(e.r[i][j]);
        if (c.reading == PairReading::kShare) c.allowances = implied_by(e, {i, j});
      } else if (shared.size() == 2) {
        c.reading = PairReading::kShare;
        c.allowances = implied_by(e, shared);
      } else {
        c.reading = PairReading::kShareInGroup;
        c.allowances = implied_by(e, shared);
        for (size_t k : shared) {
          if (k != i && k != j) c.shared_with.push_back(e.address(k));
        }
      }
    }
  }
}

}  // namespace

int64_t probe_window_cells(std::span<const ProbeSourceSeries> sources, double duration_s,
                           double settle_s) {
  const int64_t seconds = counted_seconds(duration_s, settle_s).count;
  int64_t cells = 0;
  for (const ProbeSourceSeries& source : sources) cells += answered(source) ? seconds : 0;
  return cells;
}

ProbeAnalysis analyze_probe(std::span<const ProbeSourceSeries> sources, double duration_s,
                            double settle_s, const std::optional<ProbeExpectation>& expect,
                            double tolerance) {
  const CountedSeconds counted = counted_seconds(duration_s, settle_s);
  ProbeAnalysis a;
  for (const ProbeSourceSeries& source : sources) {
    a.sources.push_back(figures_of(source, counted, duration_s));
    if (expect && !a.sources.back().failed) judge_expectation(*expect, a.sources.back());
  }

  // Only the sources that answered are counted second by second (probe_window_cells).
  Evidence e{a, {}, {}, {}, {}, expect, expect ? expect->tolerance : tolerance};
  for (size_t i = 0; i < a.sources.size(); ++i) {
    if (a.sources[i].failed) continue;
    e.answered.push_back(i);
    e.counted.push_back(let_through_counted(sources[i], counted));
    e.spreads.push_back(spread_of(e.counted.back()));
    a.sustained_sum += e.mean(e.answered.size() - 1);
  }
  if (expect) a.expected_sum = static_cast<double>(e.answered.size()) * expect->rate_per_s;

  a.duration_s = duration_s;
  a.settle_s = settle_s;
  a.expect = expect;
  a.tolerance = e.tolerance;
  const size_t n = e.answered.size();
  for (size_t k = 0; k < n; ++k) {
    a.lowest_sustained = k == 0 ? e.mean(k) : std::min(a.lowest_sustained, e.mean(k));
    a.highest_sustained = k == 0 ? e.mean(k) : std::max(a.highest_sustained, e.mean(k));
  }
  e.r.assign(n, std::vector<std::optional<double>>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      e.r[i][j] = e.r[j][i] = pearson(e.counted[i], e.counted[j]);
      ProbeCorrelation c;
      c.a = e.address(i);
      c.b = e.address(j);
      c.r = e.r[i][j];
      a.correlations.push_back(std::move(c));
    }
  }
  const Verdict verdict = judge(e, counted, a);
  a.verdict = std::string(verdict.verdict);
  a.cause = verdict.cause;
  a.shared_by = addresses_of(e, verdict.shared);
  if (!verdict.shared.empty()) {
    a.allowances_implied = implied_by(e, verdict.shared);
    a.shared_sum = sum_of(e, verdict.shared);
  }
  read_pairs(e, verdict.shared, a.correlations);
  // Sources sharing one allowance each let through a random share of one burst: a source's
  // totals then say nothing about instances, and its first 429 is no lower bound of its own.
  if (verdict.verdict == kSharedAllowance) {
    for (ProbeSourceFigures& f : a.sources) f.burst_is_lower_bound = false;
  }
  return a;
}

}  // namespace proofload::analyze
