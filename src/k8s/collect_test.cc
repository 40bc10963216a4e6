// The pods of a Job as kubectl lists them (collect end to end, with a stub kubectl and real
// result directories, is tests/integration/k8s_test.cc).
#include "k8s/collect.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "k8s/tarball_testing.h"

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

namespace fs = std::filesystem;

void put_file(const fs::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A Job whose pods' logs are files, answered by a kubectl script, and a "merge" that records its
// arguments: collect_job end to end without the binary.
class CollectJob : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("collect_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "logs");
    put_file(dir_ / "kubectl", "#!/bin/sh\ncase \"$1\" in\n  get) cat '" + (dir_ / "pods.json").string() +
                                "' ;;\n  logs) cat '" + (dir_ / "logs").string() +
                                "/'\"$2\" ;;\nesac\n");
    put_file(dir_ / "merge", "#!/bin/sh\necho \"$@\" > '" + (dir_ / "merged").string() + "'\n");
    for (const char* script : {"kubectl", "merge"}) {
      fs::permissions(dir_ / script, fs::perms::owner_all);
    }
    spec_.job = "edge";
    spec_.kubectl = (dir_ / "kubectl").string();
    spec_.proofload = (dir_ / "merge").string();
    spec_.out = (dir_ / "out").string();
  }

  // Pods 0..logs.size()-1, all Succeeded, each with its log; `segments` their annotation.
  void pods(const std::vector<std::string>& logs, const std::string& segments) {
    nlohmann::json items = nlohmann::json::array();
    for (size_t i = 0; i < logs.size(); ++i) {
      const std::string name = "edge-" + std::to_string(i);
      items.push_back({{"metadata",
                        {{"name", name},
                         {"annotations",
                          {{"batch.kubernetes.io/job-completion-index", std::to_string(i)},
                           {"proofload/results", "log"},
                           {"proofload/segments", segments}}}}},
                       {"status", {{"phase", "Succeeded"}}}});
      put_file(dir_ / "logs" / name, logs[i]);
    }
    put_file(dir_ / "pods.json", nlohmann::json{{"items", items}}.dump());
  }

  std::string good_log(int index) {
    const std::string segment = "segment-" + std::to_string(index);
    return testing::pod_log(
        index, testing::gzip(testing::tar_member(segment + "/result.json", '0', "{}") +
                             testing::tar_end()));
  }

  fs::path dir_;
  CollectSpec spec_;
};

TEST_F(CollectJob, ABadSegmentIsNamedMissingAndTheOthersMerge) {
  // Before: "cannot write .../segment-0.partial" thrown, nothing merged, .partial left behind.
  pods({testing::pod_log(0, testing::gzip(testing::tar_member("segment-0", '0', "x") +
                                          testing::tar_end())),
        good_log(1)},
       "2");
  std::ostringstream say;
  EXPECT_EQ(collect_job(spec_, say), 1) << say.str();
  EXPECT_NE(say.str().find("segment 0 missing: pod edge-0 Succeeded: 'segment-0' is a file"),
            std::string::npos)
      << say.str();
  EXPECT_NE(say.str().find("collected 1 of 2 segments"), std::string::npos) << say.str();
  const fs::path segments = dir_ / "out/segments";
  EXPECT_EQ(file_text(dir_ / "merged"),
            "merge " + (segments / "segment-1").string() + " --out " + spec_.out + "/merged\n");
  EXPECT_EQ(file_text(segments / "segment-1/result.json"), "{}");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(segments)) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"segment-1"});  // no .partial, no saved log
}

TEST_F(CollectJob, ASegmentCountPastAnyJobsIsNotBelievedAndMissingOnesAreSummarised) {
  // Before: `proofload/segments: 999999` printed 999,999 "missing" lines.
  pods({good_log(0)}, "999999");
  std::ostringstream say;
  EXPECT_EQ(collect_job(spec_, say), 0) << say.str().substr(0, 2000);
  EXPECT_NE(say.str().find("collected 1 of 1 segments"), std::string::npos)
      << say.str().substr(0, 2000);

  // A count a Job can have, with one pod: the first ten missing, then how many more.
  fs::remove_all(dir_ / "out");
  pods({good_log(0)}, "1000");
  std::ostringstream many;
  EXPECT_EQ(collect_job(spec_, many), 1);
  const std::string text = many.str();
  EXPECT_NE(text.find("segment 10 missing: no pod\nand 989 more segments missing\n"),
            std::string::npos)
      << text.substr(0, 2000);
  EXPECT_EQ(text.find("segment 11 missing"), std::string::npos);
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 15);
}

TEST_F(CollectJob, WhatThePodSendsIsQuotedForATerminal) {
  pods({testing::pod_log(0, testing::gzip(testing::tar_member("segment-0/\x1b[2Jx", '2') +
                                          testing::tar_end()))},
       "1");
  std::ostringstream say;
  collect_job(spec_, say);
  EXPECT_EQ(say.str().find('\x1b'), std::string::npos) << say.str();
  EXPECT_NE(say.str().find("segment-0/\\x1b[2Jx"), std::string::npos) << say.str();
}

}  // namespace
}  // namespace proofload::k8s
