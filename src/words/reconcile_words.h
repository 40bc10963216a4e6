// A reconciliation's finding in words (analyze/reconcile.h holds its numbers). Pure; thread-safe.
#pragma once

#include <string>

#include "analyze/reconcile.h"

namespace proofload::words {

// "the server recorded 90,620 + 0 drops = 90,620 successful requests: exact", "the server
// recorded 3,370,000 of 3,803,859 successful requests: 433,859 drops (11.4%), a mismatch",
// "... 50 more than the client's 1,000 successful requests, a mismatch", "not reconciled: the
// counter could not be read after the run (why)".
std::string reconcile_sentence(const analyze::Reconciliation& r);

}  // namespace proofload::words
