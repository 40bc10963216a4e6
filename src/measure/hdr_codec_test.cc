// HdrHistogram V2 codec: round trips, the bytes other implementations expect, hostile input.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "measure/hdr_histogram.h"

namespace proofload::measure {
namespace {

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) | (uint32_t{b[at + 2]} << 8) |
         b[at + 3];
}

void append_be32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
}

void append_be64(std::vector<uint8_t>& b, uint64_t v) {
  append_be32(b, static_cast<uint32_t>(v >> 32));
  append_be32(b, static_cast<uint32_t>(v));
}

// An uncompressed V2 buffer built by hand from the format's description.
std::vector<uint8_t> v2_buffer(int32_t figures, int64_t lowest, int64_t highest,
                               const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> b;
  append_be32(b, 0x1c849303);
  append_be32(b, static_cast<uint32_t>(payload.size()));
  append_be32(b, 0);
  append_be32(b, static_cast<uint32_t>(figures));
  append_be64(b, static_cast<uint64_t>(lowest));
  append_be64(b, static_cast<uint64_t>(highest));
  append_be64(b, 0x3ff0000000000000ULL);
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

std::vector<uint8_t> inflate_all(const std::vector<uint8_t>& compressed, size_t from) {
  std::vector<uint8_t> out(1 << 20);
  uLongf size = out.size();
  EXPECT_EQ(uncompress(out.data(), &size, compressed.data() + from, compressed.size() - from),
            Z_OK);
  out.resize(size);
  return out;
}

HdrHistogram sample_histogram() {
  HdrHistogram h;
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dist(7.0, 2.0);
  for (int i = 0; i < 20'000; ++i) h.record(static_cast<int64_t>(dist(rng)));
  h.record_n(55, int64_t{1} << 60);  // a count that needs all 9 LEB128 bytes after ZigZag
  return h;
}

TEST(HdrCodec, RoundTripKeepsEveryCount) {
  const HdrHistogram h = sample_histogram();
  const std::vector<uint8_t> bytes = h.encode_compressed();
  const HdrHistogram back = HdrHistogram::decode_compressed(bytes.data(), bytes.size());
  EXPECT_TRUE(back.same_counts(h));
  EXPECT_EQ(back.min(), h.min());
  EXPECT_EQ(back.max(), h.max());
  for (double p : {0.0, 50.0, 99.0, 99.99, 100.0}) {
    EXPECT_EQ(back.value_at_percentile(p), h.value_at_percentile(p));
  }
}

TEST(HdrCodec, RoundTripOfEmptyAndOtherConfigurations) {
  for (const HdrHistogram& h :
       {HdrHistogram(), HdrHistogram(1000, 1'000'000'000'000, 2), HdrHistogram(1, 100'000, 5)}) {
    HdrHistogram filled = h;
    const std::vector<uint8_t> empty = h.encode_compressed();
    EXPECT_TRUE(HdrHistogram::decode_compressed(empty.data(), empty.size()).same_counts(h));
    filled.record(3000);
    filled.record(70'000);
    const std::vector<uint8_t> bytes = filled.encode_compressed();
    const HdrHistogram back = HdrHistogram::decode_compressed(bytes.data(), bytes.size());
    EXPECT_TRUE(back.same_counts(filled));
    EXPECT_EQ(back.lowest_discernible(), filled.lowest_discernible());
    EXPECT_EQ(back.highest_trackable(), filled.highest_trackable());
    EXPECT_EQ(back.significant_figures(), filled.significant_figures());
  }
}

TEST(HdrCodec, DecodedMeanUsesBucketMidpoints) {
  HdrHistogram h;
  h.record(1'000'000);  // bucket [999936, 1000447]: midpoint 999936 + 256
  const std::vector<uint8_t> bytes = h.encode_compressed();
  EXPECT_EQ(HdrHistogram::decode_compressed(bytes.data(), bytes.size()).mean(), 1'000'192.0);
}

TEST(HdrCodec, WritesTheLayoutOtherImplementationsRead) {
  HdrHistogram h;
  h.record(5);
  h.record(5);
  h.record(5);
  h.record(7);
  const std::vector<uint8_t> bytes = h.encode_compressed();
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(be32(bytes, 0), 0x1c849314u);  // V2 compressed cookie, word-size nibble as Java
  EXPECT_EQ(be32(bytes, 4), bytes.size() - 8);
  const std::vector<uint8_t> v2 = inflate_all(bytes, 8);
  ASSERT_GE(v2.size(), 40u);
  EXPECT_EQ(be32(v2, 0), 0x1c849313u);
  EXPECT_EQ(be32(v2, 4), v2.size() - 40);
  EXPECT_EQ(be32(v2, 8), 0u);   // normalizing index offset
  EXPECT_EQ(be32(v2, 12), 3u);  // significant figures
  EXPECT_EQ((uint64_t{be32(v2, 16)} << 32) | be32(v2, 20), 1u);
  EXPECT_EQ((uint64_t{be32(v2, 24)} << 32) | be32(v2, 28), 3'600'000'000u);
  EXPECT_EQ((uint64_t{be32(v2, 32)} << 32) | be32(v2, 36), 0x3ff0000000000000u);  // 1.0
  // Counts up to the max value only: 5 zeros (ZigZag -5 = 9), 3, one zero (0), 1.
  const std::vector<uint8_t> payload(v2.begin() + 40, v2.end());
  EXPECT_EQ(payload, (std::vector<uint8_t>{9, 6, 0, 2}));
}

TEST(HdrCodec, DecodesAHandBuiltUncompressedPayload) {
  // Zero run of 2 (ZigZag 3), count 300 (ZigZag 600 = LEB128 0xd8 0x04), zero run of 997
  // (ZigZag 1993 = 0xc9 0x0f), count 1.
  const std::vector<uint8_t> b = v2_buffer(3, 1, 3'600'000'000, {3, 0xd8, 0x04, 0xc9, 0x0f, 2});
  const HdrHistogram h = HdrHistogram::decode_compressed(b.data(), b.size());
  EXPECT_EQ(h.total_count(), 301);
  EXPECT_EQ(h.count_at_or_below(1), 0);
  EXPECT_EQ(h.count_at_or_below(2), 300);
  EXPECT_EQ(h.max(), 1000);
  EXPECT_EQ(h.value_at_percentile(100), 1000);
}

TEST(HdrCodec, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = sample_histogram().encode_compressed();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(HdrHistogram::decode_compressed(bytes.data(), n), std::runtime_error) << n;
  }
  EXPECT_THROW(HdrHistogram::decode_compressed(nullptr, 0), std::runtime_error);
}

TEST(HdrCodec, SingleBitFlipsAreRejectedOrHarmless) {
  // A flip must never decode to different counts. Deflate has bits no decoder reads (padding
  // after the last block, some Huffman table bits): flips there decode to the same counts.
  HdrHistogram h;
  for (int v = 1; v < 5000; v += 7) h.record(v * 13);
  const std::vector<uint8_t> bytes = h.encode_compressed();
  int rejected = 0;
  int flips = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= static_cast<uint8_t>(1 << bit);
      ++flips;
      try {
        const HdrHistogram back = HdrHistogram::decode_compressed(bad.data(), bad.size());
        EXPECT_TRUE(back.same_counts(h)) << "byte " << i << " bit " << bit;
      } catch (const std::runtime_error&) {
        ++rejected;
        EXPECT_FALSE(i == 3 && bit >= 4) << "the cookie's word-size nibble is ignored by design";
      }
    }
  }
  EXPECT_GT(rejected, flips * 9 / 10);
}

TEST(HdrCodec, RejectsInvalidConfigurations) {
  for (auto [figures, lowest, highest] :
       {std::tuple{0, int64_t{1}, int64_t{1000}}, std::tuple{6, int64_t{1}, int64_t{1000}},
        std::tuple{3, int64_t{0}, int64_t{1000}}, std::tuple{3, int64_t{100}, int64_t{150}},
        std::tuple{3, int64_t{-5}, int64_t{1000}}, std::tuple{3, int64_t{1} << 60, INT64_MAX}}) {
    const std::vector<uint8_t> b = v2_buffer(figures, lowest, highest, {2});
    EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error)
        << figures << " " << lowest << " " << highest;
  }
}

TEST(HdrCodec, RejectsCountsThatDoNotFit) {
  const int64_t kSmall = 1000;  // 2048 sub-buckets: 2048 counters
  // A zero run past the last counter (ZigZag of -5000 = 9999 = 0x8f 0x4e).
  std::vector<uint8_t> b = v2_buffer(3, 1, kSmall, {0x8f, 0x4e, 2});
  EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
  // A count at the end of a run that already fills every counter.
  b = v2_buffer(3, 1, kSmall, {0xff, 0x1f, 2});  // run of 2048, then a count
  EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
  // Counts whose total overflows int64: 2^62 twice. Its ZigZag is 2^63, which LEB128-64b9B
  // writes as eight 0x80 continuation bytes and a 9th byte carrying bits 56..63 whole (0x80).
  std::vector<uint8_t> payload;
  for (int k = 0; k < 2; ++k) payload.insert(payload.end(), 9, uint8_t{0x80});
  b = v2_buffer(3, 1, kSmall, payload);
  EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
  payload.resize(9);  // one of them alone is fine
  b = v2_buffer(3, 1, kSmall, payload);
  EXPECT_EQ(HdrHistogram::decode_compressed(b.data(), b.size()).total_count(), int64_t{1} << 62);
  // A LEB128 value cut off by the payload's end.
  b = v2_buffer(3, 1, kSmall, {0x80});
  EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
  // A payload length longer than the input.
  b = v2_buffer(3, 1, kSmall, {2});
  b[7] = 50;
  EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
}

TEST(HdrCodec, RejectsACompressedPayloadClaimingMoreThanItsCountersNeed) {
  // A valid zlib stream whose header claims a 1 GB payload: refused before any buffer is sized.
  std::vector<uint8_t> v2 = v2_buffer(3, 1, 1000, {2});
  v2[4] = 0x40;
  std::vector<uint8_t> out(8 + compressBound(v2.size()));
  uLongf n = out.size() - 8;
  ASSERT_EQ(compress2(out.data() + 8, &n, v2.data(), v2.size(), 6), Z_OK);
  out.resize(8 + n);
  out[0] = 0x1c, out[1] = 0x84, out[2] = 0x93, out[3] = 0x14;
  out[4] = static_cast<uint8_t>(n >> 24), out[5] = static_cast<uint8_t>(n >> 16);
  out[6] = static_cast<uint8_t>(n >> 8), out[7] = static_cast<uint8_t>(n);
  EXPECT_THROW(HdrHistogram::decode_compressed(out.data(), out.size()), std::runtime_error);
}

TEST(HdrCodec, RandomGarbageNeverDecodesSilentlyWrong) {
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> b(static_cast<size_t>(rng() % 200));
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    if (b.size() >= 4 && i % 2 == 0) b[0] = 0x1c, b[1] = 0x84, b[2] = 0x93, b[3] = 0x14;
    EXPECT_THROW(HdrHistogram::decode_compressed(b.data(), b.size()), std::runtime_error);
  }
}

}  // namespace
}  // namespace proofload::measure
