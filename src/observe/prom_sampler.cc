// The Prometheus endpoint observer (see prom_sampler.h). One blocking exchange per sample
// (http/blocking_client.h): the sampler thread has nothing else to do meanwhile, and a fresh
// connection each time means a restarted endpoint needs no reconnection logic; one deadline
// bounds the whole sample. Not thread-safe (one sampler thread).
#include "observe/prom_sampler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"
#include "http/blocking_client.h"
#include "http/response_parser.h"
#include "http/url.h"
#include "observe/prom_limits.h"
#include "observe/prom_text.h"

namespace proofload::observe {
namespace {

constexpr std::string_view kPrefix = "prom:";
constexpr size_t kMaxBodyBytes = kPromBodySizeLimitBytes;

// Keys looked up by string_view: a series already kept is found without a copy.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
};

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
        if (i == 0 ? !is_metric_name_start(prefix[i]) : !is_metric_name_char(prefix[i])) {
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

// Resolved once at configuration: a name that does not resolve is a mistake to report before
// the run, and a resolver has no timeout of ours (it could stall the sampler thread).
std::vector<http::SocketAddress> resolve(std::string_view spec, const http::Url& url) {
  try {
    return http::resolve_addresses(url.host, url.port);
  } catch (const UsageError& error) {
    throw UsageError("observer '" + std::string(spec) + "': " + error.what());
  }
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
  PromSampler(std::string spec, const http::Url& url, std::vector<http::SocketAddress> addresses,
              std::vector<std::string> prefixes, int64_t timeout_ns,
              std::unique_ptr<net::TlsContext> tls)
      : spec_(std::move(spec)),
        authority_(url.host_header),
        addresses_(std::move(addresses)),
        timeout_ns_(timeout_ns),
        tls_(std::move(tls)) {
    if (url.host_header.find(':') == std::string::npos) {
      authority_ += ":" + std::to_string(url.port);
    }
    request_ = "GET " + url.path_and_query + " HTTP/1.1\r\nHost: " + url.host_header +
               "\r\nUser-Agent: proofload/" PROOFLOAD_VERSION
               "\r\nAccept: text/plain;version=0.0.4\r\nAccept-Encoding: identity\r\n"
               "Connection: close\r\n\r\n";
    options_.family_prefixes = std::move(prefixes);
    // The series cap is over the run, not the scrape: the series kept first stay kept, so an
    // endpoint that churns new labels every scrape neither grows the run nor pushes them out.
    options_.admit = [this](std::string_view key) {
      if (kept_series_.find(key) != kept_series_.end()) return true;
      if (kept_series_.size() >= kPromSeriesLimit) return false;
      kept_series_.emplace(key);
      return true;
    };
  }

  const std::string& spec() const override { return spec_; }

  Sample sample(int64_t now_ns) override {
    Sample sample;
    sample.at_ns = now_ns;
    const int64_t deadline_ns = monotonic_ns() + timeout_ns_;
    std::string error = fetch(deadline_ns);
    if (error.empty()) error = check_response();
    if (error.empty() && parser_.captured_body().size() > kMaxBodyBytes) {
      ++scrapes_over_body_limit_;
      error = "the body passed the body_size_limit of " + std::to_string(kMaxBodyBytes >> 20) +
              " MiB: the scrape was skipped";
    }
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
      if (parsed.long_series > 0) {
        sample.error += "; " + std::to_string(parsed.long_series) + " series over the " +
                        std::to_string(kPromSeriesKeyLimitBytes) + "-byte key limit skipped";
      }
      return sample;
    }
    sample.readings.reserve(parsed.series.size() + 4);
    for (PromSeries& series : parsed.series) {
      sample.readings.push_back(Reading{std::move(series.key), series.kind, series.value});
    }
    if (parsed.bad_lines > 0) {
      sample.readings.push_back(
          Reading{"prom_bad_lines", MetricKind::kGauge, static_cast<double>(parsed.bad_lines)});
    }
    // What the limits (prom_limits.h) left out, as gauges so that a window's peak and the run's
    // end show it; only when there is something to say, as for bad lines.
    auto say = [&](const char* name, size_t count) {
      if (count > 0) {
        sample.readings.push_back(Reading{name, MetricKind::kGauge, static_cast<double>(count)});
      }
    };
    say(kPromSeriesNotKept, parsed.not_admitted);
    say(kPromSeriesTooLong, parsed.long_series);
    say(kPromScrapesOverBodyLimit, scrapes_over_body_limit_);
    return sample;
  }

 private:
  // One GET; "" when a whole response (or its first kMaxBodyBytes and a byte) is in parser_.
  std::string fetch(int64_t deadline_ns) {
    // A body one byte over the bound tells the parser it was cut.
    parser_.start(false, http::ResponseCapture{true, kMaxBodyBytes + 1});
    http::ExchangeLimits limits;
    limits.enough = [](const http::ResponseParser& p) {
      return p.captured_body().size() > kMaxBodyBytes;  // enough: cut here
    };
    const http::Exchange done =
        http::exchange(addresses_, request_, parser_, deadline_ns, limits, tls_.get());
    using Failure = http::Exchange::Failure;
    using Stage = http::Exchange::Stage;
    const std::string reason = std::strerror(done.error_number);
    switch (done.failure) {
      case Failure::kNone:
        return "";
      case Failure::kSocket:
        return "socket: " + reason;
      case Failure::kConnect:
        return "connect to " + authority_ + ": " + reason;
      case Failure::kPoll:
        return "poll: " + reason;
      case Failure::kSend:
        return "send: " + reason;
      case Failure::kRead:
        return "read: " + reason;
      case Failure::kBadResponse:
        return std::string("bad HTTP response: ") + parser_.error_reason();
      case Failure::kTls:
        return "TLS with " + authority_ + ": " + done.tls_reason;
      case Failure::kCancelled:
        return "interrupted";
      case Failure::kClosed:
      case Failure::kOversized:
        return "connection closed before a response";
      case Failure::kTimedOut:
        break;
    }
    const std::string timed_out =
        "timed out after " + std::to_string(timeout_ns_ / kNsPerMs) + " ms ";
    switch (done.stage) {
      case Stage::kConnecting:
        return timed_out + "connecting to " + authority_;
      case Stage::kHandshaking:
        return timed_out + "in the TLS handshake with " + authority_;
      case Stage::kSending:
        return timed_out + "sending the request";
      case Stage::kWaiting:
        return timed_out + "waiting for the response";
      case Stage::kReading:
        break;
    }
    return timed_out + "reading the response";
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
  std::vector<http::SocketAddress> addresses_;
  int64_t timeout_ns_;
  std::unique_ptr<net::TlsContext> tls_;  // https only
  std::string request_;                   // built once: the same GET every sample
  PromParseOptions options_;
  http::ResponseParser parser_;  // its buffers are reused from sample to sample
  // Every series kept so far (at most kPromSeriesLimit), for options_.admit.
  std::unordered_set<std::string, KeyHash, std::equal_to<>> kept_series_;
  size_t scrapes_over_body_limit_ = 0;  // since the sampler was made
};

}  // namespace

int64_t prom_timeout_ns(int64_t period_ns) {
  if (period_ns <= 0) return kPromDefaultTimeoutNs;
  return std::min(kPromDefaultTimeoutNs, period_ns / 5 * 4);
}

namespace {

// The spec's URL and match list, as written (nothing resolved).
struct PromSpec {
  SplitSpec split;
  http::Url url;
};

PromSpec parse_prom_spec(std::string_view spec) {
  std::string_view url_text = spec.substr(kPrefix.size());
  if (url_text.empty()) {
    throw UsageError(
        "observer 'prom:' needs a URL: prom:http://host:port/metrics[?match=prefix,...]");
  }
  PromSpec parsed;
  parsed.split = split_match(spec, url_text);
  parsed.url = http::parse_url(parsed.split.url);
  return parsed;
}

}  // namespace

void check_prom_spec(std::string_view spec) { parse_prom_spec(spec); }

std::unique_ptr<Sampler> make_prom_sampler(std::string_view spec, int64_t timeout_ns,
                                           const net::TlsOptions& trust) {
  if (spec.substr(0, kPrefix.size()) != kPrefix) return nullptr;
  auto [split, url] = parse_prom_spec(spec);
  std::vector<http::SocketAddress> addresses = resolve(spec, url);
  std::unique_ptr<net::TlsContext> tls;
  if (url.tls()) {
    try {
      tls = std::make_unique<net::TlsContext>(net::trust_of(trust), url.host);
    } catch (const UsageError& error) {
      throw UsageError("observer '" + std::string(spec) + "': " + error.what());
    }
  }
  return std::make_unique<PromSampler>(
      std::string(spec), url, std::move(addresses), std::move(split.prefixes),
      timeout_ns > 0 ? timeout_ns : kPromDefaultTimeoutNs, std::move(tls));
}

}  // namespace proofload::observe
