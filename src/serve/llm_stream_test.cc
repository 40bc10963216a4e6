// The llm route's answers: OpenAI-compatible chunks (the role, a chunk per token, the usage with
// the token count, [DONE]) or one completion, each of the length announced before it, tokens at
// the configured time to first token and rate; and the slots that queue generations past the cap.
#include "serve/llm_stream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"

namespace proofload::serve {
namespace {

constexpr int64_t kMs = 1'000'000;

LlmSpec spec() {
  LlmSpec s;
  s.ttft_ns = 200 * kMs;
  s.tokens_per_s = 50;
  return s;
}

std::string whole_body(const LlmAnswer& answer) {
  std::string body;
  for (int64_t i = 0; i < answer.part_count(); ++i) answer.append_part(i, body);
  return body;
}

TEST(LlmAnswer, TheAnnouncedLengthIsTheLengthOfEveryPartTogether) {
  for (int tokens : {1, 9, 10, 99, 100, 1000, kMaxLlmTokens}) {
    for (bool stream : {true, false}) {
      const LlmAnswer answer(spec(), tokens, stream);
      EXPECT_EQ(answer.body_bytes(), static_cast<int64_t>(whole_body(answer).size()))
          << tokens << (stream ? " streamed" : " whole");
    }
  }
}

TEST(LlmAnswer, AStreamIsTheRoleATokenAChunkTheUsageAndDone) {
  const LlmAnswer answer(spec(), 12, true);
  EXPECT_STREQ(answer.content_type(), "text/event-stream");
  ASSERT_EQ(answer.part_count(), 15);
  std::vector<nlohmann::json> events;
  std::string text;
  for (int64_t i = 0; i < answer.part_count(); ++i) {
    std::string part;
    answer.append_part(i, part);
    ASSERT_EQ(part.rfind("data: ", 0), 0u) << part;
    ASSERT_EQ(part.substr(part.size() - 2), "\n\n") << part;
    const std::string data = part.substr(6, part.size() - 8);
    if (i == answer.part_count() - 1) {
      EXPECT_EQ(data, "[DONE]");
      continue;
    }
    events.push_back(nlohmann::json::parse(data));
  }
  EXPECT_EQ(events[0]["choices"][0]["delta"]["role"], "assistant");
  for (size_t i = 1; i <= 12; ++i) {
    text += events[i]["choices"][0]["delta"]["content"].get<std::string>();
  }
  EXPECT_EQ(text, "tok tok tok tok tok tok tok tok tok tok tok tok ");
  EXPECT_EQ(events[13]["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(events[13]["usage"]["completion_tokens"], 12);
}

TEST(LlmAnswer, TokensComeAtTheTimeToFirstTokenAndTheRate) {
  const LlmAnswer answer(spec(), 5, true);
  // The role and the first token at 200 ms, one every 20 ms after, the end with the last.
  const std::vector<int64_t> expected = {200 * kMs, 200 * kMs, 220 * kMs, 240 * kMs,
                                         260 * kMs, 280 * kMs, 280 * kMs, 280 * kMs};
  for (int64_t i = 0; i < answer.part_count(); ++i) {
    EXPECT_EQ(answer.part_offset_ns(i), expected[static_cast<size_t>(i)]) << i;
  }
  EXPECT_EQ(answer.generation_ns(), 280 * kMs);
}

TEST(LlmAnswer, WithoutStreamingItIsOneCompletionWhenTheLastTokenIsMade) {
  const LlmAnswer answer(spec(), 3, false);
  EXPECT_STREQ(answer.content_type(), "application/json");
  ASSERT_EQ(answer.part_count(), 1);
  EXPECT_EQ(answer.part_offset_ns(0), 240 * kMs);
  const nlohmann::json whole = nlohmann::json::parse(whole_body(answer));
  EXPECT_EQ(whole["choices"][0]["message"]["content"], "tok tok tok ");
  EXPECT_EQ(whole["usage"]["completion_tokens"], 3);
}

TEST(LlmSlots, GenerationsPastTheCapWaitForTheFirstSlotToFree) {
  LlmSlots slots(2);
  EXPECT_EQ(slots.admit(0, kNsPerS), 0);
  EXPECT_EQ(slots.admit(0, kNsPerS), 0);
  EXPECT_EQ(slots.admit(0, kNsPerS), kNsPerS) << "both slots busy until 1 s";
  EXPECT_EQ(slots.admit(kNsPerS / 2, kNsPerS), kNsPerS / 2) << "the other frees at 1 s";
  EXPECT_EQ(slots.admit(5 * kNsPerS, kNsPerS), 0) << "all free again";
  LlmSlots uncapped(0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(uncapped.admit(0, kNsPerS), 0);
}

}  // namespace
}  // namespace proofload::serve
