// See stream_tracker.h.
#include "workload/stream_tracker.h"

#include <cmath>
#include <cstring>

namespace proofload::workload {

std::optional<double> StreamFigures::tpot_ns() const {
  if (tokens < 2 || !first_content_ns || !last_content_ns) return std::nullopt;
  return static_cast<double>(*last_content_ns - *first_content_ns) /
         static_cast<double>(tokens - 1);
}

StreamTracker::StreamTracker(const StreamRules& rules) : rules_(rules), parser_(rules.limits) {}

void StreamTracker::start(int64_t origin_ns, StreamGapSink* gaps) {
  parser_.reset();
  figures_ = StreamFigures{};
  gaps_ = gaps;
  origin_ns_ = origin_ns;
  now_ns_ = origin_ns;
  fixture_at_ = 0;
  fixture_mismatch_ = false;
  after_terminator_ = false;
}

void StreamTracker::feed(std::string_view bytes, int64_t now_ns) {
  if (bytes.empty()) return;
  now_ns_ = now_ns;
  if (!figures_.first_byte_ns) figures_.first_byte_ns = now_ns - origin_ns_;
  figures_.bytes += static_cast<int64_t>(bytes.size());
  if (rules_.fixture && !fixture_mismatch_) {
    const std::string& expected = *rules_.fixture;
    if (fixture_at_ + bytes.size() > expected.size() ||
        std::memcmp(expected.data() + fixture_at_, bytes.data(), bytes.size()) != 0) {
      fixture_mismatch_ = true;
    }
    fixture_at_ += bytes.size();
  }
  if (after_terminator_) return;  // what follows the terminator is not the stream's
  parser_.feed(bytes, *this);
}

void StreamTracker::on_sse_event(const http::SseEvent& event) {
  if (after_terminator_) return;
  const int64_t at = now_ns_ - origin_ns_;
  ++figures_.events;
  if (!figures_.first_event_ns) figures_.first_event_ns = at;
  if (!rules_.terminator.empty() && event.data == rules_.terminator) {
    figures_.terminated = true;
    after_terminator_ = true;
    return;
  }
  bool content = !event.data.empty();
  if (rules_.content || rules_.tokens) {
    // Parsed once for both pointers; an event that is not JSON carries neither.
    const nlohmann::json document = nlohmann::json::parse(event.data, nullptr, false);
    const bool json = !document.is_discarded();
    if (rules_.content) {
      const nlohmann::json* value = json ? rules_.content->resolve(document) : nullptr;
      content = value != nullptr && value->is_string() &&
                !value->get_ref<const std::string&>().empty();
    }
    if (rules_.tokens && json) {
      const nlohmann::json* count = rules_.tokens->resolve(document);
      if (count != nullptr && count->is_number() && count->get<double>() >= 0 &&
          std::isfinite(count->get<double>())) {
        figures_.tokens = static_cast<int64_t>(count->get<double>());
        figures_.tokens_reported = true;
      }
    }
  }
  if (!content) return;
  ++figures_.content_events;
  if (!figures_.tokens_reported) figures_.tokens = figures_.content_events;
  if (figures_.last_content_ns && gaps_ != nullptr) {
    gaps_->on_content_gap(at - *figures_.last_content_ns);
  }
  if (!figures_.first_content_ns) figures_.first_content_ns = at;
  figures_.last_content_ns = at;
}

StreamEnd StreamTracker::finish() {
  const bool cut_mid_event = after_terminator_ ? false : parser_.finish();
  if (parser_.malformed()) return StreamEnd::kMalformed;
  if (!rules_.terminator.empty() ? !figures_.terminated : cut_mid_event) {
    return StreamEnd::kCutShort;
  }
  if (rules_.fixture && (fixture_mismatch_ || fixture_at_ != rules_.fixture->size())) {
    return StreamEnd::kFixtureMismatch;
  }
  return StreamEnd::kCompleted;
}

}  // namespace proofload::workload
