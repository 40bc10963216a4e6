// The pods of a Job as kubectl lists them (collect end to end, with a stub kubectl and real
// result directories, is tests/integration/k8s_test.cc).
#include "k8s/collect.h"

#include <gtest/gtest.h>

namespace proofload::k8s {
namespace {

TEST(JobPods, SortedByCompletionIndexWithWhatCollectNeeds) {
  const std::string list = R"({"kind": "PodList", "items": [
    {"metadata": {"name": "load-1-x", "annotations": {
       "batch.kubernetes.io/job-completion-index": "1", "proofload/results": "volume",
       "proofload/pvc": "results", "proofload/segments": "3"}},
     "spec": {"containers": [{"name": "proofload", "image": "reg/proofload:1"}]},
     "status": {"phase": "Failed"}},
    {"metadata": {"name": "stray"}, "status": {"phase": "Running"}},
    {"metadata": {"name": "load-0-y", "annotations": {
       "batch.kubernetes.io/job-completion-index": "0", "proofload/results": "log"}},
     "status": {"phase": "Succeeded"}}]})";
  const auto pods = parse_job_pods(list);
  ASSERT_EQ(pods.size(), 2u);  // the pod without an index is not the Job's segment
  EXPECT_EQ(pods[0].index, 0);
  EXPECT_EQ(pods[0].name, "load-0-y");
  EXPECT_EQ(pods[0].phase, "Succeeded");
  EXPECT_EQ(pods[0].results, "log");
  EXPECT_EQ(pods[1].index, 1);
  EXPECT_EQ(pods[1].phase, "Failed");
  EXPECT_EQ(pods[1].pvc, "results");
  EXPECT_EQ(pods[1].image, "reg/proofload:1");
  EXPECT_EQ(pods[1].segments, 3);
}

TEST(JobPods, RefusesWhatIsNotAPodList) {
  for (const char* bad : {"", "[]", "{\"items\": 3}", "No resources found"}) {
    EXPECT_THROW(parse_job_pods(bad), std::runtime_error) << bad;
  }
  EXPECT_TRUE(parse_job_pods(R"({"items": []})").empty());
}

}  // namespace
}  // namespace proofload::k8s
