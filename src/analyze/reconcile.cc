// The reconcile's verdict and its sentence (see reconcile.h). Stateless.
#include "analyze/reconcile.h"

#include <fmt/format.h>

#include <cmath>

#include "common/text.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {



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
  const std::string successes = words::given_text(static_cast<double>(r.client_successes));
  const std::string requests =
      r.client_successes == 1 ? " successful request" : " successful requests";
  if (*diff == 0) {
    return "the server recorded " + words::given_text(*delta) + " + 0 drops = " + successes +
           requests + ": exact";
  }
  if (*diff > 0) {
    const std::optional<double> share = r.drop_share();
    return "the server recorded " + words::given_text(*delta) + " of " + successes + requests +
           ": " + words::given_text(*diff) + (*diff == 1 ? " drop" : " drops") +
           (share ? " (" + words::percent_text(*share, 1) + ")" : "") + ", a mismatch";
  }
  return "the server recorded " + words::given_text(*delta) + ", " + words::given_text(-*diff) +
         " more than the client's " + successes + requests + ", a mismatch";
}

}  // namespace proofload::analyze
