// Hooks: the shell commands a ladder runs between levels (before-level, after-level, reset,
// restore). Each runs in its own process group, bounded in time, with its output kept in a
// capped log file. Thread-safe: no shared state (but see run_hook on the environment).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace proofload::experiments {

// Bytes of a hook's output kept in its log file per run; the rest is read and counted only, so a
// chatty hook never blocks on a full pipe and never fills the disk.
constexpr int64_t kHookOutputCap = 1024 * 1024;

// After SIGTERM, how long the hook's process group has to exit before it gets SIGKILL.
constexpr int64_t kHookKillGraceNs = 2'000'000'000;

struct HookResult {
  std::string name;                   // "before-level", "after-level", "reset", "restore", "drain"
  std::string command;                // as given to /bin/sh -c
  std::optional<int> exit_code;       // the shell's exit status; nullopt when a signal ended it
  std::optional<int> signal;          // the signal that ended the shell, if one did
  bool timed_out = false;             // it ran past its timeout and was stopped
  bool cancelled = false;             // *cancel became true and it was stopped
  double timeout_s = 0;               // the time it was given (for describe())
  double duration_s = 0;              // from start until run_hook returned
  std::filesystem::path output_file;  // where stdout and stderr were appended
  int64_t output_bytes = 0;           // bytes written to stdout+stderr, also those past the cap

  bool ok() const;  // exited 0, and was neither timed out nor cancelled
  // "exit 0", "exit 3", "timed out after 60 s (killed)", "killed by signal 9", "cancelled"
  std::string describe() const;
};

// Runs `command` with /bin/sh -c in a new process group, stdin from /dev/null, stdout and stderr
// appended to `output_file` (created, with its parent directories). At most kHookOutputCap bytes
// are kept; past the cap one line saying how much was written ends the log. `env` is added to the
// inherited environment (replacing variables of the same name), e.g. {"PROOFLOAD_LEVEL", "800"}.
//
// When `timeout_ns` has passed (<= 0: at once) or `*cancel` becomes true (checked every few
// milliseconds; may be null), the whole process group gets SIGTERM, and SIGKILL once
// kHookKillGraceNs has passed unless the shell has exited and the output pipe has closed (then
// whatever is left of the group gets SIGKILL at once). The child is always reaped.
//
// When the shell exits by itself, processes it left in the background (e.g. a server it started)
// are left alone; output they write within a short grace is still logged, after that the pipe is
// closed (their later writes to it fail), so such processes should send their output elsewhere.
//
// Throws std::runtime_error only if output_file cannot be created or the shell cannot be started.
// The caller's signal dispositions and mask are not touched (the child starts with default ones).
// Reads the process environment: do not call setenv() from another thread meanwhile.
HookResult run_hook(const std::string& name, const std::string& command, int64_t timeout_ns,
                    const std::filesystem::path& output_file,
                    const std::vector<std::pair<std::string, std::string>>& env = {},
                    const std::atomic<bool>* cancel = nullptr);

}  // namespace proofload::experiments
