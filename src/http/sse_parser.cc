// See sse_parser.h.
#include "http/sse_parser.h"

#include <algorithm>

namespace proofload::http {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kDefaultType = "message";
constexpr size_t kMaxRetryDigits = 15;  // beyond any sensible reconnection time, below overflow

}  // namespace

SseParser::SseParser(SseLimits limits) : limits_(limits) {}

void SseParser::reset() {
  line_.clear();
  line_too_long_ = false;
  after_cr_ = false;
  bom_matched_ = 0;
  data_.clear();
  data_truncated_ = false;
  type_.clear();
  last_id_.clear();
  events_ = 0;
  comments_ = 0;
  retry_ms_.reset();
  malformed_ = false;
}

void SseParser::feed(std::string_view bytes, SseSink& sink) {
  // A byte order mark only at the very start of the stream, possibly split between pieces; bytes
  // that began like one but were not are the stream's own.
  while (bom_matched_ >= 0 && !bytes.empty()) {
    if (bytes.front() == kBom[static_cast<size_t>(bom_matched_)]) {
      bytes.remove_prefix(1);
      if (++bom_matched_ == static_cast<int>(kBom.size())) bom_matched_ = -1;
    } else {
      const std::string_view begun = kBom.substr(0, static_cast<size_t>(bom_matched_));
      bom_matched_ = -1;
      take(begun, sink);
    }
  }
  take(bytes, sink);
}

void SseParser::take(std::string_view bytes, SseSink& sink) {
  size_t at = 0;
  if (after_cr_ && !bytes.empty() && bytes.front() == '\n') at = 1;  // the LF of a split CRLF
  if (!bytes.empty()) after_cr_ = false;
  while (at < bytes.size()) {
    const size_t end = bytes.find_first_of("\r\n", at);
    const std::string_view piece = bytes.substr(at, end == std::string_view::npos ? end : end - at);
    if (!line_too_long_) {
      if (line_.size() + piece.size() > limits_.max_line_bytes) {
        line_too_long_ = true;
        malformed_ = true;
        line_.clear();
      } else {
        line_.append(piece);
      }
    }
    if (end == std::string_view::npos) return;
    end_line(sink);
    at = end + 1;
    if (bytes[end] == '\r') {
      if (at == bytes.size()) {
        after_cr_ = true;
      } else if (bytes[at] == '\n') {
        ++at;
      }
    }
  }
}

void SseParser::end_line(SseSink& sink) {
  if (line_too_long_) {  // dropped whole: what it held cannot be trusted in part
    line_too_long_ = false;
    line_.clear();
    return;
  }
  const std::string_view line = line_;
  if (line.empty()) {
    dispatch(sink);
  } else if (line.front() == ':') {
    ++comments_;
  } else {
    const size_t colon = line.find(':');
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    field(line.substr(0, colon), value);
  }
  line_.clear();
}

void SseParser::field(std::string_view name, std::string_view value) {
  if (name == "data") {
    if (data_truncated_) return;
    if (data_.size() + value.size() + 1 > limits_.max_data_bytes) {
      const size_t room = limits_.max_data_bytes - std::min(limits_.max_data_bytes, data_.size());
      data_.append(value.substr(0, room));
      data_truncated_ = true;
    } else {
      data_.append(value);
      data_.push_back('\n');
    }
  } else if (name == "event") {
    type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (name == "retry") {
    const bool digits = !value.empty() && value.size() <= kMaxRetryDigits &&
                        std::all_of(value.begin(), value.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      int64_t ms = 0;
      for (char c : value) ms = ms * 10 + (c - '0');
      retry_ms_ = ms;
    }
  }
  // Any other field is ignored, as the standard says.
}

void SseParser::dispatch(SseSink& sink) {
  if (data_.empty() && !data_truncated_) {  // no data line since the last event: none to send
    type_.clear();
    return;
  }
  std::string_view data = data_;
  if (!data_truncated_ && !data.empty() && data.back() == '\n') data.remove_suffix(1);
  SseEvent event;
  event.type = type_.empty() ? kDefaultType : std::string_view(type_);
  event.data = data;
  event.last_id = last_id_;
  event.data_truncated = data_truncated_;
  ++events_;
  sink.on_sse_event(event);
  data_.clear();
  data_truncated_ = false;
  type_.clear();
}

bool SseParser::finish() {
  const bool cut = !data_.empty() || !line_.empty() || line_too_long_;
  line_.clear();
  line_too_long_ = false;
  after_cr_ = false;
  data_.clear();
  data_truncated_ = false;
  type_.clear();
  return cut;
}

}  // namespace proofload::http
