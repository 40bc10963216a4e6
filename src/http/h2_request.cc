#include "http/h2_request.h"

#include <array>

#include "common/text.h"

namespace proofload::http {
namespace {

// RFC 9113 8.2.2: connection-specific fields are malformed in HTTP/2.
bool connection_specific(std::string_view name) {
  constexpr std::array<std::string_view, 5> kNames = {
      "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"};
  for (std::string_view n : kNames) {
    if (ascii_iequals(name, n)) return true;
  }
  return false;
}

nghttp2_nv make_nv(std::string_view name, std::string_view value) {
  // nghttp2 copies names and values when the request is submitted.
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

void H2RequestHead::add(std::string_view name, std::string_view value) {
  nv_.push_back(make_nv(name, value));
}

bool H2RequestHead::parse(std::string_view request, std::string_view scheme) {
  nv_.clear();
  lower_.clear();
  lower_.reserve(request.size());  // every name fits, so no pointer into it moves
  const size_t head_end = request.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return false;
  body_ = request.substr(head_end + 4);
  std::string_view head = request.substr(0, head_end + 2);

  const size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  head.remove_prefix(line_end + 2);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1 || sp1 == 0) return false;
  method_ = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.empty()) return false;

  add(":method", method_);
  add(":scheme", scheme);
  const size_t authority_at = nv_.size();
  add(":authority", "");
  add(":path", target);
  bool have_authority = false;
  while (!head.empty()) {
    const size_t end = head.find("\r\n");
    std::string_view field = head.substr(0, end);
    head.remove_prefix(end + 2);
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    std::string_view name = field.substr(0, colon);
    std::string_view value = trim_spaces_tabs(field.substr(colon + 1));
    if (ascii_iequals(name, "host")) {
      if (have_authority) return false;
      have_authority = true;
      nv_[authority_at] = make_nv(":authority", value);
      continue;
    }
    if (connection_specific(name)) continue;
    if (ascii_iequals(name, "te") && !ascii_iequals(value, "trailers")) continue;
    const size_t at = lower_.size();
    for (char ch : name) lower_.push_back(ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch);
    add(std::string_view(lower_).substr(at, name.size()), value);
  }
  if (!have_authority) nv_.erase(nv_.begin() + static_cast<std::ptrdiff_t>(authority_at));
  return true;
}

}  // namespace proofload::http
