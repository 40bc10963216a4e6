// A `--stream` run's Streams section of summary.md (see run_sections.h): how the streams ended,
// and of those completed, events, bytes and tokens per second and their times from the intended
// start, with what the rates count said.
#include <fmt/format.h>

#include "report/markdown_text.h"
#include "report/run_sections.h"
#include "words/numbers.h"

namespace proofload::report::run {
namespace {

using markdown::table_row;
using words::percent_text;

std::string ms_cell(const RunRecord& v, const std::optional<double>& ms) {
  return ms ? ms_number(v, "", *ms) : std::string("–");
}

std::string count_cell(const std::optional<int64_t>& n) {
  return n ? count_or_dash(static_cast<double>(*n)) : std::string("–");
}

// By named request, when a scenario's requests stream.
std::string named_streams_table(const RunRecord& v) {
  std::string out;
  for (const result::NamedRequest& n : v.named) {
    if (!n.streams) continue;
    const result::StreamsRecord& s = *n.streams;
    if (out.empty()) {
      out = "\n" + table_row({"request", "completed", "not completed", "events/s", "tokens/s",
                              "first token p50", "first token p99", "inter-token p99"});
      out += table_row({"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
    }
    const auto rate = [&](const std::optional<double>& r) {
      return r ? rps_number(v, "", *r) : std::string("–");
    };
    out += table_row({n.name, count_cell(s.completed),
                      count_or_dash(static_cast<double>(s.not_completed())),
                      rate(s.events_per_s), rate(s.tokens_per_s), ms_cell(v, s.ttfce.p50),
                      ms_cell(v, s.ttfce.p99), ms_cell(v, s.inter_event.p99)});
  }
  return out;
}

}  // namespace

std::string streams_table(const RunRecord& v) {
  if (!v.streams) return "";
  const result::StreamsRecord& s = *v.streams;
  std::string out = "## Streams\n\n";
  out += table_row({"completed", "cut short", "idle past the timeout", "malformed",
                    "not the fixture", "events/s", "bytes/s", "tokens/s"});
  out += table_row({"---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"});
  const auto rate = [&](const std::optional<double>& r) {
    return r ? rps_number(v, "", *r) : std::string("–");
  };
  out += table_row({count_cell(s.completed), count_cell(s.cut_short), count_cell(s.idle_timeout),
                    count_cell(s.malformed), count_cell(s.fixture_mismatch),
                    rate(s.events_per_s), rate(s.bytes_per_s), rate(s.tokens_per_s)});
  out += "\n" + table_row({"ms from the intended start", "p50", "p90", "p99", "max"});
  out += table_row({"---", "---:", "---:", "---:", "---:"});
  const std::pair<const char*, const Latency*> rows[] = {
      {"first byte of the body", &s.ttfb},
      {"first event", &s.ttfe},
      {"first content event (time to first token)", &s.ttfce},
      {"between content events (inter-token)", &s.inter_event},
      {"per output token after the first", &s.tpot},
      {"whole stream", &s.duration}};
  for (const auto& [label, l] : rows) {
    out += table_row({label, ms_cell(v, l->p50), ms_cell(v, l->p90), ms_cell(v, l->p99),
                      ms_cell(v, l->max)});
  }
  if (!s.goodput_slo.empty()) {
    const int64_t ended = s.completed.value_or(0) + s.not_completed();
    out += fmt::format("\n**Goodput:** {} of {} streams{} met `{}`{}.\n", count_cell(s.goodput),
                       count_or_dash(static_cast<double>(ended)),
                       s.goodput_share ? " (" + percent_text(*s.goodput_share, 1) + ")" : "",
                       s.goodput_slo,
                       s.goodput_per_s ? ", " + rps_number(v, "", *s.goodput_per_s) + " per second"
                                       : "");
  }
  out += named_streams_table(v);
  out +=
      "\nA stream is complete when it ended as configured (its terminator came, or its body "
      "ended when no terminator is set); one cut short, malformed or unlike its fixture is "
      "counted apart. Events, bytes and tokens per second count completed streams only, per "
      "second of the measured span; times are of completed streams, except the gaps between "
      "content events, which are of every stream as they came. Tokens are the server's own "
      "count when a pointer names it, else one per content event.\n\n";
  return out;
}

}  // namespace proofload::report::run
