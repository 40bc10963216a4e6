// A `--reconcile` run's summary.md parts (see run_sections.h): its row of the short version and a
// Reconciled with the server section stating what the server counted against the client's
// successes as a finding, exact or not.
#include "analyze/reconcile.h"
#include "report/markdown_text.h"
#include "report/run_sections.h"
#include "words/numbers.h"
#include "words/reconcile_words.h"

namespace proofload::report::run {
namespace {

using markdown::inline_code;
using markdown::kNotMeasured;
using markdown::table_cell;
using markdown::table_row;
using words::capitalized;
using words::count_text;

std::string count_cell(const std::optional<double>& value) {
  return value ? count_text(*value) : std::string(kNotMeasured);
}

}  // namespace

std::optional<std::vector<std::string>> reconcile_row(const RunRecord& v) {
  if (!v.reconcile) return std::nullopt;
  const analyze::Reconciliation& r = *v.reconcile;
  std::string answer;
  if (r.exact()) {
    answer = "Yes: exact, " + count_text(static_cast<double>(r.client_successes)) + " of " +
             count_text(static_cast<double>(r.client_successes));
  } else if (r.verdict == analyze::kReconcileMismatch) {
    answer = "No: " + words::reconcile_sentence(r);
  } else {
    answer = "Not measured: " + words::reconcile_sentence(r);
  }
  return std::vector<std::string>{"Did the server count every success?", table_cell(answer),
                                  "its counter before and after the run (Reconciled with the "
                                  "server)"};
}

std::string reconcile_section(const RunRecord& v) {
  if (!v.reconcile) return "";
  const analyze::Reconciliation& r = *v.reconcile;
  std::string out = "## Reconciled with the server\n\n";
  out += capitalized(words::reconcile_sentence(r)) + ".\n\n";
  out += table_row({"source", "server before", "server after", "server counted", "client successes",
                    "difference", "verdict"});
  out += table_row({"---", "---:", "---:", "---:", "---:", "---:", "---"});
  out +=
      table_row({inline_code(r.source), count_cell(r.server_before), count_cell(r.server_after),
                 count_cell(r.server_delta()), count_text(static_cast<double>(r.client_successes)),
                 count_cell(r.difference()), r.verdict});
  out +=
      "\nThe counter was read just before the load started and again once every request had "
      "ended, so the client's successes are those of the whole run, warm-up included. The "
      "difference is the client's successes less what the server counted: above 0, successes "
      "the server did not record (drops); below 0, the server counted more than the client saw "
      "succeed. A mismatch is a finding about the server, or about the counter chosen, not a "
      "failure of the run.\n\n";
  return out;
}

}  // namespace proofload::report::run
