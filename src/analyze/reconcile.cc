// The reconcile's verdict and its sentence (see reconcile.h). Stateless.
#include "analyze/reconcile.h"

#include <fmt/format.h>

#include <cmath>

#include "common/text.h"

namespace proofload::analyze {
namespace {

// A counter's value in a sentence: whole numbers with thousands separators (counters are), any
// other value with the decimals it needs, up to 3.
std::string count_words(double value) {
  if (value == std::trunc(value) && std::abs(value) < 9e15) {
    return group_thousands(fmt::format("{:.0f}", value));
  }
  std::string text = fmt::format("{:.3f}", value);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return group_thousands(text);
}

// A share as a percentage with one decimal, more when one would print 0.0% for a drop.
std::string share_words(double share) {
  const double percent = share * 100;
  for (int decimals = 1; decimals < 6; ++decimals) {
    if (std::round(percent * std::pow(10, decimals)) != 0) {
      return fmt::format("{:.{}f}%", percent, decimals);
    }
  }
  return fmt::format("{:.6f}%", percent);
}

}  // namespace

std::optional<double> Reconciliation::server_delta() const {
  if (!server_before || !server_after) return std::nullopt;
  return *server_after - *server_before;
}

std::optional<double> Reconciliation::difference() const {
  const std::optional<double> delta = server_delta();
  if (!delta) return std::nullopt;
  return static_cast<double>(client_successes) - *delta;
}

std::optional<double> Reconciliation::drop_share() const {
  const std::optional<double> diff = difference();
  if (!diff || client_successes == 0) return std::nullopt;
  return *diff / static_cast<double>(client_successes);
}

Reconciliation reconcile(std::string source, double server_before,
                         std::optional<double> server_after, std::string after_error,
                         int64_t client_successes) {
  Reconciliation r;
  r.source = std::move(source);
  r.server_before = server_before;
  r.server_after = server_after;
  r.client_successes = client_successes;
  if (!server_after) {
    r.verdict = kReconcileUnavailable;
    r.reason = after_error.empty() ? "the counter was not read after the run" : after_error;
    return r;
  }
  r.verdict = *r.difference() == 0 ? kReconcileExact : kReconcileMismatch;
  return r;
}

std::string reconcile_sentence(const Reconciliation& r) {
  const std::optional<double> delta = r.server_delta();
  const std::optional<double> diff = r.difference();
  if (!delta || !diff || r.verdict == kReconcileUnavailable) {
    return "not reconciled: the server's counter could not be read (" +
           (r.reason.empty() ? std::string("no reason recorded") : r.reason) + ")";
  }
  const std::string successes = count_words(static_cast<double>(r.client_successes));
  const std::string requests =
      r.client_successes == 1 ? " successful request" : " successful requests";
  if (*diff == 0) {
    return "the server recorded " + count_words(*delta) + " + 0 drops = " + successes + requests +
           ": exact";
  }
  if (*diff > 0) {
    const std::optional<double> share = r.drop_share();
    return "the server recorded " + count_words(*delta) + " of " + successes + requests + ": " +
           count_words(*diff) + (*diff == 1 ? " drop" : " drops") +
           (share ? " (" + share_words(*share) + ")" : "") + ", a mismatch";
  }
  return "the server recorded " + count_words(*delta) + ", " + count_words(-*diff) +
         " more than the client's " + successes + requests + ", a mismatch";
}

}  // namespace proofload::analyze
