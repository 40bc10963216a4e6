// A run's successes set against a count the server kept (`--reconcile`): how far the server's
// counter moved between a read before the load and one after it drained, the client's successes
// over the same stretch, their difference and the verdict (words/reconcile_words.h says it). A
// mismatch is a finding about the server (or the counter chosen), never a failure of the run. Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::analyze {

// The verdicts, spelled as result.json's summary.reconcile.verdict spells them.
inline constexpr std::string_view kReconcileExact = "exact";
inline constexpr std::string_view kReconcileMismatch = "mismatch";
inline constexpr std::string_view kReconcileUnavailable = "unavailable";

struct Reconciliation {
  std::string source;  // the --reconcile value as given: "prom:URL#metric" or a command
  // The counter's raw values: read just before the load started (after pre-flight and hooks) and
  // once it had drained. nullopt: that read failed (then the verdict is unavailable).
  std::optional<double> server_before;
  std::optional<double> server_after;
  // Successful requests of the whole run, warm-up included: the counter is read around the whole
  // load, because a read at the warm-up's end would race the requests then in flight.
  int64_t client_successes = 0;
  std::string verdict;  // kReconcileExact, kReconcileMismatch or kReconcileUnavailable
  std::string reason;   // unavailable: why the counter could not be read, in one line

  // server_after - server_before; nullopt when unavailable.
  std::optional<double> server_delta() const;
  // client_successes - server_delta: above 0, successes the server did not record (drops);
  // below 0, the server recorded more than the client saw succeed. nullopt when unavailable.
  std::optional<double> difference() const;
  // difference / client_successes (nullopt when unavailable or without successes).
  std::optional<double> drop_share() const;
  bool exact() const { return verdict == kReconcileExact; }
};

// The verdict of a counter read before and after: exact when the server's delta equals the
// client's successes to the unit, else mismatch; unavailable (with `after_error`) when the read
// after failed.
Reconciliation reconcile(std::string source, double server_before,
                         std::optional<double> server_after, std::string after_error,
                         int64_t client_successes);

}  // namespace proofload::analyze
