// See simulated_h2_server.h.
#include "engine/simulated_h2_server.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace proofload::engine::simulated {
namespace {

nghttp2_nv header(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

H2Server::H2Server() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_frame_recv_callback(
      callbacks, [](nghttp2_session*, const nghttp2_frame* frame, void* self) {
        auto* server = static_cast<H2Server*>(self);
        if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) && server->completed_ != nullptr) {
          server->completed_->push_back(frame->hd.stream_id);
        }
        return 0;
      });
  nghttp2_session_callbacks_set_on_stream_close_callback(
      callbacks, [](nghttp2_session*, int32_t stream, uint32_t, void* self) {
        static_cast<H2Server*>(self)->bodies_.erase(stream);
        return 0;
      });
  nghttp2_session_server_new(&session_, callbacks, this);
  nghttp2_session_callbacks_del(callbacks);
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);  // no stream limit
}

H2Server::~H2Server() { nghttp2_session_del(session_); }

bool H2Server::receive(std::string_view bytes, std::vector<int32_t>& completed) {
  completed_ = &completed;
  const ssize_t taken = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  completed_ = nullptr;
  return taken >= 0;
}

bool H2Server::has_stream(int32_t stream) const {
  return nghttp2_session_find_stream(session_, stream) != nullptr;
}

void H2Server::answer(int32_t stream, const Answer& answer) {
  bodies_[stream] = answer.body;
  const std::string status_name = ":status";
  const std::string status = std::to_string(answer.status);
  const std::string length_name = "content-length";
  const std::string length = std::to_string(answer.body.size());
  std::vector<std::string> names;  // lower case, as HTTP/2 requires; outlive the submit
  names.reserve(answer.headers.size());
  std::vector<nghttp2_nv> headers{header(status_name, status), header(length_name, length)};
  for (const auto& [name, value] : answer.headers) {
    names.push_back(name);
    std::transform(names.back().begin(), names.back().end(), names.back().begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    headers.push_back(header(names.back(), value));
  }
  nghttp2_data_provider provider{};
  provider.source.ptr = &bodies_[stream];
  provider.read_callback = [](nghttp2_session*, int32_t, uint8_t* buffer, size_t length,
                              uint32_t* flags, nghttp2_data_source* source, void*) -> ssize_t {
    auto* rest = static_cast<std::string*>(source->ptr);
    const size_t n = std::min(length, rest->size());
    std::memcpy(buffer, rest->data(), n);
    rest->erase(0, n);
    if (rest->empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  };
  nghttp2_submit_response(session_, stream, headers.data(), headers.size(), &provider);
}

uint32_t H2Server::client_stream_window() const {
  return nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE);
}

void H2Server::go_away() {
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

void H2Server::send_into(std::string& out) {
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n <= 0) return;
    out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
}

}  // namespace proofload::engine::simulated
