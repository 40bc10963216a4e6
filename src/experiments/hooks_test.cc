// Tests of run_hook: exit status, output log and its cap, environment, timeouts and cancel that
// stop the whole process group, and what is left alone (background processes, signal handling).
#include "experiments/hooks.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <regex>
#include <thread>

#include "common/clock.h"
#include "experiments/hooks_test_support.h"

namespace proofload::experiments {
namespace {

using testing::eventually;
using testing::read_text;
using testing::ScratchDir;

constexpr int64_t kLongTimeoutNs = 20'000 * kNsPerMs;

// True when the process no longer runs (gone, or a zombie waiting for whoever reaps it).
bool process_gone(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  const size_t after_name = stat.rfind(')');
  return after_name + 2 < stat.size() &&
         (stat[after_name + 2] == 'Z' || stat[after_name + 2] == 'X');
}

pid_t read_pid(const std::filesystem::path& file) { return std::atoi(read_text(file).c_str()); }

TEST(RunHook, CapturesExitCodeAndBothOutputStreamsInOrder) {
  ScratchDir dir;
  const HookResult result =
      run_hook("reset", "echo hello; echo oops >&2; exit 3", kLongTimeoutNs, dir / "reset.log");
  EXPECT_EQ(result.name, "reset");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.signal);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.describe(), "exit 3");
  EXPECT_EQ(read_text(dir / "reset.log"), "hello\noops\n");
  EXPECT_EQ(result.output_bytes, 11);
  EXPECT_EQ(result.output_file, dir / "reset.log");
}

TEST(RunHook, SuccessIsOkAndTheLogIsAppendedUnderNewDirectories) {
  ScratchDir dir;
  const auto log = dir / "hooks" / "deep" / "01-100-before-level.log";
  EXPECT_TRUE(run_hook("before-level", "echo one", kLongTimeoutNs, log).ok());
  const HookResult second = run_hook("before-level", "echo two", kLongTimeoutNs, log);
  EXPECT_TRUE(second.ok());
  EXPECT_EQ(second.describe(), "exit 0");
  EXPECT_EQ(read_text(log), "one\ntwo\n");
}

TEST(RunHook, AddsEnvironmentVariablesAndReplacesInheritedOnes) {
  ScratchDir dir;
  ASSERT_EQ(setenv("PL_HOOKS_TEST_INHERITED", "kept", 1), 0);
  ASSERT_EQ(setenv("PL_HOOKS_TEST_REPLACED", "old", 1), 0);
  const HookResult result = run_hook(
      "before-level",
      "echo \"$PROOFLOAD_LEVEL $PL_HOOKS_TEST_INHERITED $PL_HOOKS_TEST_REPLACED\"; env | grep -c "
      "'^PL_HOOKS_TEST_REPLACED='",
      kLongTimeoutNs, dir / "env.log",
      {{"PROOFLOAD_LEVEL", "800"}, {"PL_HOOKS_TEST_REPLACED", "new"}});
  unsetenv("PL_HOOKS_TEST_INHERITED");
  unsetenv("PL_HOOKS_TEST_REPLACED");
  EXPECT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(read_text(dir / "env.log"), "800 kept new\n1\n");
}

TEST(RunHook, StdinIsEmptySoAHookReadingItDoesNotWait) {
  ScratchDir dir;
  const HookResult result = run_hook("reset", "cat; echo done", kLongTimeoutNs, dir / "in.log");
  EXPECT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(read_text(dir / "in.log"), "done\n");
}

TEST(RunHook, TimeoutStopsTheWholeProcessGroupIncludingGrandchildren) {
  ScratchDir dir;
  const auto pid_file = dir / "grandchild.pid";
  const HookResult result =
      run_hook("after-level", "sleep 30 & echo $! > '" + pid_file.string() + "'; sleep 30",
               300 * kNsPerMs, dir / "slow.log");
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(result.exit_code);
  EXPECT_EQ(result.signal, SIGTERM);
  EXPECT_EQ(result.describe(), "timed out after 0.3 s (killed)");
  EXPECT_GE(result.duration_s, 0.3);
  EXPECT_LT(result.duration_s, 1.5);  // SIGTERM was enough: no wait for the 2 s SIGKILL grace
  const pid_t grandchild = read_pid(pid_file);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }));
}

TEST(RunHook, AHookThatIgnoresSigtermGetsSigkillAfterTheGrace) {
  ScratchDir dir;
  const HookResult result =
      run_hook("reset", "trap '' TERM; sleep 30", 100 * kNsPerMs, dir / "t.log");
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_EQ(result.describe(), "timed out after 0.1 s (killed)");
  EXPECT_GE(result.duration_s, 0.1 + static_cast<double>(kHookKillGraceNs) / 1e9);
  EXPECT_LT(result.duration_s, 4.0);
}

TEST(RunHook, OutputPastTheCapIsCountedButNotKeptAndNeverBlocksTheHook) {
  ScratchDir dir;
  const int64_t written = 3 * kHookOutputCap + 12345;
  const HookResult result =
      run_hook("reset", "head -c " + std::to_string(written) + " /dev/zero | tr '\\0' a",
               kLongTimeoutNs, dir / "big.log");
  EXPECT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(result.output_bytes, written);
  const std::string log = read_text(dir / "big.log");
  const std::string note = "\n[proofload: output cut at " + std::to_string(kHookOutputCap) +
                           " bytes; the hook wrote " + std::to_string(written) + " bytes]\n";
  ASSERT_EQ(log.size(), static_cast<size_t>(kHookOutputCap) + note.size());
  EXPECT_EQ(log.substr(0, kHookOutputCap), std::string(kHookOutputCap, 'a'));
  EXPECT_EQ(log.substr(kHookOutputCap), note);
}

TEST(RunHook, CancelStopsARunningHook) {
  ScratchDir dir;
  const auto log = dir / "cancel.log";
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    eventually([&] { return read_text(log) == "started\n"; });
    cancel = true;
  });
  const HookResult result =
      run_hook("restore", "echo started; sleep 30", kLongTimeoutNs, log, {}, &cancel);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.describe(), "cancelled");
  EXPECT_LT(result.duration_s, 5.0);
}

TEST(RunHook, ACommandThatCannotBeFoundExits127) {
  ScratchDir dir;
  const HookResult result =
      run_hook("reset", "pl-hooks-no-such-command --flag", kLongTimeoutNs, dir / "nf.log");
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_EQ(result.describe(), "exit 127");
  EXPECT_NE(read_text(dir / "nf.log").find("not found"), std::string::npos);
}

TEST(RunHook, AHookEndedByASignalSaysWhichOne) {
  ScratchDir dir;
  const HookResult result = run_hook("reset", "kill -9 $$", kLongTimeoutNs, dir / "sig.log");
  EXPECT_FALSE(result.exit_code);
  EXPECT_EQ(result.signal, 9);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.describe(), "killed by signal 9");
}

TEST(RunHook, ThrowsWhenTheLogCannotBeCreated) {
  ScratchDir dir;
  { std::ofstream(dir / "a-file") << "x"; }
  EXPECT_THROW(run_hook("reset", "true", kLongTimeoutNs, dir / "a-file" / "hook.log"),
               std::runtime_error);
}

TEST(RunHook, BackgroundProcessesOfAHookThatExitedAreLeftRunning) {
  ScratchDir dir;
  const auto pid_file = dir / "server.pid";
  // A restore hook that starts a server: the server must outlive the hook.
  const HookResult result =
      run_hook("restore", "sleep 30 >/dev/null 2>&1 & echo $! > '" + pid_file.string() + "'",
               kLongTimeoutNs, dir / "bg.log");
  const pid_t server = read_pid(pid_file);
  ASSERT_GT(server, 0);
  EXPECT_TRUE(result.ok()) << result.describe();
  EXPECT_FALSE(process_gone(server));
  kill(server, SIGKILL);
}

TEST(RunHook, ABackgroundProcessHoldingTheOutputDoesNotHoldTheHook) {
  ScratchDir dir;
  const auto pid_file = dir / "holder.pid";
  const HookResult result =
      run_hook("restore", "sleep 30 & echo $! > '" + pid_file.string() + "'; echo done",
               kLongTimeoutNs, dir / "hold.log");
  const pid_t holder = read_pid(pid_file);
  EXPECT_TRUE(result.ok()) << result.describe();
  EXPECT_LT(result.duration_s, 5.0);
  EXPECT_EQ(read_text(dir / "hold.log"), "done\n");
  if (holder > 0) kill(holder, SIGKILL);
}

TEST(RunHook, TheChildStartsWithDefaultSignalsAndTheCallersAreUnchanged) {
  ScratchDir dir;
  struct sigaction before {};
  sigaction(SIGPIPE, nullptr, &before);
  signal(SIGPIPE, SIG_IGN);  // as a load generator does
  sigset_t mask_before;
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &blocked, &mask_before);

  const HookResult result = run_hook("reset", "exec grep -E '^Sig(Ign|Blk)' /proc/self/status",
                                     kLongTimeoutNs, dir / "s.log");

  struct sigaction after {};
  sigaction(SIGPIPE, nullptr, &after);
  sigset_t mask_after;
  pthread_sigmask(SIG_SETMASK, &mask_before, &mask_after);
  sigaction(SIGPIPE, &before, nullptr);

  EXPECT_TRUE(result.ok()) << result.describe();
  // Signals 1-31 (bits 0-30) must be neither blocked nor ignored. glibc's posix_spawn leaves its
  // own internal real-time signals (32, 33) ignored; a program that uses them (through glibc or
  // musl) installs its handlers anyway, and nothing else sends them.
  std::smatch masks;
  const std::string status = read_text(dir / "s.log");
  ASSERT_TRUE(
      std::regex_match(status, masks, std::regex("SigBlk:\t([0-9a-f]+)\nSigIgn:\t([0-9a-f]+)\n")))
      << status;
  constexpr uint64_t kStandardSignals = 0x7fffffff;
  EXPECT_EQ(std::stoull(masks[1].str(), nullptr, 16) & kStandardSignals, 0u) << status;
  EXPECT_EQ(std::stoull(masks[2].str(), nullptr, 16) & kStandardSignals, 0u) << status;
  EXPECT_EQ(after.sa_handler, SIG_IGN);
  EXPECT_EQ(sigismember(&mask_after, SIGUSR1), 1);
}

}  // namespace
}  // namespace proofload::experiments
