// Test support: runs the real proofload binary as a child process, with its stdout and stderr
// captured, and waits for it with a deadline (a test never hangs on a child).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

// Defined in a sanitizer's build (ASan or TSan, clang or gcc): a test of memory peaks skips there,
// as the sanitizer's shadow memory is most of what it would measure.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_UNDER_SANITIZER 1
#endif

namespace proofload::testing {

// Path of the proofload binary under test (set by CMake).
std::string proofload_binary();

class Process {
 public:
  // Starts `args` (args[0] is the program). Throws std::runtime_error if it cannot.
  explicit Process(const std::vector<std::string>& args);
  ~Process();  // kills the child if it still runs
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // Reads stdout until a whole line arrives or the deadline passes (nullopt then, or at EOF).
  std::optional<std::string> read_stdout_line(std::chrono::milliseconds deadline);
  // Reads stderr until it holds `text` (true) or the deadline passes or it closes (false).
  bool wait_for_err(const std::string& text, std::chrono::milliseconds deadline);
  // Waits for exit, collecting all output; nullopt if still running at the deadline.
  std::optional<int> wait(std::chrono::milliseconds deadline);
  void signal(int sig);
  pid_t pid() const { return pid_; }
  const std::string& out() const { return out_; }  // everything read from stdout so far
  const std::string& err() const { return err_; }  // everything read from stderr so far

 private:
  bool pump(int timeout_ms);  // reads what is available; false when both pipes closed

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  size_t out_consumed_ = 0;  // bytes of out_ already returned as lines
  std::optional<int> exit_code_;
};

// Runs a command to completion (at most `deadline`) and returns {exit code, stdout, stderr}.
struct Completed {
  int exit_code;
  std::string out;
  std::string err;
};
Completed run_to_completion(const std::vector<std::string>& args,
                            std::chrono::milliseconds deadline = std::chrono::seconds(60));

// `proofload serve --port 0 <flags>`, started and ready: its port was read from its first line.
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& flags = {});
  int port() const { return port_; }
  std::string url(const std::string& path = "/") const;
  Process& process() { return process_; }

 private:
  Process process_;
  int port_ = 0;
};

// GET http://127.0.0.1:port/path with a plain socket (no proofload involved): the whole
// response, head and body; "" on failure.
std::string http_get(int port, const std::string& path);

// A port on 127.0.0.1 where nothing listens (bound, then released).
int unused_loopback_port();

// A socket listening on 127.0.0.1 at a free port, which is set in `port`: the test servers'.
// `socket_flags` adds to SOCK_STREAM | SOCK_CLOEXEC (SOCK_NONBLOCK). Throws std::runtime_error
// "WHO: cannot listen".
int listen_on_loopback(const char* who, int& port, int socket_flags = 0, int backlog = 128);

// Something listens on 127.0.0.1:port (a connect succeeds; the connection is closed at once).
bool loopback_accepts(int port);

// Reads a whole file ("" if missing).
std::string read_file(const std::string& path);
// Writes `content` to `path` (replacing it).
void write_file(const std::string& path, const std::string& content);
// A fresh empty directory under the test's temporary directory.
std::string make_temp_dir(const std::string& name);

}  // namespace proofload::testing
