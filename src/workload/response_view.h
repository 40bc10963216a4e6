// What the engine hands to checks and extractions after a response: borrowed views into the
// connection's buffers, valid only until that connection reads again. Plain data; the views are
// as thread-safe as the buffers they point into (in practice: one engine thread).
#pragma once

#include <optional>
#include <string_view>

#include "common/text.h"

namespace proofload::workload {

struct ResponseView {
  int status = 0;
  std::string_view headers;  // raw header lines as received: "Name: value\r\n..." (no status line)
  std::string_view body;     // de-chunked body bytes, at most the capture cap
  // The body was longer than the cap. Checks on the body cannot be trusted then: they fail with
  // CheckResult::kBodyTruncated (except `body contains`, which passes when the text is in the
  // captured part), and body extractions find nothing.
  bool body_truncated = false;
};

namespace header_text {

using proofload::ascii_iequals;
using proofload::ascii_lower;
using proofload::trim_spaces_tabs;

}  // namespace header_text

// The first header named `name` (ASCII case-insensitive), its value with surrounding spaces and
// tabs trimmed. Lines may end in "\r\n" or "\n"; lines without a colon (and obsolete folded
// continuation lines) are skipped, never matched. No allocation.
constexpr std::optional<std::string_view> find_header(std::string_view headers,
                                                      std::string_view name) {
  while (!headers.empty()) {
    const size_t eol = headers.find('\n');
    std::string_view line = headers.substr(0, eol);
    headers = eol == std::string_view::npos ? std::string_view() : headers.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (header_text::ascii_iequals(line.substr(0, colon), name)) {
      return header_text::trim_spaces_tabs(line.substr(colon + 1));
    }
  }
  return std::nullopt;
}

}  // namespace proofload::workload
