// The registry of experiment kinds: every kind `report` renders and `merge` joins is in it once,
// and the lists commands say (report's error, merge's, k8s job's --experiment) come from it.
#include "registry/experiment_kinds.h"

#include <gtest/gtest.h>

#include "report/run_result.h"
#include "result/compare_result.h"
#include "result/ladder_result.h"
#include "result/probe_result.h"
#include "result/run_record.h"
#include "result/sizing_result.h"
#include "result/soak_result.h"

namespace proofload::registry {
namespace {

TEST(ExperimentKinds, EachSchemaFindsItsKindAndReportNamesAllSix) {
  for (const char* schema : {report::kResultSchema, result::kLadderSchema, result::kSoakSchema,
                             result::kProbeSchema, result::kCompareSchema, result::kSizingSchema}) {
    const ExperimentKind* kind = kind_with_schema(schema);
    ASSERT_NE(kind, nullptr) << schema;
    EXPECT_NE(kind->rerender, nullptr) << schema;
  }
  EXPECT_EQ(kind_with_schema("proofload.nothing/v1"), nullptr);
  // The older schemas still read: a run's v1 (start_time) and a soak's v1 (noise_floor).
  EXPECT_EQ(kind_with_schema(result::kRunSchemaV1), kind_with_schema(report::kResultSchema));
  EXPECT_EQ(kind_with_schema(result::kSoakSchemaV1), kind_with_schema(result::kSoakSchema));
  EXPECT_EQ(kind_names(any_kind, true),
            std::string(report::kResultSchema) + ", " + result::kLadderSchema + ", " +
                result::kSoakSchema + ", " + result::kProbeSchema + ", " + result::kCompareSchema +
                " or " + result::kSizingSchema);
}

TEST(ExperimentKinds, TheSegmentedKindsAreTheOnesThatMerge) {
  EXPECT_EQ(kind_names(mergeable), "run, ladder, soak or probe");
  EXPECT_EQ(kind_names(takes_segment), "run, ladder, soak or probe");
  EXPECT_EQ(kind_with_schema(result::kSizingSchema)->merge, nullptr);
  EXPECT_EQ(kind_with_schema(result::kCompareSchema)->merge, nullptr);
}

}  // namespace
}  // namespace proofload::registry
