// Where `--reconcile SOURCE` reads the server's own count, before the load and after it drained:
// `prom:URL#METRIC` reads a Prometheus endpoint (one scrape by the `prom:` observer's sampler) and
// sums the series of METRIC that carry the labels given (`name{route="/x"}`: every series of that
// name whose route is "/x", whatever its other labels); any other value is a shell command
// (`/bin/sh -c`) whose standard output's first number is the count. Both are bounded by a
// timeout. A ReconcileCounter is used by one thread at a time (not thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/tls.h"
#include "observe/sampler.h"

namespace proofload::observe {

// A read, the scrape or the command included, takes at most this long.
constexpr int64_t kReconcileReadTimeoutNs = int64_t{10} * 1'000'000'000;
// How long the read after a run waits for the count to reach the client's, and its step.
constexpr int64_t kReconcileSettleNs = int64_t{1'000'000'000};
constexpr int64_t kSettleStepNs = 100'000'000;

// Which series of an exposition are summed: METRIC's name and the labels each must carry, their
// values escaped as the exposition writes them (\\, \", \n).
struct SeriesSelector {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  std::string text() const;  // `name{a="b"}`, or `name` without labels
};

struct ReconcileSpec {
  std::string text;  // as given
  bool prometheus = false;
  std::string endpoint;  // prometheus: `prom:URL`, the fragment taken off
  SeriesSelector selector;
  std::string command;  // otherwise: the shell command
};

// Reads `--reconcile`'s value. UsageError (one line, naming the flag) for an empty value, a
// `prom:` one without `#METRIC` or with a metric that is not `name` or `name{label="value",...}`.
ReconcileSpec parse_reconcile_spec(std::string_view text);

// A series key as the exposition parser writes it (`name{a="b",c="d"}`) into its name and its
// labels; nullopt for text that is not one.
std::optional<SeriesSelector> split_series_key(std::string_view key);

// The count in a sample: the sum of the readings `selector` matches, 0 when none does (a
// counter's series appears with its first increment). `matched` is set to how many did.
double sum_matching(const std::vector<Reading>& readings, const SeriesSelector& selector,
                    size_t& matched);

// The first number in a command's output: a decimal (sign, point and exponent allowed) that does
// not continue a word ("v2" is no number); nullopt when there is none.
std::optional<double> first_number(std::string_view text);

// One read: the count, or why there is none (one line).
struct CounterRead {
  std::optional<double> value;
  std::string error;
};

class ReconcileCounter {
 public:
  // A prom: endpoint's URL is checked and its host resolved here (UsageError, one line).
  // `trust`: how an https endpoint is verified (the run's --cacert, --insecure).
  explicit ReconcileCounter(ReconcileSpec spec, const net::TlsOptions& trust = {},
                            int64_t timeout_ns = kReconcileReadTimeoutNs);
  ~ReconcileCounter();
  ReconcileCounter(ReconcileCounter&&) noexcept;
  ReconcileCounter& operator=(ReconcileCounter&&) noexcept;

  // Never throws. `require_series`: a scrape where no series matches is an error (after the run,
  // when the metric must exist), not 0 (before it, when it may not yet).
  CounterRead read(bool require_series);
  // After the run: reads until the value is `expected` or `settle_ns` has passed since the first
  // read (again every kSettleStepNs), and returns the last read. A server may count an answer a
  // moment after sending it (a stream's end, a row its writer commits in batches), so a first read
  // that falls short is not yet a finding; a count that stays different is.
  CounterRead read_settled(double expected, int64_t settle_ns);
  const ReconcileSpec& spec() const { return spec_; }

 private:
  CounterRead read_prometheus(bool require_series);
  CounterRead read_command();

  ReconcileSpec spec_;
  int64_t timeout_ns_;
  std::unique_ptr<Sampler> scraper_;  // prometheus only
};

}  // namespace proofload::observe
