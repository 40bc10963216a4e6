// An sse route's events, made as they fall due; see sse_stream.h. append_part reuses the
// caller's buffer: no allocation once it has grown to one batch.
#include "serve/sse_stream.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace proofload::serve {
namespace {

constexpr std::string_view kEventHead = "event: tokens\ndata: ";
constexpr std::string_view kIndexField = "{\"i\":";
constexpr std::string_view kTokensField = ",\"tokens\":";
constexpr std::string_view kTextField = ",\"text\":\"";
constexpr std::string_view kDataEnd = "\"}";
constexpr std::string_view kEventEnd = "\n\n";
constexpr std::string_view kTerminator = "event: done\ndata: [DONE]\n\n";

}  // namespace

SseStream::SseStream(const SseSpec& spec)
    : events_(spec.events),
      over_ns_(spec.over_ns),
      event_bytes_(spec.event_bytes),
      tokens_(std::to_string(spec.tokens_per_event)) {
  // Event indexes of d digits are [10^(d-1), 10^d - 1] (0 counts as one digit).
  int64_t bytes = static_cast<int64_t>(kTerminator.size());
  int64_t first = 0;
  int64_t limit = 10;
  for (int64_t digits = 1; first < events_; ++digits) {
    int64_t count = std::min(events_, limit) - first;
    bytes +=
        count * (static_cast<int64_t>(kEventHead.size() + kEventEnd.size()) + data_bytes(digits));
    first = limit;
    limit *= 10;
  }
  body_bytes_ = bytes;
}

int64_t SseStream::data_bytes(int64_t digits_of_index) const {
  int64_t natural = static_cast<int64_t>(kIndexField.size() + kTokensField.size() +
                                         kTextField.size() + kDataEnd.size() + tokens_.size()) +
                    digits_of_index;
  return std::max(natural, event_bytes_);
}

int64_t SseStream::part_offset_ns(int64_t index) const {
  // over * (index + 1) / (events + 1) without overflow: over may be days, events a million.
  const int64_t parts = events_ + 1;
  const int64_t whole = over_ns_ / parts;
  const int64_t rest = over_ns_ % parts;
  return whole * (index + 1) + rest * (index + 1) / parts;
}

void SseStream::append_part(int64_t index, std::string& out) const {
  if (index >= events_) {
    out.append(kTerminator);
    return;
  }
  char digits[24];
  auto [end, error] = std::to_chars(digits, digits + sizeof digits, index);
  (void)error;  // cannot fail: 24 chars hold any int64_t
  const auto digit_count = static_cast<size_t>(end - digits);
  const size_t start = out.size();
  out.append(kEventHead).append(kIndexField).append(digits, digit_count);
  out.append(kTokensField).append(tokens_).append(kTextField);
  const size_t data_so_far = out.size() - start - kEventHead.size();
  const auto data = static_cast<size_t>(data_bytes(static_cast<int64_t>(digit_count)));
  out.append(data - data_so_far - kDataEnd.size(), 'x');
  out.append(kDataEnd).append(kEventEnd);
}

}  // namespace proofload::serve
