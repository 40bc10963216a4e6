// See text.h.
#include "common/text.h"

namespace proofload {

size_t first_invalid_utf8(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t at = 0;
  while (at < text.size()) {
    const unsigned char lead = byte(at);
    if (lead < 0x80) {
      ++at;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80;  // the range of the second byte, narrowed where RFC 3629 says
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      return at;
    }
    if (at + length > text.size()) return at;
    if (byte(at + 1) < low || byte(at + 1) > high) return at;
    for (size_t i = 2; i < length; ++i) {
      if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return at;
    }
    at += length;
  }
  return std::string_view::npos;
}

}  // namespace proofload
