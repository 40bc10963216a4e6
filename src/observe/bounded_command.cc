// See bounded_command.h. posix_spawn rather than fork: the caller is a multi-threaded process
// (the load workers run beside the sampler thread), and spawn does not copy its address space.
#include "observe/bounded_command.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "common/clock.h"
#include "common/unique_fd.h"

extern char** environ;

namespace proofload::observe {
namespace {

// A Go tool's log line ("E0515 10:00:00.123456   42 file.go:265] ..."), which kubectl writes
// before the sentence that says what went wrong ("The connection to the server ... was refused").
bool is_klog_line(const std::string& line) {
  return line.size() > 22 && line[0] != '\0' && std::strchr("IWEF", line[0]) != nullptr &&
         std::all_of(line.begin() + 1, line.begin() + 5,
                     [](char c) { return c >= '0' && c <= '9'; }) &&
         line[5] == ' ' && line[8] == ':' && line[11] == ':';
}

// The reason in a tool's stderr, for a one-line message: its first non-empty line that is not a
// log line (else its first non-empty line), trimmed and made printable.
std::string first_line(const std::string& text) {
  std::string first;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = std::min(text.find('\n', begin), text.size());
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (!is_klog_line(line)) {
      first = line;
      break;
    }
  }
  if (first.size() > 200) first = first.substr(0, 200) + "...";
  for (char& c : first) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return first;
}

std::string with_stderr(std::string what, const std::string& err) {
  std::string line = first_line(err);
  return line.empty() ? what : what + ": " + line;
}

// Reads what `fd` has into `into`, keeping at most `cap` bytes. Returns false at EOF or error.
bool drain(int fd, std::string& into, size_t cap, bool& over_cap) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t room = cap > into.size() ? cap - into.size() : 0;
  into.append(buffer, std::min(room, static_cast<size_t>(n)));
  if (static_cast<size_t>(n) > room) over_cap = true;
  return true;
}

// drain()'s form for stdout_fd: what `fd` has is written to `sink` and counted in `total`, at
// most `cap` bytes; `write_error` is set (errno) when the sink refuses it.
bool drain_to(int fd, int sink, size_t& total, size_t cap, bool& over_cap, int& write_error) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t keep = std::min(cap > total ? cap - total : 0, static_cast<size_t>(n));
  over_cap = keep < static_cast<size_t>(n);
  for (size_t done = 0; done < keep;) {
    const ssize_t wrote = ::write(sink, buffer + done, keep - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      write_error = wrote < 0 ? errno : ENOSPC;
      return false;
    }
    done += static_cast<size_t>(wrote);
  }
  total += keep;
  return true;
}

// Waits for the child after its group was killed; SIGKILL cannot be ignored, so this is prompt.
void reap(pid_t pid, int& status) {
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string CommandOutcome::failure() const {
  switch (end) {
    case End::kExited:
      return exit_code == 0 ? "" : with_stderr("exit " + std::to_string(exit_code), err);
    case End::kKilledBySignal:
      return with_stderr("killed by signal " + std::to_string(signal), err);
    case End::kTimedOut:
      return "timed out after " + std::to_string(timeout_ns / kNsPerMs) + " ms";
    case End::kOutputTooLarge:
      return "output over " + std::to_string(out_bytes) + " bytes";
    case End::kOutputNotWritten:
      return "cannot write its output: " + start_error;
    case End::kNotStarted:
      return "could not start: " + start_error;
  }
  return "";
}

CommandOutcome run_bounded(const std::vector<std::string>& argv, const CommandLimits& limits) {
  CommandOutcome outcome;
  outcome.timeout_ns = limits.timeout_ns;
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    outcome.start_error = std::strerror(errno);
    return outcome;
  }
  UniqueFd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    outcome.start_error = std::strerror(errno);
    return outcome;
  }
  UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  // Its own process group, so one kill reaches its helpers too; no signal mask or ignored
  // signals inherited from the sampler thread (run and serve block SIGINT and SIGTERM).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int64_t deadline_ns = monotonic_ns() + limits.timeout_ns;
  int spawned = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  out_write.reset();
  err_write.reset();
  if (spawned != 0) {
    outcome.start_error = std::string(argv[0]) + ": " + std::strerror(spawned);
    return outcome;
  }

  bool killed = false;
  auto kill_group = [&](CommandOutcome::End why) {
    ::kill(-pid, SIGKILL);
    outcome.end = why;
    killed = true;
  };
  pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
  while (!killed && (fds[0].fd >= 0 || fds[1].fd >= 0)) {
    const int64_t remaining_ns = deadline_ns - monotonic_ns();
    if (remaining_ns <= 0) {
      kill_group(CommandOutcome::End::kTimedOut);
      break;
    }
    const int wait_ms = static_cast<int>((remaining_ns + kNsPerMs - 1) / kNsPerMs);
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) {
      kill_group(CommandOutcome::End::kTimedOut);  // cannot wait on it: give up on it
      break;
    }
    bool over_cap = false;
    int write_error = 0;
    if (fds[0].fd >= 0 && fds[0].revents != 0 &&
        !(limits.stdout_fd >= 0
              ? drain_to(fds[0].fd, limits.stdout_fd, outcome.out_bytes, limits.max_stdout_bytes,
                         over_cap, write_error)
              : drain(fds[0].fd, outcome.out, limits.max_stdout_bytes, over_cap))) {
      fds[0].fd = -1;
    }
    if (limits.stdout_fd < 0) outcome.out_bytes = outcome.out.size();
    if (write_error != 0) {
      outcome.start_error = std::strerror(write_error);
      kill_group(CommandOutcome::End::kOutputNotWritten);
    } else if (over_cap) {
      kill_group(CommandOutcome::End::kOutputTooLarge);
    }
    bool ignored = false;  // stderr past its cap is dropped: it only feeds a one-line reason
    if (fds[1].fd >= 0 && fds[1].revents != 0 &&
        !drain(fds[1].fd, outcome.err, limits.max_stderr_bytes, ignored)) {
      fds[1].fd = -1;
    }
  }

  int status = 0;
  if (killed) {
    reap(pid, status);
    return outcome;
  }
  // Both pipes closed: it has exited or is about to. One that closed them and lingers is
  // waited for until the deadline, in short steps (there is no fd to poll for a child's exit
  // without pidfd_open, which older kernels lack).
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (monotonic_ns() >= deadline_ns) {
      kill_group(CommandOutcome::End::kTimedOut);
      reap(pid, status);
      return outcome;
    }
    timespec step{0, kNsPerMs};
    nanosleep(&step, nullptr);
  }
  if (WIFSIGNALED(status)) {
    outcome.end = CommandOutcome::End::kKilledBySignal;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.end = CommandOutcome::End::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

std::string find_on_path(const std::string& name, const std::string& path_list) {
  size_t begin = 0;
  for (;;) {
    size_t end = std::min(path_list.find(':', begin), path_list.size());
    std::string dir = path_list.substr(begin, end - begin);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      std::error_code ec;
      std::filesystem::path absolute = std::filesystem::absolute(candidate, ec);
      return ec ? candidate : absolute.string();
    }
    if (end >= path_list.size()) return "";
    begin = end + 1;
  }
}

}  // namespace proofload::observe
