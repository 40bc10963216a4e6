// See segment_flags.h.
#include "cli/segment_flags.h"

#include <charconv>

#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "common/wall_time.h"

namespace proofload::cli {
namespace {

constexpr int64_t kLatestPastNs = int64_t{24} * 3600 * kNsPerS;
constexpr int64_t kFurthestAheadNs = int64_t{366} * 24 * 3600 * kNsPerS;

bool parse_int(std::string_view text, int& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

void add_segment_flags(CLI::App* app, RunFlags& flags) {
  const char* group = "Several machines (docs/distributed.md)";
  app->add_option("--segment", flags.segment,
                  "Run segment I of N of this load (I from 0 to N-1): its exact share of the "
                  "connections, arrivals, -n, data rows and sources; merge the N results with "
                  "`proofload merge`")
      ->group(group);
  app->add_option("--start-at", flags.start_at,
                  "Start the load at this wall-clock time, RFC 3339 (2026-12-03T10:00:00Z) or "
                  "+DURATION from now (+30s): every segment starts together")
      ->group(group);
}

void parse_segment(const std::string& text, int& index, int& count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || !parse_int(std::string_view(text).substr(0, slash), index) ||
      !parse_int(std::string_view(text).substr(slash + 1), count)) {
    throw UsageError("--segment '" + text + "': expected I/N, such as 0/3 (I from 0 to N-1)");
  }
}

int64_t parse_start_at(const std::string& text, int64_t now_wall_ns) {
  int64_t at = 0;
  if (text.starts_with('+')) {
    try {
      at = now_wall_ns + parse_duration_ns(std::string_view(text).substr(1));
    } catch (const UsageError&) {
      throw UsageError("--start-at '" + text + "': expected +DURATION such as +30s");
    }
  } else if (const std::optional<int64_t> parsed = parse_rfc3339_unix_ns(text)) {
    at = *parsed;
  } else {
    throw UsageError("--start-at '" + text +
                     "': expected an RFC 3339 time (2026-12-03T10:00:00Z) or +DURATION (+30s)");
  }
  if (at < now_wall_ns - kLatestPastNs) {
    throw UsageError("--start-at '" + text + "' is more than a day ago");
  }
  if (at > now_wall_ns + kFurthestAheadNs) {
    throw UsageError("--start-at '" + text + "' is more than a year ahead");
  }
  return at;
}

void apply_segment_flags(const RunFlags& flags, plan::RunSpec& spec) {
  if (flags.segment) parse_segment(*flags.segment, spec.segment, spec.segments);
  if (flags.start_at) spec.start_at_wall_ns = parse_start_at(*flags.start_at, wall_clock_ns());
}

}  // namespace proofload::cli
