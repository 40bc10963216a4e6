// See stream_slo.h.
#include "workload/stream_slo.h"

#include <cmath>
#include <optional>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"

namespace proofload::workload {
namespace {

using Metric = StreamSloTerm::Metric;
using Op = StreamSloTerm::Op;

constexpr std::string_view kKnownMetrics =
    "ttft, ttfb, ttfe, duration, itl_pNN, itl_max, tpot, tokens, tokens_per_s";

bool is_time(Metric m) { return m != Metric::kTokens && m != Metric::kTokensPerS; }
bool is_gap(Metric m) { return m == Metric::kItlPercentile || m == Metric::kItlMax; }

StreamSloTerm parse_term(std::string_view written) {
  StreamSloTerm term;
  term.text = std::string(trim(written));
  const auto fail = [&](const std::string& why) -> UsageError {
    return UsageError("--goodput term '" + term.text + "': " + why);
  };
  const size_t at = term.text.find_first_of("<>=");
  if (at == std::string::npos || at == 0) throw fail("expected METRIC < BOUND (ttft<500ms)");
  const std::string name = ascii_lowercase(trim(std::string_view(term.text).substr(0, at)));
  std::string_view rest = std::string_view(term.text).substr(at);
  if (rest.starts_with("<=")) {
    term.op = Op::kLessEqual;
  } else if (rest.starts_with(">=")) {
    term.op = Op::kGreaterEqual;
  } else if (rest.starts_with('<')) {
    term.op = Op::kLess;
  } else if (rest.starts_with('>')) {
    term.op = Op::kGreater;
  } else {
    throw fail("the operator is one of <, <=, >, >=");
  }
  rest.remove_prefix(term.op == Op::kLess || term.op == Op::kGreater ? 1 : 2);
  const std::string_view bound = trim(rest);
  if (name == "ttft") term.metric = Metric::kTtft;
  else if (name == "ttfb") term.metric = Metric::kTtfb;
  else if (name == "ttfe") term.metric = Metric::kTtfe;
  else if (name == "duration") term.metric = Metric::kDuration;
  else if (name == "itl_max") term.metric = Metric::kItlMax;
  else if (name == "tpot") term.metric = Metric::kTpot;
  else if (name == "tokens") term.metric = Metric::kTokens;
  else if (name == "tokens_per_s") term.metric = Metric::kTokensPerS;
  else if (name.starts_with("itl_p")) {
    term.metric = Metric::kItlPercentile;
    char* end = nullptr;
    const std::string digits = name.substr(5);
    term.percentile = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size() || !(term.percentile > 0) ||
        !(term.percentile < 100)) {
      throw fail("an itl percentile is itl_pNN with NN between 0 and 100 (itl_p99)");
    }
  } else {
    throw fail("unknown metric '" + name + "' (one of " + std::string(kKnownMetrics) + ")");
  }
  if (is_gap(term.metric) && term.op != Op::kLess && term.op != Op::kLessEqual) {
    throw fail("an itl term is an upper bound (< or <=)");
  }
  if (is_time(term.metric)) {
    if (bound.empty() || (bound.back() >= '0' && bound.back() <= '9')) {
      throw fail("a time bound needs a unit (500ms, 1.5s)");
    }
    try {
      term.bound = static_cast<double>(parse_duration_ns(bound));
    } catch (const UsageError& e) {
      throw fail(std::string("a time bound needs a unit (500ms, 1.5s): ") + e.what());
    }
  } else {
    char* end = nullptr;
    const std::string number(bound);
    term.bound = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(term.bound) ||
        term.bound < 0) {
      throw fail("the bound is a plain number (tokens_per_s>=20)");
    }
  }
  return term;
}

bool holds(double value, Op op, double bound) {
  switch (op) {
    case Op::kLess: return value < bound;
    case Op::kLessEqual: return value <= bound;
    case Op::kGreater: return value > bound;
    case Op::kGreaterEqual: return value >= bound;
  }
  return false;
}

std::optional<double> as_double(const std::optional<int64_t>& ns) {
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns);
}

}  // namespace

StreamSlo StreamSlo::parse(std::string_view text) {
  StreamSlo slo;
  slo.text_ = std::string(trim(text));
  if (slo.text_.empty()) throw UsageError("--goodput: expected terms like 'ttft<500ms'");
  std::string_view rest = slo.text_;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    if (trim(part).empty()) throw UsageError("--goodput '" + slo.text_ + "': an empty term");
    slo.terms_.push_back(parse_term(part));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return slo;
}

void StreamSlo::reset(GapTally& tally) const {
  tally.gaps = 0;
  tally.within.assign(terms_.size(), 0);
}

void StreamSlo::add_gap(GapTally& tally, int64_t gap_ns) const {
  ++tally.gaps;
  for (size_t i = 0; i < terms_.size(); ++i) {
    const StreamSloTerm& t = terms_[i];
    if (is_gap(t.metric) && holds(static_cast<double>(gap_ns), t.op, t.bound)) ++tally.within[i];
  }
}

bool StreamSlo::met(const StreamFigures& f, int64_t duration_ns, const GapTally& tally) const {
  const std::optional<double> tpot = f.tpot_ns();
  for (size_t i = 0; i < terms_.size(); ++i) {
    const StreamSloTerm& t = terms_[i];
    std::optional<double> value;
    switch (t.metric) {
      case Metric::kTtft: value = as_double(f.first_content_ns); break;
      case Metric::kTtfb: value = as_double(f.first_byte_ns); break;
      case Metric::kTtfe: value = as_double(f.first_event_ns); break;
      case Metric::kDuration: value = static_cast<double>(duration_ns); break;
      case Metric::kTpot: value = tpot; break;
      case Metric::kTokens: value = static_cast<double>(f.tokens); break;
      case Metric::kTokensPerS:
        if (tpot && *tpot > 0) value = 1e9 / *tpot;
        break;
      case Metric::kItlMax:
        if (tally.within[i] != tally.gaps) return false;
        continue;
      case Metric::kItlPercentile: {
        // Nearest rank: the value at rank ceil(p/100 n) is within the bound exactly when at
        // least that many gaps are.
        const auto rank = static_cast<int64_t>(
            std::ceil(t.percentile / 100.0 * static_cast<double>(tally.gaps) - 1e-9));
        if (tally.within[i] < rank) return false;
        continue;
      }
    }
    if (!value || !holds(*value, t.op, t.bound)) return false;
  }
  return true;
}

}  // namespace proofload::workload
