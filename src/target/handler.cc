// Prepared responses and the per-request decision; see handler.h.
#include "target/handler.h"

namespace proofload::target {

Handler::Handler(std::string_view body, int64_t delay_ns)
    : delay_ns_(delay_ns),
      ok_keep_alive_(prepare("200 OK", "", body)),
      ok_keep_alive_10_(prepare("200 OK", "keep-alive", body)),
      ok_close_(prepare("200 OK", "close", body)),
      bad_request_(prepare("400 Bad Request", "close", "bad request\n")),
      header_too_large_(
          prepare("431 Request Header Fields Too Large", "close", "header too large\n")),
      body_too_large_(prepare("413 Content Too Large", "close", "body too large\n")) {}

Handler::Prepared Handler::prepare(std::string_view status, std::string_view connection,
                                   std::string_view body) {
  Prepared response;
  std::string& out = response.bytes;
  out.append("HTTP/1.1 ").append(status).append("\r\n");
  out.append("Server: proofload\r\nContent-Type: text/plain\r\n");
  out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  if (!connection.empty()) out.append("Connection: ").append(connection).append("\r\n");
  out.append("\r\n");
  response.head_size = static_cast<uint32_t>(out.size());
  out.append(body);
  return response;
}

Reply Handler::reply(const Prepared& response, bool is_head, bool close_after, int64_t delay_ns) {
  uint32_t size = is_head ? response.head_size : static_cast<uint32_t>(response.bytes.size());
  return Reply{response.bytes.data(), size, close_after, delay_ns};
}

Reply Handler::handle(const RequestHead& request) const {
  if (!request.keep_alive) return reply(ok_close_, request.is_head, true, delay_ns_);
  const Prepared& ok = request.http_1_0 ? ok_keep_alive_10_ : ok_keep_alive_;
  return reply(ok, request.is_head, false, delay_ns_);
}

Reply Handler::reject(RequestError error) const {
  switch (error) {
    case RequestError::kHeaderTooLarge:
      return reply(header_too_large_, false, true, 0);
    case RequestError::kBodyTooLarge:
      return reply(body_too_large_, false, true, 0);
    case RequestError::kBadRequest:
      break;
  }
  return reply(bad_request_, false, true, 0);
}

}  // namespace proofload::target
