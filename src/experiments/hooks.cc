// See hooks.h. The child is started with posix_spawn (safe in a multi-threaded process: nothing
// runs between fork and exec but glibc's own code) and watched by polling: a hook is an external
// process that runs for milliseconds to minutes, so a few milliseconds of latency cost nothing.
#include "experiments/hooks.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "common/clock.h"
#include "common/unique_fd.h"
#include "words/numbers.h"

extern char** environ;

namespace proofload::experiments {

namespace {

constexpr int64_t kCheckEveryNs = 10 * kNsPerMs;
// After the shell exits by itself: how long output still in flight (from a child it left
// behind) is logged before the pipe is closed.
constexpr int64_t kAfterExitGraceNs = 200 * kNsPerMs;
// Reads per loop turn, so that a hook writing without pause cannot starve the time checks.
constexpr int kMaxReadsPerTurn = 64;

std::runtime_error system_failure(const std::string& what, int error) {
  return std::runtime_error(what + ": " + std::strerror(error));
}

// The inherited environment with `extra` added; a variable in `extra` replaces one of the same
// name (a duplicate entry would leave the choice to the shell).
std::vector<std::string> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(extra.begin(), extra.end(),
                                      [&](const auto& variable) { return variable.first == name; });
    if (!replaced) merged.emplace_back(text);
  }
  for (const auto& [name, value] : extra) merged.push_back(name + "=" + value);
  return merged;
}

UniqueFd open_log(const std::filesystem::path& output_file) {
  std::error_code error;
  if (output_file.has_parent_path()) {
    std::filesystem::create_directories(output_file.parent_path(), error);
  }
  const int fd = open(output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw system_failure("cannot create the hook log '" + output_file.string() + "'", errno);
  }
  return UniqueFd(fd);
}

// Appends to the log what fits under the cap; every byte is counted either way.
class CappedLog {
 public:
  explicit CappedLog(int fd) : fd_(fd) {}

  void append(const char* data, size_t size) {
    total_bytes_ += static_cast<int64_t>(size);
    const int64_t room = kHookOutputCap - kept_bytes_;
    size_t to_keep = static_cast<size_t>(std::clamp<int64_t>(room, 0, static_cast<int64_t>(size)));
    while (to_keep > 0 && !write_failed_) {
      const ssize_t written = write(fd_, data, to_keep);
      if (written < 0 && errno == EINTR) continue;
      // A full disk must not stop the hook: stop logging, keep counting.
      if (written <= 0) {
        write_failed_ = true;
        break;
      }
      kept_bytes_ += written;
      data += written;
      to_keep -= static_cast<size_t>(written);
    }
  }

  void finish() {
    if (total_bytes_ <= kept_bytes_ || write_failed_) return;
    const std::string note =
        fmt::format("\n[proofload: output cut at {} bytes; the hook wrote {} bytes]\n", kept_bytes_,
                    total_bytes_);
    [[maybe_unused]] const ssize_t ignored = write(fd_, note.data(), note.size());
  }

  int64_t total_bytes() const { return total_bytes_; }

 private:
  int fd_;
  int64_t kept_bytes_ = 0;
  int64_t total_bytes_ = 0;
  bool write_failed_ = false;
};

// Reads what the pipe holds now. Returns false once the pipe is at end of file (every writer,
// the shell and anything it started with the same stdout, has closed it).
bool read_available(int fd, CappedLog& log) {
  char buffer[64 * 1024];
  for (int reads = 0; reads < kMaxReadsPerTurn; ++reads) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got > 0) {
      log.append(buffer, static_cast<size_t>(got));
      continue;
    }
    if (got == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return false;  // an unexpected read error: treat as closed rather than spin on it
  }
  return true;
}

// Has the shell exited? Leaves it unreaped (WNOWAIT): while it is a zombie its pid, and so its
// process-group id, cannot be reused, which keeps a later kill(-pid) aimed at our group only.
// `reaped_elsewhere` is set when the caller ignores SIGCHLD (the kernel then reaps by itself).
bool shell_exited(pid_t pid, bool& reaped_elsewhere) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno == EINTR) return false;
    reaped_elsewhere = true;
    return true;
  }
  return info.si_pid != 0;
}

void pause_briefly() {
  timespec pause{0, kCheckEveryNs};
  nanosleep(&pause, nullptr);
}

pid_t spawn_shell(const std::string& command, const std::vector<std::string>& environment,
                  int output_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
  // The hook must not hold the caller's sockets or files open (a listening port, a result file).
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);

  sigset_t no_signals;
  sigset_t all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &all_signals);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::string shell_name = "sh";
  std::string flag = "-c";
  std::string command_copy = command;
  char* argv[] = {shell_name.data(), flag.data(), command_copy.data(), nullptr};
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (const std::string& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int error = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw system_failure("cannot start /bin/sh for a hook", error);
  return pid;
}

int64_t saturating_add(int64_t a, int64_t b) {
  return b > std::numeric_limits<int64_t>::max() - a ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

bool HookResult::ok() const { return exit_code == 0 && !timed_out && !cancelled; }

std::string HookResult::describe() const {
  if (cancelled) return "cancelled";
  if (timed_out) return "timed out after " + words::seconds_text(timeout_s) + " (killed)";
  if (signal) return fmt::format("killed by signal {}", *signal);
  if (exit_code) return fmt::format("exit {}", *exit_code);
  return "exit status unknown";
}

HookResult run_hook(const std::string& name, const std::string& command, int64_t timeout_ns,
                    const std::filesystem::path& output_file,
                    const std::vector<std::pair<std::string, std::string>>& env,
                    const std::atomic<bool>* cancel) {
  HookResult result;
  result.name = name;
  result.command = command;
  result.output_file = output_file;
  result.timeout_s = static_cast<double>(std::max<int64_t>(timeout_ns, 0)) / kNsPerS;

  UniqueFd log_fd = open_log(output_file);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw system_failure("cannot create a pipe for a hook", errno);
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  const std::vector<std::string> environment = merged_environment(env);

  const int64_t start_ns = monotonic_ns();
  const pid_t pid = spawn_shell(command, environment, write_end.get());
  write_end.reset();  // only the child's copies remain: end of file once they are all closed
  fcntl(read_end.get(), F_SETFL, fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  const int64_t deadline_ns = timeout_ns <= 0 ? start_ns : saturating_add(start_ns, timeout_ns);
  CappedLog log(log_fd.get());
  bool pipe_open = true;
  bool exited = false;
  bool reaped_elsewhere = false;
  int64_t exited_at_ns = 0;
  int64_t stopped_at_ns = -1;  // when the group got SIGTERM
  while (true) {
    const int64_t now_ns = monotonic_ns();
    if (!exited) {
      exited = shell_exited(pid, reaped_elsewhere);
      if (exited) exited_at_ns = now_ns;
    }
    // A hook that exited by itself is never signalled: what it left running is meant to run.
    if (!exited && stopped_at_ns < 0) {
      if (cancel != nullptr && cancel->load()) {
        result.cancelled = true;
      } else if (now_ns >= deadline_ns) {
        result.timed_out = true;
      }
      if (result.cancelled || result.timed_out) {
        kill(-pid, SIGTERM);
        stopped_at_ns = now_ns;
      }
    }
    if (stopped_at_ns >= 0) {
      if ((exited && !pipe_open) || now_ns - stopped_at_ns >= kHookKillGraceNs) break;
    } else if (exited && (!pipe_open || now_ns - exited_at_ns >= kAfterExitGraceNs)) {
      break;
    }

    if (pipe_open) {
      pollfd readable{read_end.get(), POLLIN, 0};
      poll(&readable, 1, static_cast<int>(kCheckEveryNs / kNsPerMs));
      pipe_open = read_available(read_end.get(), log);
    } else {
      pause_briefly();
    }
  }
  if (pipe_open) read_available(read_end.get(), log);
  read_end.reset();

  // Whatever of a stopped group is still there (one that ignored SIGTERM, or outlived the shell)
  // ends now; the shell is still unreaped, so the group id is still ours.
  if (stopped_at_ns >= 0 && !reaped_elsewhere) kill(-pid, SIGKILL);
  if (!reaped_elsewhere) {
    int status = 0;
    pid_t waited;
    do {
      waited = waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (waited == pid && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (waited == pid && WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }

  log.finish();
  result.output_bytes = log.total_bytes();
  result.duration_s = static_cast<double>(monotonic_ns() - start_ns) / kNsPerS;
  return result;
}

}  // namespace proofload::experiments
