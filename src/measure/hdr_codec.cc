// HdrHistogram's V2 encoding (ZigZag LEB128 counts) and its zlib-compressed wrapper, byte for
// byte as Java's HdrHistogram writes it, so that HdrHistogram tools read proofload's logs.
// Decoding treats its input as hostile: every length is checked before use. Not thread-safe.
#include <zlib.h>

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "measure/hdr_histogram.h"

namespace proofload::measure {
namespace {

constexpr uint32_t kV2EncodingCookieBase = 0x1c849303;
constexpr uint32_t kV2CompressedCookieBase = 0x1c849304;
// The 0x10 nibble is the "word size" Java's HdrHistogram stamps on V2 cookies; readers mask it
// off (cookie & ~0xf0) but some compare the whole cookie, so we write it as Java does.
constexpr uint32_t kV2EncodingCookie = kV2EncodingCookieBase | 0x10;
constexpr uint32_t kV2CompressedCookie = kV2CompressedCookieBase | 0x10;
constexpr uint32_t kCookieWordSizeBits = 0xf0;
constexpr size_t kV2HeaderBytes = 40;
constexpr size_t kMaxLeb128Bytes = 9;

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void put_be64(std::vector<uint8_t>& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

uint32_t get_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

uint64_t get_be64(const uint8_t* p) { return (uint64_t{get_be32(p)} << 32) | get_be32(p + 4); }

// ZigZag, then LEB128 limited to 9 bytes: the 9th byte carries the top 8 bits whole.
void put_zigzag(std::vector<uint8_t>& out, int64_t v) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  for (int i = 0; i < 8; ++i) {
    if (u < 0x80) {
      out.push_back(static_cast<uint8_t>(u));
      return;
    }
    out.push_back(static_cast<uint8_t>((u & 0x7f) | 0x80));
    u >>= 7;
  }
  out.push_back(static_cast<uint8_t>(u));
}

// Reads one value at *pos; false when the bytes run out before it ends.
bool get_zigzag(const uint8_t* data, size_t end, size_t* pos, int64_t* value) {
  uint64_t u = 0;
  for (int shift = 0; shift < 56; shift += 7) {
    if (*pos >= end) return false;
    const uint8_t b = data[(*pos)++];
    u |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) {
      *value = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
      return true;
    }
  }
  if (*pos >= end) return false;
  u |= uint64_t{data[(*pos)++]} << 56;
  *value = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("HdrHistogram decode: " + what);
}

// Inflates exactly `n` more bytes into `out`; false if the stream ends or is corrupt first.
bool inflate_exactly(z_stream& zs, uint8_t* out, size_t n) {
  zs.next_out = out;
  zs.avail_out = static_cast<uInt>(n);
  while (zs.avail_out > 0) {
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) return zs.avail_out == 0;
    if (rc != Z_OK) return false;  // Z_BUF_ERROR here means the input ran out
  }
  return true;
}

// Frees the inflate state however decoding ends.
struct InflateGuard {
  z_stream* zs;
  ~InflateGuard() { inflateEnd(zs); }
};

struct V2Header {
  int32_t figures;
  int64_t lowest;
  int64_t highest;
};

// Reads and checks the 40-byte V2 header (cookie, payload length at +4, normalizing offset at
// +8, figures, lowest, highest, conversion ratio at +32).
V2Header parse_v2_header(const uint8_t* p) {
  if ((get_be32(p) & ~kCookieWordSizeBits) != kV2EncodingCookieBase) fail("bad V2 cookie");
  // The normalizing offset and the conversion ratio only matter to DoubleHistogram; integer
  // histograms (and hdr-histogram-js, which writes 1 as the offset) ignore them.
  V2Header h{static_cast<int32_t>(get_be32(p + 12)), static_cast<int64_t>(get_be64(p + 16)),
             static_cast<int64_t>(get_be64(p + 24))};
  if (h.figures < 1 || h.figures > 5 || h.lowest < 1 || h.highest / 2 < h.lowest) {
    fail("invalid configuration (lowest " + std::to_string(h.lowest) + ", highest " +
         std::to_string(h.highest) + ", figures " + std::to_string(h.figures) + ")");
  }
  return h;
}

HdrHistogram histogram_for(const V2Header& h) {
  try {
    return HdrHistogram(h.lowest, h.highest, h.figures);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
}

}  // namespace

std::vector<uint8_t> HdrHistogram::encode_compressed() const {
  std::vector<uint8_t> v2;
  const size_t limit = static_cast<size_t>(index_of(total_count_ == 0 ? 0 : max_value_)) + 1;
  v2.reserve(kV2HeaderBytes + 16);
  put_be32(v2, kV2EncodingCookie);
  put_be32(v2, 0);  // payload length, patched below
  put_be32(v2, 0);  // normalizing index offset
  put_be32(v2, static_cast<uint32_t>(significant_figures_));
  put_be64(v2, static_cast<uint64_t>(lowest_discernible_));
  put_be64(v2, static_cast<uint64_t>(highest_trackable_));
  put_be64(v2, std::bit_cast<uint64_t>(1.0));  // integer-to-double conversion ratio
  // Counters past the allocated prefix are zero (an empty histogram has none allocated).
  auto count_at = [&](size_t i) { return i < counts_.size() ? counts_[i] : int64_t{0}; };
  size_t i = 0;
  while (i < limit) {
    const int64_t count = count_at(i++);
    if (count != 0) {
      put_zigzag(v2, count);
      continue;
    }
    int64_t zeros = 1;
    while (i < limit && count_at(i) == 0) {
      ++zeros;
      ++i;
    }
    put_zigzag(v2, zeros > 1 ? -zeros : 0);
  }
  const uint32_t payload = static_cast<uint32_t>(v2.size() - kV2HeaderBytes);
  for (int b = 0; b < 4; ++b) v2[4 + b] = static_cast<uint8_t>(payload >> (24 - 8 * b));

  uLongf deflated_size = compressBound(static_cast<uLong>(v2.size()));
  std::vector<uint8_t> out(8 + deflated_size);
  const int rc = compress2(out.data() + 8, &deflated_size, v2.data(), static_cast<uLong>(v2.size()),
                           Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) throw std::runtime_error("HdrHistogram encode: zlib compress2 failed");
  out.resize(8 + deflated_size);
  std::vector<uint8_t> header;
  put_be32(header, kV2CompressedCookie);
  put_be32(header, static_cast<uint32_t>(deflated_size));
  std::memcpy(out.data(), header.data(), 8);
  return out;
}

HdrHistogram HdrHistogram::decode_compressed(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 8) fail("input shorter than a cookie and length");
  const uint32_t cookie = get_be32(data);
  if ((cookie & ~kCookieWordSizeBits) == kV2EncodingCookieBase) {
    if (size < kV2HeaderBytes) fail("input shorter than the V2 header");
    HdrHistogram h = histogram_for(parse_v2_header(data));
    const uint32_t payload = get_be32(data + 4);
    if (payload > size - kV2HeaderBytes) fail("payload length exceeds the input");
    h.decode_counts(data + kV2HeaderBytes, payload);
    return h;
  }
  if ((cookie & ~kCookieWordSizeBits) != kV2CompressedCookieBase) {
    fail("not a V2 HdrHistogram (cookie " + std::to_string(cookie) + ")");
  }
  const uint32_t deflated_size = get_be32(data + 4);
  if (deflated_size == 0 || deflated_size > size - 8) fail("compressed length exceeds the input");

  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) fail("zlib inflateInit failed");
  InflateGuard guard{&zs};
  zs.next_in = const_cast<Bytef*>(data + 8);
  zs.avail_in = deflated_size;

  // The header first: the configuration bounds how long the payload may be, before a buffer
  // is sized by the length the input claims.
  uint8_t header[kV2HeaderBytes];
  if (!inflate_exactly(zs, header, kV2HeaderBytes)) fail("compressed header truncated or corrupt");
  HdrHistogram h = histogram_for(parse_v2_header(header));
  const uint32_t payload = get_be32(header + 4);
  if (payload > h.full_size_ * kMaxLeb128Bytes) fail("payload longer than its counters");
  std::vector<uint8_t> counts(payload);
  if (!inflate_exactly(zs, counts.data(), payload)) fail("compressed payload truncated or corrupt");
  // Run the stream to its end so that zlib checks its Adler-32 of what we decoded.
  uint8_t extra = 0;
  zs.next_out = &extra;
  zs.avail_out = 1;
  if (inflate(&zs, Z_FINISH) != Z_STREAM_END || zs.avail_out != 1) {
    fail("compressed stream corrupt or longer than its V2 payload");
  }
  h.decode_counts(counts.data(), counts.size());
  return h;
}

void HdrHistogram::decode_counts(const uint8_t* payload, size_t size) {
  const size_t n = full_size_;
  size_t pos = 0;
  size_t dst = 0;
  int64_t total = 0;
  while (pos < size) {
    int64_t v = 0;
    if (!get_zigzag(payload, size, &pos, &v)) fail("count truncated");
    if (v < 0) {
      if (v == INT64_MIN || static_cast<uint64_t>(-v) > n - dst) fail("zero run past the end");
      dst += static_cast<size_t>(-v);
      continue;
    }
    if (dst >= n) fail("more counts than the configuration has counters");
    if (v > INT64_MAX - total) fail("total count overflows");
    total += v;
    if (v != 0 && dst >= counts_.size()) grow_to(static_cast<int>(dst));
    if (v != 0) counts_[dst] = v;
    ++dst;
  }
  establish_totals_from_counts();
}

}  // namespace proofload::measure
