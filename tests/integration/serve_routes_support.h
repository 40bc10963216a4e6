// Test support shared by serve_routes_test and serve_streams_test: routes files, `proofload run`
// summaries, a blocking HTTP/1.1 client on 127.0.0.1, Prometheus values, and the sampling error
// of percentiles. Single-threaded: each test uses its own clients.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace proofload::testing {

// Writes `yaml` to a fresh routes file and returns its path.
std::string write_routes(const std::string& name, const std::string& yaml);

// `proofload run <args>` with one worker and no live line; returns result.json's summary.
// Throws (failing the test with the run's stderr) if the run did not exit 0.
nlohmann::json run_load(const std::string& name, const std::vector<std::string>& args);

// The count summary[group][key] of a run_load summary; 0 if the key is absent.
int64_t count_of(const nlohmann::json& summary, const char* group, const char* key);

// One HTTP/1.1 answer read by HttpClient.
struct HttpAnswer {
  int status = 0;         // 0: the connection closed (or timed out) before a status line
  std::string head;       // status line and header lines
  std::string body;       // as delimited by Content-Length
  double elapsed_ms = 0;  // from just before the request was written to the answer's last byte
};

// A value of header `name` (any case) in `head`; "" if absent.
std::string header_value(const std::string& head, std::string name);

// A blocking socket connected to 127.0.0.1:port whose reads and writes wait at most 5 s.
int connect_loopback(int port);

// A blocking keep-alive connection to 127.0.0.1:port. Every read waits at most 5 s, so a test
// never hangs on a server that does not answer.
class HttpClient {
 public:
  explicit HttpClient(int port);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request (`headers`: whole "Name: value\r\n" lines) and reads its answer.
  HttpAnswer send(const std::string& method, const std::string& target,
                  const std::string& headers = "", const std::string& body = "");

 private:
  bool read_more();

  int fd_ = -1;
  std::string buffer_;  // bytes read and not yet returned
};

// One request on a connection of its own.
HttpAnswer http(int port, const std::string& method, const std::string& target,
                const std::string& headers = "");

// The value of a Prometheus series (`name{labels}` exactly as rendered); -1 if absent.
int64_t metric_value(const std::string& exposition, const std::string& series);

// Polls GET /admin/backlog until nothing is queued or being committed (the server offers no way
// to be told); false after 5 s.
bool wait_until_drained(HttpClient& client);

// P(Binomial(n, p) <= k).
double binomial_cdf(int64_t n, int64_t k, double p);

// Levels [lo, hi] of the true distribution between which the nearest-rank q-quantile of n
// independent draws falls, except with probability 1e-5 on each side (about 4.3 sigma).
struct LevelBand {
  double lo;
  double hi;
};
LevelBand quantile_level_band(double q, int64_t n);

// Phi^-1, by bisection on erfc: slow, exact enough, and independent of the server's own code.
double standard_normal_quantile(double p);

}  // namespace proofload::testing
