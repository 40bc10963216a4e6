// The route handler's built-ins (lifecycle API, admin, health, metrics), injected failures and
// SSE streams; see route_handler.h.
#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "serve/lifecycle/item_json.h"
#include "serve/route_handler.h"

namespace proofload::serve {
namespace {

constexpr std::string_view kJson = "application/json";

std::optional<uint64_t> parse_id(std::string_view text) {
  uint64_t id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

// The value of `name` in a query string ("q=abc&n=1"), not percent-decoded.
std::string_view query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    size_t end = query.find('&');
    std::string_view pair = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    if (pair.size() > name.size() && pair.substr(0, name.size()) == name &&
        pair[name.size()] == '=') {
      return pair.substr(name.size() + 1);
    }
  }
  return {};
}

// Status line and reason of a lifecycle answer that is not OK.
std::string_view lifecycle_error_status(LifecycleStatus status) {
  switch (status) {
    case LifecycleStatus::kNotFound:
      return "404 Not Found";
    case LifecycleStatus::kInvalidAction:
      return "409 Conflict";
    case LifecycleStatus::kFull:
      return "503 Service Unavailable";
    case LifecycleStatus::kOk:
      break;
  }
  return "200 OK";
}

int status_code(std::string_view status_line) {
  int code = 0;
  std::from_chars(status_line.data(), status_line.data() + 3, code);
  return code;
}

const PreparedResponse& oversized_header_response() {
  static const PreparedResponse response = [] {
    PreparedResponse r;
    r.bytes = "HTTP/1.1 200 OK\r\nServer: proofload\r\nX-Filler: " + std::string(1 << 20, 'a') +
              "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    r.head_size = static_cast<uint32_t>(r.bytes.size());
    return r;
  }();
  return response;
}

constexpr std::string_view kGarbage = "SSH-2.0-OpenSSH_9.2\r\n\x01\x02 this is not HTTP\r\n\r\n";
constexpr int kTrickleParts = 16;
constexpr int64_t kTrickleGapNs = 50'000'000;  // between the parts of a trickled body

}  // namespace

int RouteHandler::serve_builtin(const Route& route, const RequestHead& request,
                                const PathMatch& match, ReplyBuilder& reply,
                                std::string_view limit_headers) const {
  const std::string& name = route.spec.builtin;
  auto answer = [&](std::string_view status, std::string_view type, std::string_view body) {
    send_built(reply, request, status, type, body, 0, limit_headers);
    return status_code(status);
  };
  if (name == "health") return answer("200 OK", "text/plain", "ok\n");
  if (name == "metrics") {
    if (items_) {
      // The store keeps its own counters; bring the exported ones up to them (monotonic).
      std::lock_guard lock(write_counters_mutex_);
      LifecycleCounters now = items_->counters();
      metrics_->add_accepted(static_cast<uint64_t>(now.accepted - exported_writes_.accepted));
      metrics_->add_committed(static_cast<uint64_t>(now.committed - exported_writes_.committed));
      metrics_->add_dropped(static_cast<uint64_t>(now.dropped - exported_writes_.dropped));
      exported_writes_ = now;
    }
    return answer("200 OK", kPrometheusContentType, metrics_->render_prometheus());
  }
  if (!items_) return answer("503 Service Unavailable", "text/plain", "no lifecycle store\n");
  if (name == "admin.backlog") return answer("200 OK", kJson, counters_body(items_->counters()));
  if (name == "admin.ready") {
    // A drain gate's URL: 503 until every accepted write is committed (backlog and in_progress 0).
    const LifecycleCounters counters = items_->counters();
    const bool drained = counters.backlog == 0 && counters.in_progress == 0;
    return answer(drained ? "200 OK" : "503 Service Unavailable", kJson, counters_body(counters));
  }
  if (name == "admin.reset") {
    items_->reset();
    if (cache_) cache_->clear();
    for (const Route& r : routes_) {
      if (r.limit) r.limit->clear();
    }
    return answer("200 OK", "text/plain", "reset\n");
  }
  if (name == "lifecycle.create") {
    std::string_view title = request.body.empty() ? std::string_view("item") : request.body;
    CreateResult created = items_->create(title.substr(0, 200));
    if (created.status != LifecycleStatus::kOk) {
      return answer(lifecycle_error_status(created.status), "text/plain", "FULL\n");
    }
    // Where the new item is, as a REST service says it (a scenario's `{header: Location}`).
    const std::string id = std::to_string(created.id);
    send_built(reply, request, "201 Created", kJson, "{\"id\":" + id + ",\"state\":\"accepted\"}",
               0, std::string(limit_headers) + "Location: /items/" + id + "\r\n");
    return 201;
  }
  if (name == "lifecycle.search") {
    std::string_view q = query_value(match.query, "q");
    return answer("200 OK", kJson, search_body(q, items_->search(q)));
  }
  std::optional<uint64_t> id =
      match.param_count > 0 ? parse_id(match.params[0]) : std::optional<uint64_t>();
  if (!id) return answer("404 Not Found", "text/plain", "NOT FOUND\n");
  LifecycleStatus status = LifecycleStatus::kOk;
  if (name == "lifecycle.get") {
    ItemView item;
    status = items_->get(*id, &item);
    if (status == LifecycleStatus::kOk) return answer("200 OK", kJson, item_body(item));
  } else if (name == "lifecycle.assign") {
    std::string_view who = request.body.empty() ? std::string_view("someone") : request.body;
    status = items_->assign(*id, who.substr(0, 100));
    if (status == LifecycleStatus::kOk)
      return answer("202 Accepted", kJson, "{\"state\":\"accepted\"}");
  } else if (name == "lifecycle.resolve") {
    status = items_->resolve(*id);
    if (status == LifecycleStatus::kOk) return answer("200 OK", kJson, "{\"state\":\"accepted\"}");
  }
  std::string body = std::string(status_reason(status)) + "\n";
  return answer(lifecycle_error_status(status), "text/plain", body);
}

int RouteHandler::serve_failure(Failure failure, const Route& route, const RequestHead& request,
                                ReplyBuilder& reply, std::string_view limit_headers) const {
  switch (failure) {
    case Failure::kStatus500:
      send_built(reply, request, "500 Internal Server Error", "text/plain", "injected failure\n", 0,
                 limit_headers);
      return 500;
    case Failure::kStatus503:
      send_built(reply, request, "503 Service Unavailable", "text/plain", "injected failure\n", 0,
                 limit_headers);
      return 503;
    case Failure::kReset:
      reply.abort(0);
      return 0;
    case Failure::kGarbage:
      reply.send(kGarbage, 0);
      reply.close_after();
      return 0;
    case Failure::kOversizedHeader:
      reply.send(oversized_header_response().bytes, 0);
      reply.close_after();
      return 0;
    case Failure::kTrickle: {
      // The route's answer, its body sent in pieces kTrickleGapNs apart.
      std::string& head = reply.send_built(0);
      append_response_head(head, route.status_line, route.spec.content_type,
                           static_cast<int64_t>(route.body.size()), connection_header(request),
                           limit_headers);
      if (!request.is_head) {
        size_t piece = std::max<size_t>(1, (route.body.size() + kTrickleParts - 1) / kTrickleParts);
        int64_t at_ns = 0;
        for (size_t offset = 0; offset < route.body.size(); offset += piece) {
          at_ns += kTrickleGapNs;
          reply.send(std::string_view(route.body).substr(offset, piece), at_ns);
        }
      }
      if (!request.keep_alive) reply.close_after();
      return route.spec.status;
    }
    case Failure::kNone:
      break;
  }
  return route.spec.status;
}

// The stream's length is known up front and sent as Content-Length (the connection stays
// reusable); its events are made by the worker as they fall due.
void RouteHandler::serve_sse(const Route& route, const RequestHead& request, int64_t delay_ns,
                             ReplyBuilder& reply, std::string_view limit_headers) const {
  std::string& head = reply.send_built(delay_ns);
  append_response_head(head, route.status_line, route.spec.content_type, route.sse->body_bytes(),
                       connection_header(request), "Cache-Control: no-cache\r\n");
  head.insert(head.size() - 2, limit_headers);  // before the blank line
  if (!request.is_head) reply.stream(*route.sse, delay_ns);
  if (!request.keep_alive) reply.close_after();
}

void RouteHandler::serve_llm(const Route& route, const RequestHead& request, int64_t delay_ns,
                             Rng& rng, ReplyBuilder& reply, std::string_view limit_headers) const {
  const LlmSpec& spec = *route.spec.llm;
  // The request's "stream" and "max_tokens", as an OpenAI-compatible server reads them; a body
  // that is not JSON asks for neither.
  const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  const bool stream = body.is_object() && body.value("stream", false) == true;
  int tokens = spec.tokens_min;
  if (spec.tokens_max > spec.tokens_min) {
    tokens += static_cast<int>(unit_double(rng) * (spec.tokens_max - spec.tokens_min + 1));
  }
  if (body.is_object() && body.contains("max_tokens") && body["max_tokens"].is_number_integer()) {
    tokens = static_cast<int>(std::clamp<int64_t>(body["max_tokens"].get<int64_t>(), 1, tokens));
  }
  const LlmAnswer& answer =
      (stream ? route.llm_streams : route.llm_wholes)[static_cast<size_t>(tokens - 1)];
  // The head goes at once; the generation waits for a slot, then makes its tokens.
  const int64_t queued_ns =
      route.llm_slots->admit(monotonic_ns() + delay_ns, answer.generation_ns());
  std::string& head = reply.send_built(delay_ns);
  append_response_head(head, route.status_line, answer.content_type(), answer.body_bytes(),
                       connection_header(request), stream ? "Cache-Control: no-cache\r\n" : "");
  head.insert(head.size() - 2, limit_headers);  // before the blank line
  if (!request.is_head) reply.stream(answer, delay_ns + queued_ns);
  if (!request.keep_alive) reply.close_after();
}

}  // namespace proofload::serve
