// What the rate limit did to one source address's requests in one window: the probe's
// per-second counts (experiments/probe.h). A run whose connections are bound to several local
// addresses (LoadSpec::sources) has one worker per address, and each worker fills its own entry
// of WindowStats::sources; merging the workers' windows puts them side by side.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::measure {

// A rate-limit header (Retry-After, RateLimit-*, X-RateLimit-*): its first and last values.
struct LimitHeader {
  std::string name;  // as first received
  std::string first;
  std::string last;
  bool operator==(const LimitHeader&) const = default;
};

// A hostile server cannot grow these: a few names per source, values cut at this length.
constexpr size_t kMaxLimitHeaders = 8;
constexpr size_t kMaxLimitHeaderValueBytes = 128;

// Is this header one a probe keeps? Retry-After, and names beginning RateLimit or X-RateLimit
// (the IETF drafts' RateLimit-Limit/-Remaining/-Reset/-Policy and the older X- forms), any case.
bool is_limit_header(std::string_view name);

// Notes the header lines of one response ("Name: value\r\n" each) in `seen`: a new name is added
// with its value as first and last (up to kMaxLimitHeaders names), a known one gets a new last.
void note_limit_headers(std::string_view header_lines, std::vector<LimitHeader>& seen);

struct SourceWindow {
  int64_t let_through = 0;  // 2xx answers
  int64_t limited = 0;      // 429 answers
  int64_t other = 0;        // every other ended request
  // Set in the window of the source's first 429: the 2xx answers it had before it.
  std::optional<int64_t> let_through_before_first_429;
  // The rate-limit headers seen from the start of the run to this window's end (a snapshot).
  std::vector<LimitHeader> headers;

  void merge(const SourceWindow& other);
};

}  // namespace proofload::measure
