// Prepared responses, request helpers and the static handler; see handler.h.
#include "serve/handler.h"

namespace proofload::serve {

std::string_view RequestHead::header(std::string_view lower_case_name) const {
  std::string_view rest = headers;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    size_t colon = line.find(':');
    if (colon == lower_case_name.size() && line.substr(0, colon) == lower_case_name) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
      }
      while (!value.empty() &&
             (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) {
        value.remove_suffix(1);
      }
      return value;
    }
  }
  return {};
}

void append_response_head(std::string& out, std::string_view status, std::string_view content_type,
                          int64_t content_length, std::string_view connection,
                          std::string_view extra_headers) {
  out.append("HTTP/1.1 ").append(status).append("\r\nServer: proofload\r\n");
  out.append("Content-Type: ").append(content_type).append("\r\n");
  if (content_length >= 0) {
    out.append("Content-Length: ").append(std::to_string(content_length)).append("\r\n");
  }
  if (!connection.empty()) out.append("Connection: ").append(connection).append("\r\n");
  out.append(extra_headers).append("\r\n");
}

PreparedResponse prepare_response(std::string_view status, std::string_view connection,
                                  std::string_view body, std::string_view content_type) {
  PreparedResponse response;
  append_response_head(response.bytes, status, content_type, static_cast<int64_t>(body.size()),
                       connection);
  response.head_size = static_cast<uint32_t>(response.bytes.size());
  response.bytes.append(body);
  return response;
}

std::string_view connection_header(const RequestHead& request) {
  if (!request.keep_alive) return "close";
  return request.http_1_0 ? "keep-alive" : "";
}

void reject_request(RequestError error, ReplyBuilder& reply) {
  static const PreparedResponse kBadRequest =
      prepare_response("400 Bad Request", "close", "bad request\n");
  static const PreparedResponse kHeaderTooLarge =
      prepare_response("431 Request Header Fields Too Large", "close", "header too large\n");
  static const PreparedResponse kBodyTooLarge =
      prepare_response("413 Content Too Large", "close", "body too large\n");
  static const PreparedResponse kRequestTimeout =
      prepare_response("408 Request Timeout", "close", "request not completed in time\n");
  const PreparedResponse& response = error == RequestError::kHeaderTooLarge   ? kHeaderTooLarge
                                     : error == RequestError::kBodyTooLarge   ? kBodyTooLarge
                                     : error == RequestError::kRequestTimeout ? kRequestTimeout
                                                                              : kBadRequest;
  reply.send(response.bytes, 0);
  reply.close_after();
}

StaticHandler::StaticHandler(std::string_view body, int64_t delay_ns)
    : delay_ns_(delay_ns),
      ok_keep_alive_(prepare_response("200 OK", "", body)),
      ok_keep_alive_10_(prepare_response("200 OK", "keep-alive", body)),
      ok_close_(prepare_response("200 OK", "close", body)) {}

void StaticHandler::handle(const RequestHead& request, ReplyBuilder& reply) const {
  if (!request.keep_alive) {
    reply.send(ok_close_.for_request(request.is_head), delay_ns_);
    reply.close_after();
    return;
  }
  const PreparedResponse& ok = request.http_1_0 ? ok_keep_alive_10_ : ok_keep_alive_;
  reply.send(ok.for_request(request.is_head), delay_ns_);
}

void StaticHandler::reject(RequestError error, ReplyBuilder& reply) const {
  reject_request(error, reply);
}

}  // namespace proofload::serve
