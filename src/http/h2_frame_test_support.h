// Test support: an HTTP/2 frame as bytes, for tests that play a server frame by frame (the raw
// server of tests/integration/h2_raw_server.h, the scripted server of the worker's simulation).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace proofload::testing {

// Frame types and flags the tests write.
inline constexpr uint8_t kH2Data = 0x0, kH2Headers = 0x1, kH2RstStream = 0x3, kH2Settings = 0x4,
                         kH2PushPromise = 0x5, kH2Goaway = 0x7, kH2WindowUpdate = 0x8;
inline constexpr uint8_t kH2EndStream = 0x1, kH2EndHeaders = 0x4, kH2Ack = 0x1;

// One frame: the 9-byte header (length, type, flags, stream id) and the payload.
inline std::string h2_frame(uint8_t type, uint8_t flags, uint32_t stream_id,
                            std::string_view payload) {
  const size_t n = payload.size();
  std::string frame{static_cast<char>((n >> 16) & 0xff),
                    static_cast<char>((n >> 8) & 0xff),
                    static_cast<char>(n & 0xff),
                    static_cast<char>(type),
                    static_cast<char>(flags),
                    static_cast<char>((stream_id >> 24) & 0x7f),
                    static_cast<char>((stream_id >> 16) & 0xff),
                    static_cast<char>((stream_id >> 8) & 0xff),
                    static_cast<char>(stream_id & 0xff)};
  return frame.append(payload);
}

}  // namespace proofload::testing
