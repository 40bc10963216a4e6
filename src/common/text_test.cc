#include "common/text.h"

#include <gtest/gtest.h>

namespace proofload {
namespace {

TEST(FirstInvalidUtf8, AcceptsWellFormedTextAndPointsAtTheFirstBadByte) {
  constexpr size_t kValid = std::string_view::npos;
  EXPECT_EQ(first_invalid_utf8(""), kValid);
  EXPECT_EQ(first_invalid_utf8("plain ascii"), kValid);
  EXPECT_EQ(first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), kValid);
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_invalid_utf8("a\xc3"), 1u);              // cut short
  EXPECT_EQ(first_invalid_utf8("\xc0\xaf"), 0u);           // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xe0\x80\xaf"), 0u);       // overlong
  EXPECT_EQ(first_invalid_utf8("x\xed\xa0\x80"), 1u);      // a surrogate
  EXPECT_EQ(first_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xe2\x28\xa1"), 0u);       // a bad continuation
}

}  // namespace
}  // namespace proofload
