// The Prometheus endpoint observer (see prom_sampler.h). One blocking connection per sample:
// the sampler thread has nothing else to do meanwhile, and a fresh connection each time means a
// restarted endpoint needs no reconnection logic. Every wait (connect, send, each read) is a
// poll() bounded by one deadline for the whole sample. Not thread-safe (one sampler thread).
#include "observe/prom_sampler.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/usage_error.h"
#include "http/response_parser.h"
#include "http/url.h"
#include "observe/prom_text.h"

namespace proofload::observe {
namespace {

constexpr std::string_view kPrefix = "prom:";
constexpr size_t kMaxBodyBytes = size_t{16} << 20;  // as the parser's bound
constexpr size_t kReadChunkBytes = 64 * 1024;

class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  void reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// Splits the URL's query into proofload's `match` prefixes and the rest, which is sent.
struct SplitSpec {
  std::string url;  // without `match`
  std::vector<std::string> prefixes;
};

SplitSpec split_match(std::string_view spec, std::string_view url) {
  SplitSpec split;
  url = url.substr(0, url.find('#'));  // never sent
  size_t question = url.find('?');
  split.url = std::string(url.substr(0, question));
  if (question == std::string_view::npos) return split;
  std::string_view query = url.substr(question + 1);
  std::string kept;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (param.substr(0, param.find('=')) != "match") {
      if (!param.empty()) kept += (kept.empty() ? "" : "&") + std::string(param);
      continue;
    }
    std::string_view list = param.size() > 6 ? param.substr(6) : std::string_view{};
    for (;;) {
      size_t comma = list.find(',');
      std::string_view prefix = list.substr(0, comma);
      if (prefix.empty()) {
        throw UsageError("observer '" + std::string(spec) +
                         "': empty prefix in ?match= (expected match=prefix[,prefix...])");
      }
      for (size_t i = 0; i < prefix.size(); ++i) {
        if (i == 0 ? !is_name_start(prefix[i]) : !is_name_char(prefix[i])) {
          throw UsageError(
              "observer '" + std::string(spec) + "': '" + std::string(prefix) +
              "' in ?match= is not the start of a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
        }
      }
      split.prefixes.emplace_back(prefix);
      if (comma == std::string_view::npos) break;
      list = list.substr(comma + 1);
    }
  }
  if (!kept.empty()) split.url += "?" + kept;
  return split;
}

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

// Resolved once at configuration: a name that does not resolve is a mistake to report before
// the run, and a resolver has no timeout of ours (it could stall the sampler thread).
std::vector<Address> resolve(std::string_view spec, const http::Url& url) {
  std::vector<Address> addresses;
  Address literal;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&literal.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&literal.storage);
  if (inet_pton(AF_INET, url.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(url.port);
    literal.length = sizeof(sockaddr_in);
    addresses.push_back(literal);
    return addresses;
  }
  if (inet_pton(AF_INET6, url.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(url.port);
    literal.length = sizeof(sockaddr_in6);
    addresses.push_back(literal);
    return addresses;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(url.host.c_str(), std::to_string(url.port).c_str(), &hints, &found);
  if (rc != 0) {
    throw UsageError("observer '" + std::string(spec) + "': cannot resolve host '" + url.host +
                     "': " + gai_strerror(rc));
  }
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Address address;
    std::memcpy(&address.storage, ai->ai_addr, ai->ai_addrlen);
    address.length = ai->ai_addrlen;
    addresses.push_back(address);
  }
  freeaddrinfo(found);
  if (addresses.empty()) {
    throw UsageError("observer '" + std::string(spec) + "': no address for host '" + url.host +
                     "'");
  }
  return addresses;
}

bool header_says_compressed(std::string_view headers) {
  constexpr std::string_view kName = "content-encoding:";
  size_t start = 0;
  while (start < headers.size()) {
    size_t end = headers.find("\r\n", start);
    if (end == std::string_view::npos) end = headers.size();
    std::string_view line = headers.substr(start, end - start);
    start = end + 2;
    if (line.size() < kName.size()) continue;
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i) {
      char c = line[i] >= 'A' && line[i] <= 'Z' ? static_cast<char>(line[i] - 'A' + 'a') : line[i];
      match = c == kName[i];
    }
    if (!match) continue;
    std::string_view value = line.substr(kName.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (!value.empty() && value != "identity") return true;
  }
  return false;
}

class PromSampler : public Sampler {
 public:
  PromSampler(std::string spec, const http::Url& url, std::vector<Address> addresses,
              std::vector<std::string> prefixes, int64_t timeout_ns)
      : spec_(std::move(spec)),
        authority_(url.host_header),
        addresses_(std::move(addresses)),
        timeout_ns_(timeout_ns),
        buffer_(kReadChunkBytes) {
    if (url.host_header.find(':') == std::string::npos) authority_ += ":80";
    request_ = "GET " + url.path_and_query + " HTTP/1.1\r\nHost: " + url.host_header +
               "\r\nUser-Agent: proofload/" PROOFLOAD_VERSION
               "\r\nAccept: text/plain;version=0.0.4\r\nAccept-Encoding: identity\r\n"
               "Connection: close\r\n\r\n";
    options_.max_bytes = kMaxBodyBytes;
    options_.family_prefixes = std::move(prefixes);
  }

  const std::string& spec() const override { return spec_; }

  Sample sample(int64_t now_ns) override {
    Sample sample;
    sample.at_ns = now_ns;
    const int64_t deadline_ns = monotonic_ns() + timeout_ns_;
    std::string error = fetch(deadline_ns);
    if (error.empty()) error = check_response();
    if (!error.empty()) {
      sample.ok = false;
      sample.error = std::move(error);
      return sample;
    }
    PromParseResult parsed = parse_prom_text(parser_.captured_body(), options_);
    if (parsed.valid_samples == 0) {
      sample.ok = false;
      sample.error = parsed.bad_lines == 0
                         ? "no series in the body (" +
                               std::to_string(parser_.captured_body().size()) + " bytes)"
                         : "no valid series in the body: " + std::to_string(parsed.bad_lines) +
                               " malformed lines, the first at " + parsed.first_bad;
      return sample;
    }
    sample.readings.reserve(parsed.series.size() + 2);
    for (PromSeries& series : parsed.series) {
      sample.readings.push_back(Reading{std::move(series.key), series.kind, series.value});
    }
    if (parsed.bad_lines > 0) {
      sample.readings.push_back(
          Reading{"prom_bad_lines", MetricKind::kGauge, static_cast<double>(parsed.bad_lines)});
    }
    if (!parsed.truncated.empty()) {
      sample.readings.push_back(Reading{"prom_truncated", MetricKind::kGauge, 1});
    }
    return sample;
  }

 private:
  // Milliseconds left for poll(), rounded up so that a wait never spins at 0; -1 when past.
  static int poll_ms_left(int64_t deadline_ns) {
    int64_t left_ns = deadline_ns - monotonic_ns();
    if (left_ns <= 0) return -1;
    return static_cast<int>((left_ns + kNsPerMs - 1) / kNsPerMs);
  }

  std::string timed_out(const char* while_doing) const {
    return "timed out after " + std::to_string(timeout_ns_ / kNsPerMs) + " ms " + while_doing;
  }

  // Waits until `fd` is ready for `events`; "" when it is, else the error.
  std::string wait_for(int fd, short events, int64_t deadline_ns, const char* while_doing) {
    for (;;) {
      int wait_ms = poll_ms_left(deadline_ns);
      if (wait_ms < 0) return timed_out(while_doing);
      pollfd pfd{fd, events, 0};
      int rc = poll(&pfd, 1, wait_ms);
      if (rc > 0) return "";
      if (rc < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
    }
  }

  // Connects to the first address that accepts; "" on success.
  std::string connect_any(UniqueFd& fd, int64_t deadline_ns) {
    std::string error;
    for (const Address& address : addresses_) {
      fd.reset(socket(address.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      if (fd.get() < 0) return std::string("socket: ") + std::strerror(errno);
      int rc =
          connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.storage), address.length);
      if (rc != 0 && errno != EINPROGRESS) {
        error = "connect to " + authority_ + ": " + std::strerror(errno);
        continue;
      }
      if (rc != 0) {
        std::string waited = wait_for(fd.get(), POLLOUT, deadline_ns, "connecting");
        if (!waited.empty()) return waited + " to " + authority_;
        int so_error = 0;
        socklen_t length = sizeof so_error;
        getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &length);
        if (so_error != 0) {
          error = "connect to " + authority_ + ": " + std::strerror(so_error);
          continue;
        }
      }
      // Blocking from here on: every read and write below follows a poll() that said ready.
      fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
      return "";
    }
    return error;
  }

  // One GET; "" when a whole response (or its first 16 MiB and a byte) is in parser_.
  std::string fetch(int64_t deadline_ns) {
    UniqueFd fd;
    std::string error = connect_any(fd, deadline_ns);
    if (!error.empty()) return error;
    size_t sent = 0;
    while (sent < request_.size()) {
      error = wait_for(fd.get(), POLLOUT, deadline_ns, "sending the request");
      if (!error.empty()) return error;
      ssize_t n = send(fd.get(), request_.data() + sent, request_.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::string("send: ") + std::strerror(errno);
      sent += static_cast<size_t>(n);
    }
    // A body one byte over the bound tells the parser it was cut.
    parser_.start(false, http::ResponseCapture{true, kMaxBodyBytes + 1});
    for (;;) {
      const bool any = parser_.received_any();
      error = wait_for(fd.get(), POLLIN, deadline_ns,
                       any ? "reading the response" : "waiting for the response");
      if (!error.empty()) return error;
      ssize_t n = recv(fd.get(), buffer_.data(), buffer_.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return std::string("read: ") + std::strerror(errno);
      http::ResponseParser::Result result =
          n == 0 ? parser_.finish_eof() : parser_.feed(buffer_.data(), static_cast<size_t>(n));
      if (result.state == http::ResponseParser::State::kComplete) return "";
      if (result.state == http::ResponseParser::State::kError) {
        return std::string("bad HTTP response: ") + parser_.error_reason();
      }
      if (n == 0) return "connection closed before a response";
      if (parser_.captured_body().size() > kMaxBodyBytes) return "";  // enough: cut here
    }
  }

  std::string check_response() const {
    if (parser_.status() != 200) {
      return "HTTP status " + std::to_string(parser_.status()) + " (expected 200)";
    }
    if (header_says_compressed(parser_.captured_headers())) {
      return "the body is compressed (Content-Encoding), though identity was asked for";
    }
    return "";
  }

  std::string spec_;
  std::string authority_;  // host:port, for errors
  std::vector<Address> addresses_;
  int64_t timeout_ns_;
  std::string request_;  // built once: the same GET every sample
  PromParseOptions options_;
  http::ResponseParser parser_;  // its buffers are reused from sample to sample
  std::vector<char> buffer_;
};

}  // namespace

int64_t prom_timeout_ns(int64_t period_ns) {
  if (period_ns <= 0) return kPromDefaultTimeoutNs;
  return std::min(kPromDefaultTimeoutNs, period_ns / 5 * 4);
}

std::unique_ptr<Sampler> make_prom_sampler(std::string_view spec, int64_t timeout_ns) {
  if (spec.substr(0, kPrefix.size()) != kPrefix) return nullptr;
  std::string_view url_text = spec.substr(kPrefix.size());
  if (url_text.empty()) {
    throw UsageError(
        "observer 'prom:' needs a URL: prom:http://host:port/metrics[?match=prefix,...]");
  }
  SplitSpec split = split_match(spec, url_text);
  http::Url url = http::parse_url(split.url);
  std::vector<Address> addresses = resolve(spec, url);
  return std::make_unique<PromSampler>(std::string(spec), url, std::move(addresses),
                                       std::move(split.prefixes),
                                       timeout_ns > 0 ? timeout_ns : kPromDefaultTimeoutNs);
}

}  // namespace proofload::observe
