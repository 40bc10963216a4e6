// run_bounded with real programs (/bin/sh): exit codes and the reason it gives, the output cap,
// and the timeout, which must also reach what the program started (its process group).
#include "observe/bounded_command.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "common/clock.h"

namespace proofload::observe {
namespace {

CommandLimits limits(int64_t timeout_ns) {
  CommandLimits l;
  l.timeout_ns = timeout_ns;
  return l;
}

CommandOutcome shell(const std::string& script, const CommandLimits& l) {
  return run_bounded({"/bin/sh", "-c", script}, l);
}

// Whether `pid` is gone (or a zombie no one reaped yet: it runs no more).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

TEST(BoundedCommand, CapturesOutputAndExitCode) {
  CommandOutcome ok = shell("echo hello; echo note >&2", limits(5 * kNsPerS));
  EXPECT_TRUE(ok.succeeded());
  EXPECT_EQ(ok.out, "hello\n");
  EXPECT_EQ(ok.err, "note\n");
  EXPECT_EQ(ok.failure(), "");

  CommandOutcome failed = shell("echo 'error: no such pod' >&2; exit 3", limits(5 * kNsPerS));
  EXPECT_FALSE(failed.succeeded());
  EXPECT_EQ(failed.end, CommandOutcome::End::kExited);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.failure(), "exit 3: error: no such pod");
}

TEST(BoundedCommand, ReasonSkipsGoLogLines) {
  // What kubectl writes when the API server is not there.
  CommandOutcome failed = shell(
      "echo 'E1202 04:26:50.601894   28335 memcache.go:265] \"Unhandled Error\"' >&2; "
      "echo 'The connection to the server localhost:8080 was refused' >&2; exit 1",
      limits(5 * kNsPerS));
  EXPECT_EQ(failed.failure(), "exit 1: The connection to the server localhost:8080 was refused");
}

TEST(BoundedCommand, NotStarted) {
  CommandOutcome missing = run_bounded({"/nonexistent/kubectl", "get"}, limits(kNsPerS));
  EXPECT_EQ(missing.end, CommandOutcome::End::kNotStarted);
  EXPECT_EQ(missing.failure(), "could not start: /nonexistent/kubectl: No such file or directory");
}

TEST(BoundedCommand, OutputOverTheCapIsKilled) {
  CommandLimits l = limits(5 * kNsPerS);
  l.max_stdout_bytes = 1000;
  CommandOutcome big = shell("while :; do echo 0123456789; done", l);
  EXPECT_EQ(big.end, CommandOutcome::End::kOutputTooLarge);
  EXPECT_EQ(big.out.size(), 1000u);
  EXPECT_EQ(big.failure(), "output over 1000 bytes");
}

TEST(BoundedCommand, HangIsKilledAtTheTimeoutWithWhatItStarted) {
  // The shell starts a sleep that keeps stdout open, prints its pid and waits: both must die.
  const int64_t started = monotonic_ns();
  CommandOutcome hung = shell("sleep 600 & echo $!; wait", limits(300 * kNsPerMs));
  const int64_t took_ns = monotonic_ns() - started;
  EXPECT_EQ(hung.end, CommandOutcome::End::kTimedOut);
  EXPECT_EQ(hung.failure(), "timed out after 300 ms");
  EXPECT_GE(took_ns, 300 * kNsPerMs);
  EXPECT_LT(took_ns, 2 * kNsPerS);
  const pid_t sleeper = static_cast<pid_t>(std::stol(hung.out));
  // SIGKILL was sent to the group; the orphan's end is awaited (bounded), not slept for.
  const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
  while (!gone(sleeper) && monotonic_ns() < deadline) sched_yield();
  EXPECT_TRUE(gone(sleeper)) << "the sleep started by the command survived";
}

TEST(BoundedCommand, ClosedPipesButStillRunningIsKilledAtTheTimeout) {
  CommandOutcome lingering = shell("exec >&- 2>&-; sleep 600", limits(200 * kNsPerMs));
  EXPECT_EQ(lingering.end, CommandOutcome::End::kTimedOut);
}

TEST(BoundedCommand, FindsOnPath) {
  EXPECT_EQ(find_on_path("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(find_on_path("no-such-program-here", "/bin:/usr/bin"), "");
  EXPECT_EQ(find_on_path("sh", ""), "");  // "" is the current directory, which has none
}

}  // namespace
}  // namespace proofload::observe
