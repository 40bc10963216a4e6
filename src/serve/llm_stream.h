// The answers of an `llm` route (an OpenAI-compatible completion, the streaming issue's ground
// truth): with `"stream": true`, a text/event-stream of chat.completion.chunk events: the role at
// the first token's time, a content chunk per token (one every 1/tokens_per_s), a final chunk
// with finish_reason and the usage object (completion_tokens), then `data: [DONE]`; without it,
// one chat.completion JSON when the last token is made. Each answer's size is known before its
// first byte (Content-Length: the connection stays usable), and parts are made only as they fall
// due, so a long stream costs a connection a small, fixed amount of memory.
//
// LlmSlots is the cap on generations at once with the queue in front: the times a generation
// starts are assigned on arrival from when each slot frees, so a ramp past the cap shows time to
// first token rising while the gap between tokens holds. Streams are immutable (shared by every
// thread); LlmSlots is synchronised.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "serve/handler.h"
#include "serve/routes/route_config.h"

namespace proofload::serve {

class LlmAnswer : public ReplyStream {
 public:
  // `tokens` >= 1; `stream`: the event stream, else one JSON body.
  LlmAnswer(const LlmSpec& spec, int tokens, bool stream);

  int64_t part_count() const override;
  // From the generation's start: the first token at ttft, token i (from 0) at ttft + i / rate;
  // the final chunk, [DONE] and a whole JSON answer with the last token.
  int64_t part_offset_ns(int64_t index) const override;
  void append_part(int64_t index, std::string& out) const override;

  int64_t body_bytes() const { return body_bytes_; }
  // From the generation's start to its last token.
  int64_t generation_ns() const { return part_offset_ns(part_count() - 1); }
  const char* content_type() const;

 private:
  int64_t token_offset_ns(int64_t token) const;
  void append_final_chunk(std::string& out) const;
  void append_whole(std::string& out) const;

  int64_t ttft_ns_;
  double tokens_per_s_;
  int tokens_;
  bool stream_;
  int64_t body_bytes_ = 0;
};

class LlmSlots {
 public:
  // `slots` generations at once; 0: no cap.
  explicit LlmSlots(int slots);
  // A request read at `now_ns` generating for `generation_ns`: how long it waits for a slot.
  int64_t admit(int64_t now_ns, int64_t generation_ns);

 private:
  std::mutex mutex_;
  std::vector<int64_t> free_at_;  // a min-heap of the times each slot frees
};

}  // namespace proofload::serve
