// Tests for the per-name totals: merging the workers' copies must lose nothing, whatever order
// the workers met the names in.
#include "measure/named_stats.h"

#include <gtest/gtest.h>

namespace proofload::measure {
namespace {

TEST(NamedTotals, MergeAddsEveryCountAndHistogramAcrossDifferentSizes) {
  NamedTotals a;
  a.resize(1, 0);
  a.requests[0].latency_us.record(100);
  ++a.requests[0].outcomes[static_cast<int>(Outcome::kSuccess)];

  NamedTotals b;
  b.resize(2, 1);
  b.requests[0].latency_us.record(300);
  ++b.requests[0].outcomes[static_cast<int>(Outcome::kCheckFailed)];
  ++b.requests[1].outcomes[static_cast<int>(Outcome::kTimeout)];
  b.flows[0].started = 3;
  b.flows[0].succeeded = 1;
  b.flows[0].failed = 1;
  b.flows[0].abandoned = 1;
  b.flows[0].duration_us.record(5000);

  a.merge(b);
  ASSERT_EQ(a.requests.size(), 2u);
  ASSERT_EQ(a.flows.size(), 1u);
  EXPECT_EQ(a.requests[0].ended(), 2);
  EXPECT_EQ(a.requests[0].count(Outcome::kCheckFailed), 1);
  EXPECT_EQ(a.requests[0].latency_us.total_count(), 2);
  EXPECT_EQ(a.requests[1].count(Outcome::kTimeout), 1);
  EXPECT_EQ(a.flows[0].started, 3);
  EXPECT_EQ(a.flows[0].succeeded + a.flows[0].failed + a.flows[0].abandoned, 3);
  EXPECT_EQ(a.flows[0].duration_us.total_count(), 1);
}

}  // namespace
}  // namespace proofload::measure
