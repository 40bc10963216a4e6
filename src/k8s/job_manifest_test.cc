// The rendered objects read back with a YAML parser: what the API server will see (the schema
// itself is checked by tests/k8s against kubernetes-models, in tests/integration/k8s_test.cc).
#include "k8s/job_manifest.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "common/usage_error.h"
#include "measure/hlog.h"

namespace proofload::k8s {
namespace {

JobSpec url_spec() {
  JobSpec spec;
  spec.name = "edge-load";
  spec.image = "registry.example.com/proofload:0.1.0";
  spec.target = "http://api.internal:8080/search?q=1";
  spec.segments = 4;
  spec.start_at = "2026-12-03T10:00:00Z";
  spec.passthrough = {"--rate", "500", "-H", "X-Price: $5 and $(HOME)"};
  spec.cpu_request = "2";
  spec.memory_request = "1Gi";
  spec.cpu_limit = "2500m";
  spec.memory_limit = "2Gi";
  return spec;
}

std::vector<YAML::Node> documents(const JobSpec& spec) {
  return YAML::LoadAll(render_job_yaml(spec));
}

std::vector<std::string> strings(const YAML::Node& list) {
  std::vector<std::string> out;
  for (const YAML::Node& item : list) out.push_back(item.as<std::string>());
  return out;
}

TEST(JobManifest, AnIndexedJobOfOnePodPerSegmentThatIsNeverRetried) {
  const auto docs = documents(url_spec());
  ASSERT_EQ(docs.size(), 1u);  // a URL needs no ConfigMap
  const YAML::Node job = docs[0];
  EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1");
  EXPECT_EQ(job["kind"].as<std::string>(), "Job");
  EXPECT_EQ(job["metadata"]["name"].as<std::string>(), "edge-load");
  EXPECT_EQ(job["spec"]["completionMode"].as<std::string>(), "Indexed");
  EXPECT_EQ(job["spec"]["completions"].as<int>(), 4);
  EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 4);
  EXPECT_EQ(job["spec"]["backoffLimit"].as<int>(), 0);
  const YAML::Node pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  EXPECT_EQ(job["spec"]["template"]["metadata"]["annotations"]["proofload/segments"].Scalar(), "4");
}

TEST(JobManifest, EachPodRunsItsSegmentFromTheSharedStartWithTheFlagsAsWritten) {
  const YAML::Node container =
      documents(url_spec())[0]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["image"].as<std::string>(), "registry.example.com/proofload:0.1.0");
  EXPECT_EQ(
      strings(container["args"]),
      (std::vector<std::string>{"run", "http://api.internal:8080/search?q=1", "--segment",
                                "$(JOB_COMPLETION_INDEX)/4", "--start-at", "2026-12-03T10:00:00Z",
                                "--out", "/results/segment-$(JOB_COMPLETION_INDEX)", "--rate",
                                "500", "-H", "X-Price: $$5 and $$(HOME)"}));
  // $(JOB_COMPLETION_INDEX) is expanded only when the container declares the variable.
  const YAML::Node env = container["env"][0];
  EXPECT_EQ(env["name"].as<std::string>(), "JOB_COMPLETION_INDEX");
  EXPECT_EQ(env["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(),
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(strings(container["command"])[0], "sh");
  EXPECT_EQ(strings(container["command"])[2], log_results_script());
}

TEST(JobManifest, QuantitiesStayStrings) {
  const YAML::Node resources =
      documents(url_spec())[0]["spec"]["template"]["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["requests"]["cpu"].Tag(), "!");  // quoted: a string, not the number 2
  EXPECT_EQ(resources["requests"]["cpu"].as<std::string>(), "2");
  EXPECT_EQ(resources["requests"]["memory"].as<std::string>(), "1Gi");
  EXPECT_EQ(resources["limits"]["cpu"].as<std::string>(), "2500m");
  EXPECT_EQ(resources["limits"]["memory"].as<std::string>(), "2Gi");
}

TEST(JobManifest, SegmentsAreKeptOffEachOthersNodesUnlessAllowed) {
  JobSpec spec = url_spec();
  const std::string text = render_job_yaml(spec);
  EXPECT_NE(text.find("# One generator per node"), std::string::npos) << text;
  YAML::Node anti = YAML::Load(text)["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"];
  const YAML::Node required = anti["requiredDuringSchedulingIgnoredDuringExecution"][0];
  EXPECT_EQ(required["topologyKey"].as<std::string>(), "kubernetes.io/hostname");
  EXPECT_EQ(
      required["labelSelector"]["matchLabels"]["app.kubernetes.io/instance"].as<std::string>(),
      "edge-load");
  spec.allow_same_node = true;
  anti =
      YAML::Load(render_job_yaml(spec))["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"];
  EXPECT_FALSE(anti["requiredDuringSchedulingIgnoredDuringExecution"]);
  EXPECT_EQ(
      anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["topologyKey"]
          .as<std::string>(),
      "kubernetes.io/hostname");
}

TEST(JobManifest, VolumeResultsWriteToTheClaimWithNoShell) {
  JobSpec spec = url_spec();
  spec.results = ResultsMode::kVolume;
  spec.pvc = "load-results";
  const YAML::Node pod = documents(spec)[0]["spec"]["template"]["spec"];
  EXPECT_EQ(strings(pod["containers"][0]["command"]), std::vector<std::string>{"proofload"});
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(),
            "load-results");
  EXPECT_EQ(pod["securityContext"]["fsGroup"].as<int>(), kImageUserId);
}

TEST(JobManifest, TheConfigMapHoldsEveryFileByteForByte) {
  JobSpec spec = url_spec();
  spec.target = "/scenario/mix.yaml";
  spec.files = {{"mix.yaml", "requests:\n  search: {path: /s}\n"},
                {"data/ids.txt", "1\n\n2\n\n"},  // blank lines, two at the end
                {"data/no-newline.txt", "  indented\tand no line break"},
                {"words.txt", "caf\xc3\xa9\r\n"},  // UTF-8 and a carriage return
                {"blob.bin", std::string("\x00\xff\x01", 3)}};
  const auto docs = documents(spec);
  ASSERT_EQ(docs.size(), 2u);
  const YAML::Node config = docs[0];
  EXPECT_EQ(config["kind"].as<std::string>(), "ConfigMap");
  const YAML::Node items = docs[1]["spec"]["template"]["spec"]["volumes"][1]["configMap"]["items"];
  ASSERT_EQ(items.size(), spec.files.size());
  for (size_t i = 0; i < spec.files.size(); ++i) {
    const std::string key = items[i]["key"].as<std::string>();
    EXPECT_EQ(items[i]["path"].as<std::string>(), spec.files[i].path);
    if (spec.files[i].path == "blob.bin") {
      const auto bytes = measure::base64_decode(config["binaryData"][key].as<std::string>());
      EXPECT_EQ(std::string(bytes.begin(), bytes.end()), spec.files[i].content);
    } else {
      EXPECT_EQ(config["data"][key].as<std::string>(), spec.files[i].content) << key;
    }
  }
  const YAML::Node container = docs[1]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["workingDir"].as<std::string>(), "/scenario");
  EXPECT_EQ(container["volumeMounts"][1]["mountPath"].as<std::string>(), "/scenario");
}

void expect_refused(const JobSpec& spec, const std::string& words) {
  try {
    check_job_spec(spec);
    ADD_FAILURE() << "accepted; expected: " << words;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(JobManifest, EveryBadValueIsOneLine) {
  JobSpec spec = url_spec();
  EXPECT_NO_THROW(check_job_spec(spec));
  for (int bad : {0, -1, kMaxSegments + 1}) {
    spec = url_spec();
    spec.segments = bad;
    expect_refused(spec, "--segments");
  }
  spec = url_spec();
  spec.name = "Edge_Load";
  expect_refused(spec, "DNS-1123 label");
  spec = url_spec();
  spec.namespace_name = std::string(64, 'a');
  expect_refused(spec, "--namespace");
  spec = url_spec();
  spec.cpu_request = "2 cores";
  expect_refused(spec, "not a Kubernetes quantity");
  spec = url_spec();
  spec.memory_request = "4Gi";
  expect_refused(spec, "--memory 4Gi is over --memory-limit 2Gi");
  spec = url_spec();
  spec.results = ResultsMode::kVolume;
  expect_refused(spec, "needs --pvc");
  spec.pvc = "Results!";
  expect_refused(spec, "DNS-1123 subdomain");
  spec = url_spec();
  spec.node_selector = {{"node pool", "load"}};
  expect_refused(spec, "--node-selector");
  spec = url_spec();
  spec.image = "";
  expect_refused(spec, "--image");
  spec = url_spec();
  spec.files = {{"big.txt", std::string(kMaxConfigMapBytes, 'x')}};
  expect_refused(spec, "at most 1 MiB");
}

TEST(JobManifest, QuantitiesAndNames) {
  EXPECT_DOUBLE_EQ(quantity_value("500m"), 0.5);
  EXPECT_DOUBLE_EQ(quantity_value("2"), 2);
  EXPECT_DOUBLE_EQ(quantity_value("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(quantity_value("1Gi"), 1073741824.0);
  EXPECT_DOUBLE_EQ(quantity_value("1G"), 1e9);
  for (const char* bad : {"", "0", "m", "-1", "1.2.3", "1gi", "1 Gi", "1Gix"}) {
    EXPECT_LT(quantity_value(bad), 0) << bad;
  }
  EXPECT_TRUE(is_dns1123_label("load-1"));
  EXPECT_FALSE(is_dns1123_label("-load"));
  EXPECT_FALSE(is_dns1123_label("load.1"));
  EXPECT_TRUE(is_dns1123_subdomain("results.team-a"));
  EXPECT_FALSE(is_dns1123_subdomain("results..a"));
}

}  // namespace
}  // namespace proofload::k8s
