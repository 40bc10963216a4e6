// Test support shared by serve_routes_test and serve_streams_test (see serve_routes_support.h).
// Single-threaded: each test uses its own clients.
#include "serve_routes_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "process.h"

namespace proofload::testing {

using nlohmann::json;
using std::chrono::seconds;
using std::chrono::steady_clock;

// Writes `yaml` to a fresh routes file and returns its path.
std::string write_routes(const std::string& name, const std::string& yaml) {
  std::string path = make_temp_dir("routes-" + name) + "/routes.yaml";
  std::ofstream(path) << yaml;
  return path;
}

// `proofload run <args>` with one worker and no live line; returns result.json's summary.
// Throws (failing the test with the run's stderr) if the run did not exit 0.
json run_load(const std::string& name, const std::vector<std::string>& args) {
  std::string out = make_temp_dir("run-" + name);
  std::vector<std::string> command = {proofload_binary(), "run"};
  command.insert(command.end(), args.begin(), args.end());
  command.insert(command.end(), {"--workers", "1", "-q", "--out", out});
  Completed run = run_to_completion(command, seconds(60));
  if (run.exit_code != 0) {
    throw std::runtime_error("proofload run exited " + std::to_string(run.exit_code) + ": " +
                             run.err);
  }
  return json::parse(read_file(out + "/result.json"))["summary"];
}

// The count summary[group][key] of a run_load summary; 0 if the key is absent.
int64_t count_of(const json& summary, const char* group, const char* key) {
  return summary[group].value(key, int64_t{0});
}

// A value of header `name` (any case) in `head`; "" if absent.
std::string header_value(const std::string& head, std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  std::istringstream lines(head);
  for (std::string line; std::getline(lines, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    if (key != name) continue;
    size_t start = line.find_first_not_of(' ', colon + 1);
    size_t end = line.find_last_not_of("\r ");
    return start == std::string::npos || end < start ? "" : line.substr(start, end - start + 1);
  }
  return "";
}

// A blocking socket connected to 127.0.0.1:port whose reads and writes wait at most 5 s.
int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

HttpClient::HttpClient(int port) : fd_(connect_loopback(port)) {}

HttpClient::~HttpClient() { ::close(fd_); }

HttpAnswer HttpClient::send(const std::string& method, const std::string& target,
                            const std::string& headers, const std::string& body) {
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers +
                        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  HttpAnswer answer;
  auto start = steady_clock::now();
  if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return answer;
  }
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!read_more()) return answer;
  }
  answer.head = buffer_.substr(0, head_end + 2);
  if (answer.head.rfind("HTTP/1.", 0) == 0 && answer.head.size() >= 12) {
    answer.status = std::atoi(answer.head.c_str() + 9);
  }
  std::string length = header_value(answer.head, "Content-Length");
  size_t body_bytes = length.empty() ? 0 : std::stoul(length);
  while (buffer_.size() < head_end + 4 + body_bytes) {
    if (!read_more()) break;
  }
  answer.body = buffer_.substr(head_end + 4, body_bytes);
  buffer_.erase(0, std::min(buffer_.size(), head_end + 4 + body_bytes));
  answer.elapsed_ms =
      std::chrono::duration<double, std::milli>(steady_clock::now() - start).count();
  return answer;
}

bool HttpClient::read_more() {
  char chunk[16384];
  ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

// One request on a connection of its own.
HttpAnswer http(int port, const std::string& method, const std::string& target,
                const std::string& headers) {
  HttpClient client(port);
  return client.send(method, target, headers);
}

// The value of a Prometheus series (`name{labels}` exactly as rendered); -1 if absent.
int64_t metric_value(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stoll(line.substr(series.size() + 1));
  }
  return -1;
}

// Polls GET /admin/backlog until nothing is queued or being committed (the server offers no way
// to be told); false after 5 s.
bool wait_until_drained(HttpClient& client) {
  auto until = steady_clock::now() + seconds(5);
  while (steady_clock::now() < until) {
    HttpAnswer answer = client.send("GET", "/admin/backlog");
    if (answer.status != 200) return false;
    json counters = json::parse(answer.body);
    if (counters["backlog"] == 0 && counters.value("in_progress", 0) == 0) return true;
    ::poll(nullptr, 0, 5);
  }
  return false;
}

// P(Binomial(n, p) <= k).
double binomial_cdf(int64_t n, int64_t k, double p) {
  double sum = 0;
  for (int64_t i = 0; i <= k; ++i) {
    double log_pmf = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                     static_cast<double>(i) * std::log(p) +
                     static_cast<double>(n - i) * std::log1p(-p);
    sum += std::exp(log_pmf);
  }
  return std::min(sum, 1.0);
}

// Levels [lo, hi] of the true distribution between which the nearest-rank q-quantile of n
// independent draws falls, except with probability 1e-5 on each side (about 4.3 sigma). The
// draw of rank r = ceil(q n) lies above the true p-quantile only if fewer than r draws fall
// below it, P(Bin(n, p) <= r - 1); below it only with the complement.
LevelBand quantile_level_band(double q, int64_t n) {
  constexpr double kTail = 1e-5;
  const int64_t r = static_cast<int64_t>(std::ceil(q * static_cast<double>(n) - 1e-9));
  auto above = [&](double p) { return binomial_cdf(n, r - 1, p); };  // falls as p grows
  double low = q;  // hi: the smallest level whose quantile the draw exceeds but rarely
  double high = 1 - 1e-12;
  for (int i = 0; i < 60; ++i) {
    double mid = (low + high) / 2;
    (above(mid) <= kTail ? high : low) = mid;
  }
  LevelBand band{0, high};
  low = 1e-12;  // lo: the largest level whose quantile the draw falls short of but rarely
  high = q;
  for (int i = 0; i < 60; ++i) {
    double mid = (low + high) / 2;
    (1 - above(mid) <= kTail ? low : high) = mid;
  }
  band.lo = low;
  return band;
}

// Phi^-1, by bisection on erfc: slow, exact enough, and independent of the server's own code.
double standard_normal_quantile(double p) {
  double a = -12;
  double b = 12;
  for (int i = 0; i < 100; ++i) {
    double mid = (a + b) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? a : b) = mid;
  }
  return (a + b) / 2;
}

}  // namespace proofload::testing
