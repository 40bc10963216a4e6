// See source_window.h.
#include "measure/source_window.h"

#include <algorithm>

#include "common/text.h"

namespace proofload::measure {

bool is_limit_header(std::string_view name) {
  auto starts_with = [&](std::string_view prefix) {
    return name.size() >= prefix.size() && ascii_iequals(name.substr(0, prefix.size()), prefix);
  };
  return ascii_iequals(name, "retry-after") || starts_with("ratelimit") ||
         starts_with("x-ratelimit");
}

void note_limit_headers(std::string_view header_lines, std::vector<LimitHeader>& seen) {
  while (!header_lines.empty()) {
    const size_t eol = header_lines.find('\n');
    std::string_view line = header_lines.substr(0, eol);
    header_lines =
        eol == std::string_view::npos ? std::string_view() : header_lines.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = trim_spaces_tabs(line.substr(0, colon));
    if (!is_limit_header(name)) continue;
    std::string_view value = trim_spaces_tabs(line.substr(colon + 1));
    value = value.substr(0, kMaxLimitHeaderValueBytes);
    auto known = std::find_if(seen.begin(), seen.end(), [&](const LimitHeader& h) {
      return ascii_iequals(h.name, name);
    });
    if (known != seen.end()) {
      known->last.assign(value);  // reuses its storage: no allocation once grown
    } else if (seen.size() < kMaxLimitHeaders) {
      seen.push_back(LimitHeader{std::string(name.substr(0, kMaxLimitHeaderValueBytes)),
                                 std::string(value), std::string(value)});
    }
  }
}

void SourceWindow::merge(const SourceWindow& other) {
  let_through += other.let_through;
  limited += other.limited;
  this->other += other.other;
  if (other.let_through_before_first_429) {
    let_through_before_first_429 = other.let_through_before_first_429;
  }
  if (!other.headers.empty()) headers = other.headers;
}

}  // namespace proofload::measure
