// A streaming ladder's "Streams by level" table in summary.md: the reference streaming report's
// ramp table (requests/s, events/s, bytes/s, tokens/s, p50, first-byte p95, server CPU and
// memory, accounting) with the first token's p95, the inter-token p99 and the goodput beside,
// one line per recorded run. Shown only when a level streamed.
#include <fmt/format.h>

#include <algorithm>

#include "report/ladder_sections.h"
#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
namespace {

std::string number_or_dash(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : std::string(kNotMeasured);
}

std::string rate_or_dash(const std::optional<double>& value) {
  return value ? rate_number(*value) : std::string(kNotMeasured);
}

std::string mib_or_dash(const std::optional<double>& bytes) {
  return bytes ? fixed(*bytes / (1024.0 * 1024.0), 1) + " MiB" : std::string(kNotMeasured);
}

std::string accounting(const analyze::LevelRow& r) {
  if (r.reconcile.empty()) return std::string(kNotMeasured);
  if (r.reconcile != "mismatch" || !r.drop_share) return r.reconcile;
  return "mismatch (" + percent_text(*r.drop_share, 1) + " dropped)";
}

}  // namespace

std::string streams_by_level(const LadderResult& v) {
  const bool streamed = std::any_of(v.rows.begin(), v.rows.end(), [](const auto& row) {
    return row.figures.streams.has_value();
  });
  if (!streamed) return "";
  std::string out = "## Streams by level\n\n";
  out += table_row({"level", "requests/s", "events/s", "bytes/s", "tokens/s", "p50 ms",
                    "headers p95 ms", "first byte p95 ms", "first token p95 ms",
                    "inter-token p99 ms", "goodput", "server cores", "server RSS", "accounting"});
  out += table_row({"---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:",
                    "---:", "---:", "---:", "---"});
  for (const auto& row : v.rows) {
    const analyze::LevelRow& r = row.figures;
    const analyze::LevelStreams s = r.streams.value_or(analyze::LevelStreams{});
    out += table_row(
        {level_text(r.level), rate_number(r.achieved_rps), rate_or_dash(s.events_per_s),
         rate_or_dash(s.bytes_per_s), rate_or_dash(s.tokens_per_s), number_or_dash(r.p50_ms, 1),
         number_or_dash(s.headers_p95_ms, 1), number_or_dash(s.ttfb_p95_ms, 1),
         number_or_dash(s.ttft_p95_ms, 1), number_or_dash(s.itl_p99_ms, 1),
         s.goodput_share ? percent_text(*s.goodput_share, 1) : std::string(kNotMeasured),
         r.server_cores ? cores_text(*r.server_cores) : std::string(kNotMeasured),
         mib_or_dash(r.server_rss_bytes), accounting(r)});
  }
  out +=
      "\nEvents, bytes and tokens per second count completed streams (those that matched their "
      "fixture, when one is checked); headers: from the request's first byte written to the "
      "response's first byte (the server's time to answer); the other times are from each "
      "request's intended start, first byte being the body's; goodput is "
      "the share of the streams that ended which met `--goodput`; accounting is `--reconcile`'s "
      "verdict. Server figures need an observer of the server (`--observe`).\n\n";
  return out;
}

}  // namespace proofload::report::ladder
