// The reconcile's verdict and sentence: exact to the unit, drops and their share, a server that
// counted more, a counter that could not be read after the run.
#include "analyze/reconcile.h"

#include <gtest/gtest.h>

#include "words/reconcile_words.h"

namespace proofload::analyze {
namespace {

TEST(Reconcile, ExactWhenTheServerCountedEverySuccess) {
  const Reconciliation r =
      reconcile("prom:http://127.0.0.1:1/metrics#rows", 1000, 91620, "", 90620);
  EXPECT_EQ(r.verdict, kReconcileExact);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.server_delta(), 90620);
  EXPECT_EQ(r.difference(), 0);
  EXPECT_EQ(r.drop_share(), 0);
  EXPECT_EQ(words::reconcile_sentence(r),
            "the server recorded 90,620 + 0 drops = 90,620 successful requests: exact");
}

TEST(Reconcile, DropsAreSuccessesTheServerDidNotRecord) {
  const Reconciliation r = reconcile("count-rows", 0, 3'370'000, "", 3'803'859);
  EXPECT_EQ(r.verdict, kReconcileMismatch);
  EXPECT_EQ(r.difference(), 433'859);
  ASSERT_TRUE(r.drop_share());
  EXPECT_NEAR(*r.drop_share(), 433'859.0 / 3'803'859.0, 1e-12);
  EXPECT_EQ(words::reconcile_sentence(r),
            "the server recorded 3,370,000 of 3,803,859 successful requests: 433,859 drops "
            "(11.4%), a mismatch");
}

TEST(Reconcile, OneDropInAMillionStillShowsItsShare) {
  const Reconciliation r = reconcile("c", 0, 999'999, "", 1'000'000);
  EXPECT_EQ(words::reconcile_sentence(r),
            "the server recorded 999,999 of 1,000,000 successful requests: 1 drop (0.0001%), a "
            "mismatch");
}

TEST(Reconcile, AServerThatCountedMoreIsAMismatchWithANegativeDifference) {
  const Reconciliation r = reconcile("c", 10, 1060, "", 1000);
  EXPECT_EQ(r.verdict, kReconcileMismatch);
  EXPECT_EQ(r.difference(), -50);
  EXPECT_EQ(words::reconcile_sentence(r),
            "the server recorded 1,050, 50 more than the client's 1,000 successful requests, a "
            "mismatch");
}

TEST(Reconcile, UnavailableWhenTheCounterCouldNotBeReadAfter) {
  const Reconciliation r =
      reconcile("c", 5, std::nullopt, "the command failed: exit 1: no database", 40);
  EXPECT_EQ(r.verdict, kReconcileUnavailable);
  EXPECT_FALSE(r.server_delta());
  EXPECT_FALSE(r.difference());
  EXPECT_FALSE(r.drop_share());
  EXPECT_EQ(words::reconcile_sentence(r),
            "not reconciled: the server's counter could not be read (the command failed: exit "
            "1: no database)");
}

TEST(Reconcile, NoSuccessesHaveNoDropShare) {
  const Reconciliation r = reconcile("c", 0, 0, "", 0);
  EXPECT_TRUE(r.exact());
  EXPECT_FALSE(r.drop_share());
}

}  // namespace
}  // namespace proofload::analyze
