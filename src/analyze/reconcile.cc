// The reconcile's verdict and its sentence (see reconcile.h). Stateless.
#include "analyze/reconcile.h"

#include <fmt/format.h>

#include <cmath>

#include "common/text.h"

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

}  // namespace proofload::analyze
