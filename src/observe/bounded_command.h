// Runs a program to completion with its output captured and its time and output bounded, for
// samplers that ask a command-line tool (kubectl) rather than read a file or an endpoint. The
// program is started without a shell, in its own process group, with stdin from /dev/null; past
// the timeout or the output cap the whole group is killed (SIGKILL), so a tool that hangs, or a
// helper it started (a credential plugin), never holds the caller longer than the timeout.
// Stateless and thread-safe; each call waits only for the child it started.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proofload::observe {

struct CommandLimits {
  int64_t timeout_ns = 0;              // from the start to the exit; > 0
  size_t max_stdout_bytes = 16 << 20;  // more than this: killed, kOutputTooLarge
  size_t max_stderr_bytes = 64 << 10;  // more than this is dropped (the tool is not killed)
  // >= 0: stdout is written to this file as it arrives rather than kept in `out`, so that a
  // pod's log of hundreds of MB is never held in memory; max_stdout_bytes bounds it all the same.
  int stdout_fd = -1;
};

struct CommandOutcome {
  enum class End {
    kExited,
    kKilledBySignal,
    kTimedOut,
    kOutputTooLarge,
    kOutputNotWritten,  // stdout_fd refused a write (a full disk): killed
    kNotStarted
  };
  End end = End::kNotStarted;
  int exit_code = -1;       // kExited: the program's exit status
  int signal = 0;           // kKilledBySignal: the signal (not one of ours)
  std::string out;          // stdout, at most max_stdout_bytes (empty with stdout_fd)
  size_t out_bytes = 0;     // stdout's bytes, kept in `out` or written to stdout_fd
  std::string err;          // stderr, at most max_stderr_bytes
  std::string start_error;  // kNotStarted, kOutputNotWritten: why (errno text)
  int64_t timeout_ns = 0;   // the limit it ran under, for the message

  bool succeeded() const { return end == End::kExited && exit_code == 0; }
  // Why it did not succeed, in one line: "exit 1: error: You must be logged in to the server",
  // "timed out after 5000 ms", "killed by signal 9", ... with stderr's first line that is not a
  // Go log line ("E0515 10:00:00.1 ..."; kubectl logs before it says what went wrong).
  std::string failure() const;
};

// `argv[0]` is the program's path (not looked up on PATH); the environment is the caller's.
CommandOutcome run_bounded(const std::vector<std::string>& argv, const CommandLimits& limits);

// The first regular executable file named `name` in the directories of `path_list` (PATH's
// syntax: ':'-separated, an empty entry is the current directory); "" when there is none.
std::string find_on_path(const std::string& name, const std::string& path_list);

}  // namespace proofload::observe
