// See llm_stream.h.
#include "serve/llm_stream.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>

namespace proofload::serve {
namespace {

constexpr std::string_view kRoleChunk =
    "data: {\"id\":\"chatcmpl-proofload\",\"object\":\"chat.completion.chunk\",\"model\":"
    "\"proofload\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"finish_reason\":null}]}\n\n";
constexpr std::string_view kContentChunk =
    "data: {\"id\":\"chatcmpl-proofload\",\"object\":\"chat.completion.chunk\",\"model\":"
    "\"proofload\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"},"
    "\"finish_reason\":null}]}\n\n";
constexpr std::string_view kFinalHead =
    "data: {\"id\":\"chatcmpl-proofload\",\"object\":\"chat.completion.chunk\",\"model\":"
    "\"proofload\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":";
constexpr std::string_view kFinalMiddle = ",\"total_tokens\":";
constexpr std::string_view kFinalTail = "}}\n\n";
constexpr std::string_view kDone = "data: [DONE]\n\n";
constexpr std::string_view kToken = "tok ";
constexpr std::string_view kWholeHead =
    "{\"id\":\"chatcmpl-proofload\",\"object\":\"chat.completion\",\"model\":\"proofload\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"";
constexpr std::string_view kWholeMiddle =
    "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":";

int64_t digits(int64_t n) { return static_cast<int64_t>(std::to_string(n).size()); }

}  // namespace

LlmAnswer::LlmAnswer(const LlmSpec& spec, int tokens, bool stream)
    : ttft_ns_(spec.ttft_ns), tokens_per_s_(spec.tokens_per_s), tokens_(tokens), stream_(stream) {
  const int64_t n = tokens_;
  const int64_t usage = 2 * digits(n);  // completion_tokens and total_tokens
  if (stream_) {
    body_bytes_ = static_cast<int64_t>(kRoleChunk.size()) +
                  n * static_cast<int64_t>(kContentChunk.size()) +
                  static_cast<int64_t>(kFinalHead.size() + kFinalMiddle.size() +
                                       kFinalTail.size() + kDone.size()) +
                  usage;
  } else {
    body_bytes_ = static_cast<int64_t>(kWholeHead.size()) + n * static_cast<int64_t>(kToken.size()) +
                  static_cast<int64_t>(kWholeMiddle.size() + kFinalMiddle.size()) + usage + 3;
  }
}

const char* LlmAnswer::content_type() const {
  return stream_ ? "text/event-stream" : "application/json";
}

int64_t LlmAnswer::part_count() const { return stream_ ? int64_t{tokens_} + 3 : 1; }

int64_t LlmAnswer::token_offset_ns(int64_t token) const {
  return ttft_ns_ + static_cast<int64_t>(std::llround(static_cast<double>(token) * 1e9 /
                                                      tokens_per_s_));
}

int64_t LlmAnswer::part_offset_ns(int64_t index) const {
  if (!stream_) return token_offset_ns(tokens_ - 1);
  // Parts: the role (0), the tokens (1..n), the final chunk (n + 1), [DONE] (n + 2).
  return token_offset_ns(std::clamp<int64_t>(index - 1, 0, tokens_ - 1));
}

void LlmAnswer::append_final_chunk(std::string& out) const {
  const std::string n = std::to_string(tokens_);
  out.append(kFinalHead).append(n).append(kFinalMiddle).append(n).append(kFinalTail);
}

void LlmAnswer::append_whole(std::string& out) const {
  const std::string n = std::to_string(tokens_);
  out.append(kWholeHead);
  for (int i = 0; i < tokens_; ++i) out.append(kToken);
  out.append(kWholeMiddle).append(n).append(kFinalMiddle).append(n).append("}}\n");
}

void LlmAnswer::append_part(int64_t index, std::string& out) const {
  if (!stream_) {
    append_whole(out);
  } else if (index == 0) {
    out.append(kRoleChunk);
  } else if (index <= tokens_) {
    out.append(kContentChunk);
  } else if (index == tokens_ + 1) {
    append_final_chunk(out);
  } else {
    out.append(kDone);
  }
}

LlmSlots::LlmSlots(int slots) : free_at_(static_cast<size_t>(std::max(slots, 0)), 0) {}

int64_t LlmSlots::admit(int64_t now_ns, int64_t generation_ns) {
  if (free_at_.empty()) return 0;
  std::lock_guard lock(mutex_);
  std::pop_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  const int64_t start = std::max(now_ns, free_at_.back());
  free_at_.back() = start + generation_ns;
  std::push_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  return start - now_ns;
}

}  // namespace proofload::serve
