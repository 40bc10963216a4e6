// `proofload sizing` end to end, for real: the built-in server under cgroup CPU quotas (v1, the
// cpu controller at /sys/fs/cgroup/cpu; v2 where that is what the machine has), in shapes of one
// whole core, two half cores (two instances, the load spread over both) and one half core, each
// applied and restored by the example hooks of examples/sizing/. Tiny ladders (two levels of a
// second), so the whole file takes about 20 s. Every load goes to 127.0.0.1 and ends by itself;
// the restore hook stops the servers, and TearDown kills any a failed test left and removes the
// cgroups.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kCpuHierarchy = "/sys/fs/cgroup/cpu";
constexpr const char* kV2Root = "/sys/fs/cgroup";

// The example hooks (examples/sizing/): apply starts $PROOFLOAD_INSTANCES built-in servers on
// BASE_PORT, BASE_PORT+1, ..., each in its own cgroup under BASE with a quota of $PROOFLOAD_CPU
// cores, and writes their URLs to $PROOFLOAD_TARGETS_FILE; restore stops them and removes the
// cgroups. The test's restore also says it ran, one line each time.
const std::string kExamples = PL_EXAMPLES_DIR "/sizing";

// A port on 127.0.0.1 with nothing listening on it or on the next one.
int two_unused_ports() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int port = unused_loopback_port();
    if (port < 65535 && !loopback_accepts(port + 1)) return port;
  }
  throw std::runtime_error("no two free ports in a row");
}

class Sizing : public ::testing::Test {
 protected:
  void SetUp() override {
    // cgroup v1's cpu hierarchy; else a cgroup v2 hierarchy whose root offers the cpu controller
    // (the example hooks write cpu.max there).
    const std::string name = "/proofload-test-" + std::to_string(getpid());
    const bool v1 = fs::exists(std::string(kCpuHierarchy) + "/cpu.cfs_period_us");
    const bool v2 =
        read_file(std::string(kV2Root) + "/cgroup.controllers").find("cpu") != std::string::npos;
    const std::string where = v1 ? kCpuHierarchy : v2 ? kV2Root : kCpuHierarchy;
    if ((!v1 && !v2) || mkdir((where + name).c_str(), 0755) != 0) {
      GTEST_SKIP() << "cannot create a cgroup under " << where
                   << " (needs root, and cgroup v1's cpu controller or v2's): "
                   << std::strerror(errno);
    }
    base_ = where + name;
    dir_ = make_temp_dir(
        "sizing-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    state_ = dir_ + "/state";
    fs::create_directories(state_);
    port_ = two_unused_ports();
    // The hooks read these from the environment proofload passes on.
    setenv("BASE", base_.c_str(), 1);
    setenv("STATE", state_.c_str(), 1);
    setenv("BASE_PORT", std::to_string(port_).c_str(), 1);
    setenv("PROOFLOAD_BIN", proofload_binary().c_str(), 1);
  }

  void TearDown() override {
    if (base_.empty() || !fs::exists(base_)) return;
    // Whatever a failed test left running, then the cgroups (children first).
    if (fs::exists(state_)) {
      for (const auto& entry : fs::directory_iterator(state_)) {
        if (entry.path().extension() != ".pid") continue;
        const pid_t pid = std::atoi(read_file(entry.path().string()).c_str());
        if (pid > 1) kill(pid, SIGKILL);
      }
    }
    for (int attempt = 0; attempt < 100 && fs::exists(base_); ++attempt) {
      for (const auto& entry : fs::directory_iterator(base_)) {
        if (entry.is_directory()) rmdir(entry.path().c_str());
      }
      if (rmdir(base_.c_str()) != 0) std::this_thread::sleep_for(20ms);
    }
  }

  std::vector<std::string> sizing_args(const std::string& configs, const std::string& hold) {
    return {proofload_binary(),
            "sizing",
            "http://127.0.0.1:" + std::to_string(port_) + "/work",
            "--configs",
            configs,
            "--apply",
            "sh " + kExamples + "/cgroup-v1-apply.sh",
            "--restore",
            "echo restore >> " + state_ + "/restore.log; sh " + kExamples + "/cgroup-v1-restore.sh",
            "--ready-until",
            "http://127.0.0.1:" + std::to_string(port_) + "/health",
            "--concurrency",
            "2,4",
            "--hold",
            hold,
            "--warmup",
            "0s",
            "--observe",
            "cgroup:" + base_ + "/${PROOFLOAD_CONFIG_SLUG}-${INSTANCE}",
            "--observe",
            "pidfile:" + state_ + "/${PROOFLOAD_CONFIG_SLUG}-${INSTANCE}.pid",
            "-q",
            "-o",
            dir_ + "/out"};
  }

  size_t restores() const {
    const std::string log = read_file(state_ + "/restore.log");
    return static_cast<size_t>(std::count(log.begin(), log.end(), '\n'));
  }

  std::string base_, dir_, state_;
  int port_ = 0;
};

const json& config_named(const json& result, const std::string& name) {
  for (const json& c : result["sizing"]["configs"]) {
    if (c["name"] == name) return c;
  }
  throw std::runtime_error("no configuration " + name + " in " + result.dump());
}

TEST_F(Sizing, HalfCoreShapesAreThrottledAndEveryShapeIsReported) {
  Completed done = run_to_completion(sizing_args("1x1/64Mi,2x500m/64Mi,1x500m/64Mi", "1s"), 90s);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json result = json::parse(read_file(dir_ + "/out/result.json"));
  EXPECT_EQ(result["schema"], "proofload.sizing/v1");
  EXPECT_EQ(result["status"], "complete");
  ASSERT_EQ(result["sizing"]["configs"].size(), 3u);
  for (const json& c : result["sizing"]["configs"]) {
    for (const char* key :
         {"name", "cores", "best_sustained_rps", "per_core_rps", "peak_rps", "knee_level",
          "throttled_share", "memory_peak_bytes", "generator_busy"}) {
      EXPECT_TRUE(c.contains(key)) << key << " in " << c.dump();
    }
    EXPECT_EQ(c["status"], "complete") << c.dump();
    EXPECT_GT(c["best_sustained_rps"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["memory_peak_bytes"].get<double>(), 0) << c.dump();
    // Each configuration's ladder is an ordinary ladder directory.
    const json ladder =
        json::parse(read_file(dir_ + "/out/" + c["directory"].get<std::string>() + "/result.json"));
    EXPECT_EQ(ladder["schema"], "proofload.ladder/v1");
    EXPECT_EQ(ladder["rows"].size(), 2u);
  }
  EXPECT_EQ(config_named(result, "1x1/64Mi")["cores"], 1.0);
  const json& two = config_named(result, "2x500m/64Mi");
  EXPECT_EQ(two["cores"], 1.0);
  EXPECT_EQ(two["instances"], 2);
  EXPECT_EQ(two["targets"].size(), 2u);  // the load was spread over both instances
  const json& half = config_named(result, "1x500m/64Mi");
  EXPECT_EQ(half["cores"], 0.5);
  EXPECT_GT(half["throttled_share"].get<double>(), 0) << half.dump();
  EXPECT_GT(two["throttled_share"].get<double>(), 0) << two.dump();
  // Every instance observed (${INSTANCE}) and their CPU added: /work costs 2 ms of CPU a request
  // on whichever instance it lands, so the shape's CPU per request is 2 ms, not the 1 ms of the
  // one instance that a single observer saw.
  EXPECT_EQ(two["cpu_instances_observed"], 2) << two.dump();
  EXPECT_EQ(config_named(result, "1x1/64Mi")["cpu_instances_observed"], 1);
  const json two_ladder =
      json::parse(read_file(dir_ + "/out/" + two["directory"].get<std::string>() + "/result.json"));
  for (const json& level : two_ladder["analysis"]["levels"]) {
    EXPECT_NE(level["server_cpu_source"].get<std::string>().find(" + "), std::string::npos);
    const double ms = level["server_cpu_ms_per_request"].get<double>();
    EXPECT_GT(ms, 1.6) << level.dump();
    EXPECT_LT(ms, 3.0) << level.dump();
  }
  EXPECT_EQ(restores(), 1u);
  // The hooks ran in order, with the configuration's name.
  EXPECT_TRUE(fs::exists(dir_ + "/out/hooks/02-2x500m-64Mi-apply.log"));
  const std::string summary = read_file(dir_ + "/out/summary.md");
  EXPECT_NE(summary.find("Which carries most per core of limit?"), std::string::npos);
  EXPECT_NE(summary.find("| 1x500m/64Mi | 0.50 |"), std::string::npos) << summary;
  // `proofload report` renders the same report again from the recorded data.
  fs::remove(dir_ + "/out/summary.md");
  Completed report = run_to_completion({proofload_binary(), "report", dir_ + "/out"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(read_file(dir_ + "/out/summary.md"), summary);
}

TEST_F(Sizing, CtrlCInTheMiddleOfALadderRestoresOnce) {
  Process sizing(sizing_args("1x500m/64Mi,1x1/64Mi", "5s"));
  // Await the first level's run: its directory appears when its load starts.
  const fs::path levels = dir_ + "/out/configs/01-1x500m-64Mi/levels";
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (!(fs::exists(levels) && !fs::is_empty(levels))) {
    ASSERT_LT(std::chrono::steady_clock::now(), until) << "the first level never started";
    std::this_thread::sleep_for(20ms);
  }
  sizing.signal(SIGINT);
  std::optional<int> code = sizing.wait(60s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 130) << sizing.err();
  EXPECT_EQ(restores(), 1u);
  const json result = json::parse(read_file(dir_ + "/out/result.json"));
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_EQ(config_named(result, "1x500m/64Mi")["status"], "interrupted");
  EXPECT_TRUE(config_named(result, "1x1/64Mi")["status"].is_null());
  // The restore stopped the servers.
  EXPECT_FALSE(loopback_accepts(port_));
}

TEST(SizingPlan, PrintsEveryApplyLevelAndRestoreAndSendsNothing) {
  const int port = unused_loopback_port();
  Completed done = run_to_completion(
      {proofload_binary(), "sizing", "http://127.0.0.1:" + std::to_string(port) + "/", "--configs",
       "2x500m/1Gi,big", "--cores", "big=4", "--apply", "echo apply", "--restore", "echo restore",
       "--concurrency", "2,4", "--hold", "1s", "--warmup", "0s", "--plan"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("2. big (4 cores, from --cores)"), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("restore echo restore"), std::string::npos) << done.out;
  EXPECT_NE(done.out.find("Total: 4 s of load"), std::string::npos) << done.out;
  Completed bad = run_to_completion({proofload_binary(), "sizing", "http://127.0.0.1:1/",
                                     "--configs", "a,a", "--concurrency", "2", "--plan"});
  EXPECT_EQ(bad.exit_code, 2);
}

// A failed apply ends the sizing (exit 1) before any load, and the restore still runs once.
TEST(SizingHooks, AFailedApplyStillRestoresOnce) {
  const std::string dir = make_temp_dir("sizing-failed-apply");
  const int port = unused_loopback_port();
  Completed done = run_to_completion(
      {proofload_binary(), "sizing", "http://127.0.0.1:" + std::to_string(port) + "/", "--configs",
       "1x1/64Mi,2x1/64Mi", "--apply", "test \"$PROOFLOAD_INSTANCES\" = 2", "--restore",
       "echo restored >> " + dir + "/restore.log", "--concurrency", "2", "--hold", "1s", "-q", "-o",
       dir + "/out"});
  EXPECT_EQ(done.exit_code, 1) << done.err;
  EXPECT_EQ(read_file(dir + "/restore.log"), "restored\n");
  const json result = json::parse(read_file(dir + "/out/result.json"));
  EXPECT_EQ(result["status"], "failed");
  EXPECT_NE(result["end_reason"].get<std::string>().find("apply hook failed"), std::string::npos)
      << result["end_reason"];
  EXPECT_TRUE(result["sizing"]["configs"][0]["status"].is_null());
}

// SIGTERM while the sizing itself holds the signals (waiting for a configuration to be ready,
// before any ladder): it ends interrupted, and the restore still runs once.
TEST(SizingHooks, SigtermDuringTheReadyWaitRestoresOnce) {
  const std::string dir = make_temp_dir("sizing-sigterm");
  const int port = unused_loopback_port();
  Process sizing({proofload_binary(),
                  "sizing",
                  "http://127.0.0.1:" + std::to_string(port) + "/",
                  "--configs",
                  "a,b",
                  "--apply",
                  "true",
                  "--ready-until",
                  "test -e " + dir + "/never",
                  "--ready-timeout",
                  "60s",
                  "--restore",
                  "echo restored >> " + dir + "/restore.log",
                  "--concurrency",
                  "2",
                  "--hold",
                  "1s",
                  "-q",
                  "-o",
                  dir + "/out"});
  // Await the ready wait: its log appears with its first try.
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (!fs::exists(dir + "/out/hooks/01-a-ready.log")) {
    ASSERT_LT(std::chrono::steady_clock::now(), until) << "the ready wait never began";
    std::this_thread::sleep_for(20ms);
  }
  sizing.signal(SIGTERM);
  std::optional<int> code = sizing.wait(30s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 130) << sizing.err();
  EXPECT_EQ(read_file(dir + "/restore.log"), "restored\n");
  const json result = json::parse(read_file(dir + "/out/result.json"));
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_TRUE(result["sizing"]["configs"][0]["status"].is_null());
}

}  // namespace
}  // namespace proofload::testing
