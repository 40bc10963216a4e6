// A per-stream service-level objective (`--goodput 'ttft<500ms,itl_p99<100ms'`): the bounds one
// stream must meet to count toward goodput, as LLM-serving benchmarks define it, judged on each
// stream when it ends. Streams that did not complete as configured never meet it.
//
// Terms (comma-separated, each METRIC OP BOUND):
//   ttft, ttfb, ttfe, duration   times from the request's intended start: to the first content
//                                event (first token), byte, event, and to the stream's end
//   itl_pNN, itl_max             that stream's inter-token gaps (between content events): its
//                                own nearest-rank percentile, or its largest; only < and <=
//   tpot                         time per output token after the first
//   tokens                       the stream's tokens
//   tokens_per_s                 its output rate after the first token (1 / tpot)
// Times take a unit ("500ms", "1.5s", "250us"); tokens and tokens_per_s plain numbers. A term
// without data (tpot, tokens_per_s of a stream of one token, ttft of a stream without content)
// is not met; a stream with no gap (one content event) meets every itl term.
//
// A percentile of one stream's gaps is judged without keeping them: "p99 < B" holds exactly when
// at least ceil(0.99 n) of its n gaps are under B, so a stream keeps one count per itl term
// (GapTally), whatever its length. Pure; thread-safe to read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workload/stream_tracker.h"

namespace proofload::workload {

struct StreamSloTerm {
  enum class Metric { kTtft, kTtfb, kTtfe, kDuration, kItlPercentile, kItlMax, kTpot, kTokens,
                      kTokensPerS };
  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual };
  Metric metric = Metric::kTtft;
  double percentile = 0;  // kItlPercentile: 99 for itl_p99
  Op op = Op::kLess;
  double bound = 0;  // ns for times, tokens, tokens per second
  std::string text;  // as written, trimmed
};

// One stream's inter-token gaps, counted against each itl term's bound as they come.
struct GapTally {
  int64_t gaps = 0;
  std::vector<int64_t> within;  // per term (in term order): gaps within its bound
};

class StreamSlo {
 public:
  // Empty text, an unknown metric (the known ones named), a bad operator or bound: UsageError
  // quoting the term.
  static StreamSlo parse(std::string_view text);

  const std::string& text() const { return text_; }
  const std::vector<StreamSloTerm>& terms() const { return terms_; }

  // A new stream's tally, sized to the terms.
  void reset(GapTally& tally) const;
  void add_gap(GapTally& tally, int64_t gap_ns) const;
  // Whether a completed stream with these figures (its end `duration_ns` from the intended
  // start) met every term.
  bool met(const StreamFigures& figures, int64_t duration_ns, const GapTally& tally) const;

 private:
  std::string text_;
  std::vector<StreamSloTerm> terms_;
};

}  // namespace proofload::workload
