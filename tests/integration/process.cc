// See process.h.
#include "process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace proofload::testing {

std::string proofload_binary() { return PROOFLOAD_BINARY; }

Process::Process(const std::vector<std::string>& args) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (rc != 0) throw std::runtime_error(std::string("cannot start ") + args[0] + ": " + strerror(rc));
}

Process::~Process() {
  if (!exit_code_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool Process::pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  int open_count = (out_fd_ >= 0) + (err_fd_ >= 0);
  if (open_count == 0) return false;
  if (poll(fds, 2, timeout_ms) <= 0) return true;
  char buffer[65536];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
    if (n > 0) {
      (i == 0 ? out_ : err_).append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(fds[i].fd);
      (i == 0 ? out_fd_ : err_fd_) = -1;
    }
  }
  return true;
}

std::optional<std::string> Process::read_stdout_line(std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    size_t newline = out_.find('\n', out_consumed_);
    if (newline != std::string::npos) {
      std::string line = out_.substr(out_consumed_, newline - out_consumed_);
      out_consumed_ = newline + 1;
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || out_fd_ < 0) return std::nullopt;
    pump(static_cast<int>(left.count()));
  }
}

bool Process::wait_for_err(const std::string& text, std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (err_.find(text) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || err_fd_ < 0) return false;
    pump(static_cast<int>(left.count()));
  }
  return true;
}

std::optional<int> Process::wait(std::chrono::milliseconds deadline) {
  if (exit_code_) return exit_code_;
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      while (pump(100)) {
      }
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    // Reading the pipes keeps the child from blocking on a full pipe; poll returns at once
    // when output arrives, otherwise it waits a little before the next waitpid.
    if (!pump(std::min<int>(20, static_cast<int>(left.count())))) {
      poll(nullptr, 0, std::min<int>(20, static_cast<int>(left.count())));
    }
  }
}

void Process::signal(int sig) {
  if (!exit_code_) kill(pid_, sig);
}

Completed run_to_completion(const std::vector<std::string>& args,
                            std::chrono::milliseconds deadline) {
  Process p(args);
  auto code = p.wait(deadline);
  if (!code) throw std::runtime_error("command did not finish in time: " + args[0]);
  return {*code, p.out(), p.err()};
}

ServeProcess::ServeProcess(const std::vector<std::string>& flags)
    : process_([&] {
        std::vector<std::string> args = {proofload_binary(), "serve", "--port", "0"};
        args.insert(args.end(), flags.begin(), flags.end());
        return args;
      }()) {
  auto line = process_.read_stdout_line(std::chrono::seconds(10));
  const std::string prefix = "listening on 127.0.0.1:";
  if (!line || line->rfind(prefix, 0) != 0) {
    throw std::runtime_error("serve did not start: " + line.value_or("(no output)") + " " +
                             process_.err());
  }
  port_ = std::stoi(line->substr(prefix.size()));
}

std::string ServeProcess::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

std::string make_temp_dir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  auto dir = std::filesystem::path(base ? base : "/tmp") /
             ("proofload-test-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string http_get(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t got;
      while ((got = read(fd, buffer, sizeof buffer)) > 0)
        response.append(buffer, static_cast<size_t>(got));
    }
  }
  close(fd);
  return response;
}

bool loopback_accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

int unused_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

int listen_on_loopback(const char* who, int& port, int socket_flags, int backlog) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | socket_flags, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(fd, backlog) != 0) {
    close(fd);
    throw std::runtime_error(std::string(who) + ": cannot listen");
  }
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  port = ntohs(address.sin_port);
  return fd;
}

}  // namespace proofload::testing
