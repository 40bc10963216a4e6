// See stream_tracker.h.
#include "workload/stream_tracker.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/usage_error.h"

namespace proofload::workload {
namespace {

// Whether JSON text opens more than `limit` arrays or objects at once (strings skipped): a
// linear scan, so that a nesting bomb is refused before a parser builds it.
bool nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

StreamRules compile_stream_rules(const StreamSpec& spec, const std::string& what) {
  // Flags are named as flags ("--stream-tokens 'usage': ..."), a scenario's keys after the
  // request ("request 'chat': tokens 'usage': ...").
  const bool flags = what.starts_with("--");
  const auto fail = [&](std::string_view key, const std::string& value, const std::string& why) {
    const std::string name = flags ? "--stream-" + std::string(key == "terminator" ? "end" : key)
                                   : what + ": " + std::string(key);
    return UsageError(name + " '" + value + "': " + why);
  };
  StreamRules rules;
  if (spec.kind == "chunked") {
    rules.kind = StreamKind::kChunked;
    rules.terminator.clear();  // the last chunk ends it
  } else if (spec.kind != "sse") {
    throw UsageError((flags ? "--stream" : what + ": stream") + " '" + spec.kind +
                     "': a stream is sse or chunked");
  }
  if (spec.terminator) {
    if (rules.kind == StreamKind::kChunked) {
      throw fail("terminator", *spec.terminator, "a chunked stream ends with its last chunk");
    }
    rules.terminator = *spec.terminator;
  }
  if (spec.content && spec.content->starts_with('/')) {
    try {
      rules.content = JsonPointer::parse(*spec.content);
    } catch (const UsageError& e) {
      throw fail("content", *spec.content, e.what());
    }
  } else if (spec.content) {
    if (spec.content->empty()) throw fail("content", "", "an empty pattern matches every event");
    try {
      rules.content_pattern = Pattern::compile(*spec.content);
    } catch (const UsageError& e) {
      throw fail("content", *spec.content,
                 std::string("neither a JSON pointer nor a regular expression: ") + e.what());
    }
  }
  if (spec.tokens) {
    try {
      rules.tokens = JsonPointer::parse(*spec.tokens);
    } catch (const UsageError& e) {
      throw fail("tokens", *spec.tokens, e.what());
    }
  }
  rules.fixture = spec.fixture;
  return rules;
}

std::optional<double> StreamFigures::tpot_ns() const {
  if (tokens < 2 || !first_content_ns || !last_content_ns) return std::nullopt;
  return static_cast<double>(*last_content_ns - *first_content_ns) /
         static_cast<double>(tokens - 1);
}

StreamTracker::StreamTracker(http::SseLimits limits) : limits_(limits), parser_(limits) {}

void StreamTracker::start(const StreamRules& rules, int64_t origin_ns, StreamGapSink* gaps) {
  rules_ = &rules;
  parser_.reset();
  chunk_.clear();
  chunk_bytes_ = 0;
  figures_ = StreamFigures{};
  gaps_ = gaps;
  origin_ns_ = origin_ns;
  now_ns_ = origin_ns;
  fixture_at_ = 0;
  fixture_mismatch_ = false;
  after_terminator_ = false;
  bad_token_count_ = false;
}

void StreamTracker::feed(std::string_view bytes, int64_t now_ns) {
  if (bytes.empty()) return;
  now_ns_ = now_ns;
  if (!figures_.first_byte_ns) figures_.first_byte_ns = now_ns - origin_ns_;
  figures_.bytes += static_cast<int64_t>(bytes.size());
  if (rules_->fixture && !fixture_mismatch_) {
    const std::string& expected = *rules_->fixture;
    if (fixture_at_ + bytes.size() > expected.size() ||
        std::memcmp(expected.data() + fixture_at_, bytes.data(), bytes.size()) != 0) {
      fixture_mismatch_ = true;
    }
    fixture_at_ += bytes.size();
  }
  if (after_terminator_) return;  // what follows the terminator is not the stream's
  if (rules_->kind == StreamKind::kSse) {
    parser_.feed(bytes, *this);
    return;
  }
  // A chunk's data is kept only when an event's data is read (content or tokens), and then
  // bounded as an event's is.
  chunk_bytes_ += static_cast<int64_t>(bytes.size());
  if (rules_->content || rules_->content_pattern || rules_->tokens) {
    const size_t room = limits_.max_data_bytes - std::min(limits_.max_data_bytes, chunk_.size());
    chunk_.append(bytes.substr(0, room));
  }
}

void StreamTracker::end_chunk() {
  if (rules_ == nullptr || rules_->kind != StreamKind::kChunked || chunk_bytes_ == 0) return;
  on_event_data(chunk_);
  chunk_.clear();
  chunk_bytes_ = 0;
}

void StreamTracker::on_sse_event(const http::SseEvent& event) {
  if (after_terminator_) return;
  if (!rules_->terminator.empty() && event.data == rules_->terminator) {
    ++figures_.events;
    if (!figures_.first_event_ns) figures_.first_event_ns = now_ns_ - origin_ns_;
    figures_.terminated = true;
    after_terminator_ = true;
    return;
  }
  on_event_data(event.data);
}

void StreamTracker::on_event_data(std::string_view data) {
  const int64_t at = now_ns_ - origin_ns_;
  ++figures_.events;
  if (!figures_.first_event_ns) figures_.first_event_ns = at;
  const StreamRules& rules = *rules_;
  bool content = !data.empty() || rules.kind == StreamKind::kChunked;
  if (rules.content_pattern) content = rules.content_pattern->search(data);
  if (rules.content || rules.tokens) {
    // Parsed once for both pointers; an event that is not JSON (or nested past the bound)
    // carries neither.
    const nlohmann::json document = nests_deeper_than(data, kMaxEventJsonDepth)
                                        ? nlohmann::json(nlohmann::json::value_t::discarded)
                                        : nlohmann::json::parse(data, nullptr, false);
    const bool json = !document.is_discarded();
    if (rules.content) {
      const nlohmann::json* value = json ? rules.content->resolve(document) : nullptr;
      content = value != nullptr && value->is_string() &&
                !value->get_ref<const std::string&>().empty();
    }
    if (rules.tokens && json) {
      const nlohmann::json* count = rules.tokens->resolve(document);
      if (count != nullptr && count->is_number()) {
        const double n = count->get<double>();
        if (n >= 0 && n <= kMaxStreamTokens) {
          figures_.tokens = static_cast<int64_t>(n);
          figures_.tokens_reported = true;
        } else {
          bad_token_count_ = true;  // negative, not finite, or past any stream: never summed
        }
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
  if (rules_->kind == StreamKind::kChunked) {
    end_chunk();  // a body that was not chunked (a length, or to the close): one event
    if (bad_token_count_) return StreamEnd::kMalformed;
  } else {
    const bool cut_mid_event = after_terminator_ ? false : parser_.finish();
    if (parser_.malformed() || bad_token_count_) return StreamEnd::kMalformed;
    if (!rules_->terminator.empty() ? !figures_.terminated : cut_mid_event) {
      return StreamEnd::kCutShort;
    }
  }
  if (rules_->fixture && (fixture_mismatch_ || fixture_at_ != rules_->fixture->size())) {
    return StreamEnd::kFixtureMismatch;
  }
  return StreamEnd::kCompleted;
}

}  // namespace proofload::workload
