// See reconcile_words.h.
#include "words/reconcile_words.h"

#include "words/numbers.h"

namespace proofload::words {

std::string reconcile_sentence(const analyze::Reconciliation& r) {
  const std::optional<double> delta = r.server_delta();
  const std::optional<double> diff = r.difference();
  if (!delta || !diff || r.verdict == analyze::kReconcileUnavailable) {
    return "not reconciled: the server's counter could not be read (" +
           (r.reason.empty() ? std::string("no reason recorded") : r.reason) + ")";
  }
  const std::string successes = given_text(static_cast<double>(r.client_successes));
  const std::string requests =
      r.client_successes == 1 ? " successful request" : " successful requests";
  if (*diff == 0) {
    return "the server recorded " + given_text(*delta) + " + 0 drops = " + successes + requests +
           ": exact";
  }
  if (*diff > 0) {
    const std::optional<double> share = r.drop_share();
    return "the server recorded " + given_text(*delta) + " of " + successes + requests + ": " +
           given_text(*diff) + (*diff == 1 ? " drop" : " drops") +
           (share ? " (" + percent_text(*share, 1) + ")" : "") + ", a mismatch";
  }
  return "the server recorded " + given_text(*delta) + ", " + given_text(-*diff) +
         " more than the client's " + successes + requests + ", a mismatch";
}

}  // namespace proofload::words
