// The route-based handler; see route_handler.h. Built-ins (lifecycle, admin, health, metrics),
// injected failures and SSE streams are in route_builtins.cc.
#include "serve/route_handler.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "common/clock.h"
#include "common/text.h"
#include "serve/behaviour/cpu_burner.h"

namespace proofload::serve {
namespace {

std::string reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return status < 300   ? "OK"
             : status < 400 ? "Redirect"
             : status < 500 ? "Client Error"
                            : "Server Error";
  }
}

std::optional<DelaySampler> make_delay(const DelaySpec& d, uint64_t seed) {
  switch (d.kind) {
    case DelaySpec::Kind::kNone:
      return std::nullopt;
    case DelaySpec::Kind::kFixed:
      return DelaySampler::fixed(d.fixed_ns, seed);
    case DelaySpec::Kind::kUniform:
      return DelaySampler::uniform(d.min_ns, d.max_ns, seed);
    case DelaySpec::Kind::kExponential:
      return DelaySampler::exponential(d.mean_ns, seed);
    case DelaySpec::Kind::kLognormal:
      return DelaySampler::lognormal(d.median_ns, d.p99_ns, seed);
  }
  return std::nullopt;
}

RateLimiterOptions limiter_options(const LimitSpec& limit, uint64_t seed) {
  RateLimiterOptions options;
  options.rate_per_s = limit.rate_per_s;
  options.burst = limit.burst;
  switch (limit.key) {
    case LimitSpec::Key::kAddress:
      options.key = RateLimiterOptions::Key::kAddress;
      break;
    case LimitSpec::Key::kShared:
      options.key = RateLimiterOptions::Key::kShared;
      options.shared_allowances = static_cast<uint64_t>(limit.shared_allowances);
      break;
    case LimitSpec::Key::kHeader:
      options.key = RateLimiterOptions::Key::kHeader;
      break;
  }
  options.instances = limit.instances;
  options.seed = seed;
  return options;
}

// A few header lines made per request without allocating (Retry-After, the RateLimit pair).
class HeaderLines {
 public:
  void add(std::string_view name, int64_t value) {
    append(name);
    append(": ");
    auto [end, error] = std::to_chars(bytes_.data() + size_, bytes_.data() + bytes_.size(), value);
    if (error == std::errc()) size_ = static_cast<size_t>(end - bytes_.data());
    append("\r\n");
  }
  std::string_view view() const { return {bytes_.data(), size_}; }

 private:
  void append(std::string_view text) {
    size_t n = std::min(text.size(), bytes_.size() - size_);
    std::copy_n(text.data(), n, bytes_.data() + size_);
    size_ += n;
  }
  std::array<char, 160> bytes_;  // three lines of at most 21 + 2 + 20 + 2 characters
  size_t size_ = 0;
};

}  // namespace

RouteHandler::RouteHandler(const RouteTable& table, int threads)
    : matcher_([&] {
        std::vector<RouteTemplate> templates;
        for (const RouteSpec& spec : table.routes) templates.push_back({spec.method, spec.path});
        return templates;
      }()) {
  std::vector<std::string> names;
  std::vector<int> statuses;
  bool any_cache = false;
  for (size_t i = 0; i < table.routes.size(); ++i) {
    const RouteSpec& spec = table.routes[i];
    Route route;
    route.spec = spec;
    route.status_line = std::to_string(spec.status) + " " + reason_phrase(spec.status);
    route.body =
        spec.body_bytes ? std::string(static_cast<size_t>(*spec.body_bytes), 'x') : spec.body;
    route.keep_alive = prepare_response(route.status_line, "", route.body, spec.content_type);
    route.keep_alive_10 =
        prepare_response(route.status_line, "keep-alive", route.body, spec.content_type);
    route.close = prepare_response(route.status_line, "close", route.body, spec.content_type);
    route.delay = make_delay(spec.delay, table.seed + i);
    if (spec.limit) {
      route.limit = std::make_unique<RateLimiter>(limiter_options(*spec.limit, table.seed + i));
      if (spec.limit->trusted_header) {
        route.trusted_header_name = ascii_lowercase(spec.limit->trusted_header->first);
      }
      route.key_header_name = ascii_lowercase(spec.limit->key_header);
    }
    if (spec.fail) {
      const FailSpec& f = *spec.fail;
      route.fail = FailPicker(
          FailProbabilities{f.p500, f.p503, f.reset, f.garbage, f.trickle, f.oversized_header});
    }
    if (spec.serial) route.serial = std::make_unique<std::mutex>();
    if (spec.sse) route.sse = std::make_unique<SseStream>(*spec.sse);
    if (spec.llm) {
      for (int n = 1; n <= spec.llm->tokens_max; ++n) {
        route.llm_streams.emplace_back(*spec.llm, n, true);
        route.llm_wholes.emplace_back(*spec.llm, n, false);
      }
      route.llm_slots = std::make_unique<LlmSlots>(spec.llm->concurrency);
    }
    for (const FaultSpec& fault : spec.faults) {
      // Saturating: a fault that lasts "for ever" must not wrap round to the past.
      int64_t end_ns =
          fault.for_ns > INT64_MAX - fault.at_ns ? INT64_MAX : fault.at_ns + fault.for_ns;
      route.fault_windows.push_back({fault.at_ns, end_ns});
      FaultAnswer answer;
      answer.status = fault.status != 0 ? fault.status : spec.status;
      answer.wrong_body = fault.status == 0;
      // A status fault answers a short text; a body fault, the route's status and content type.
      std::string status_line =
          fault.status != 0 ? std::to_string(fault.status) + " " + reason_phrase(fault.status)
                            : route.status_line;
      std::string_view body = fault.status != 0 ? std::string_view("injected fault\n") : fault.body;
      std::string_view type =
          fault.status != 0 ? std::string_view("text/plain") : spec.content_type;
      answer.keep_alive = prepare_response(status_line, "", body, type);
      answer.keep_alive_10 = prepare_response(status_line, "keep-alive", body, type);
      answer.close = prepare_response(status_line, "close", body, type);
      statuses.push_back(answer.status);
      route.fault_answers.push_back(std::move(answer));
    }
    any_cache = any_cache || spec.cache;
    names.push_back(spec.name);
    statuses.push_back(spec.status);
    routes_.push_back(std::move(route));
  }
  unmatched_route_ = names.size();
  names.push_back("unmatched");
  for (int t = 0; t < threads; ++t) {
    threads_.push_back(ThreadState{make_rng(table.seed, static_cast<uint64_t>(t))});
  }
  if (any_cache) cache_ = std::make_unique<ResultCache>();
  if (table.lifecycle) {
    ItemStoreOptions options;
    options.committers = table.lifecycle->committers;
    options.commit_cost_ns = table.lifecycle->commit_cost_ns;
    options.initial_items = table.lifecycle->initial_items;
    options.search_cost_per_item_ns = table.lifecycle->search_cost_per_item_ns;
    options.seed = table.seed;
    items_ = std::make_unique<ItemStore>(options);
  }
  metrics_ = std::make_unique<Metrics>(names, static_cast<size_t>(threads), statuses);
  if (items_) metrics_->set_backlog_source([store = items_.get()] { return store->backlog(); });
}

RouteHandler::~RouteHandler() = default;

void RouteHandler::reject(RequestError error, ReplyBuilder& reply) const {
  reject_request(error, reply);
}

void RouteHandler::handle(const RequestHead& request, ReplyBuilder& reply) const {
  PathMatch match = matcher_.match(request.method, request.target);
  auto shard = static_cast<size_t>(request.thread_index);
  if (match.status != PathMatch::Status::kFound) {
    bool wrong_method = match.status == PathMatch::Status::kMethodNotAllowed;
    send_built(reply, request, wrong_method ? "405 Method Not Allowed" : "404 Not Found",
               "text/plain", wrong_method ? "method not allowed\n" : "not found\n", 0);
    metrics_->count_request(shard, unmatched_route_, wrong_method ? 405 : 404);
    return;
  }
  auto index = static_cast<size_t>(match.route);
  serve_route(routes_[index], index, request, match, reply);
}

void RouteHandler::serve_route(const Route& route, size_t index, const RequestHead& request,
                               const PathMatch& match, ReplyBuilder& reply) const {
  auto shard = static_cast<size_t>(request.thread_index);
  Rng& rng = threads_[shard].rng;
  const RouteSpec& spec = route.spec;

  // Every answer the limit decided says how much allowance is left (IETF RateLimit headers);
  // the answers of other routes stay the prepared bytes.
  HeaderLines limit_lines;
  if (route.limit) {
    const auto& trusted = spec.limit->trusted_header;
    bool lifted = trusted && request.header(route.trusted_header_name) == trusted->second;
    if (!lifted) {
      std::string_view key_header = route.key_header_name.empty()
                                        ? std::string_view()
                                        : request.header(route.key_header_name);
      auto decision =
          route.limit->take(AddressKey::from_sockaddr(*request.peer), key_header, monotonic_ns());
      if (!decision.allowed) limit_lines.add("Retry-After", decision.retry_after_s);
      limit_lines.add("RateLimit-Limit", route.limit->burst());
      limit_lines.add("RateLimit-Remaining", decision.remaining);
      if (!decision.allowed) {
        send_built(reply, request, "429 Too Many Requests", "text/plain", "too many requests\n", 0,
                   limit_lines.view());
        metrics_->count_request(shard, index, 429);
        return;
      }
    }
  }
  std::string_view limit_headers = limit_lines.view();
  // One clock read, only on routes that change with time.
  int64_t elapsed_ns = spec.drift || !route.fault_windows.empty() ? monotonic_ns() - start_ns_ : 0;
  const FaultAnswer* fault = nullptr;
  if (int i = first_fault_at(route.fault_windows, elapsed_ns); i >= 0) {
    fault = &route.fault_answers[static_cast<size_t>(i)];
  }
  if (fault && !fault->wrong_body) {
    // An outage answers at once, like `fail`: no cpu, no delay.
    send_prepared(reply, request, fault->keep_alive, fault->keep_alive_10, fault->close, 0,
                  limit_headers);
    metrics_->count_request(shard, index, fault->status);
    return;
  }
  if (route.fail.enabled()) {
    if (Failure failure = route.fail.pick(rng); failure != Failure::kNone) {
      metrics_->count_request(shard, index,
                              serve_failure(failure, route, request, reply, limit_headers));
      return;
    }
  }
  if (!spec.builtin.empty()) {
    metrics_->count_request(shard, index,
                            serve_builtin(route, request, match, reply, limit_headers));
    return;
  }
  bool warm = spec.cache && cache_->seen_or_insert(static_cast<uint32_t>(index), match.query);
  if (spec.cpu_ns > 0 && !warm) {
    if (route.serial) {
      std::lock_guard one_at_a_time(*route.serial);
      burn_cpu(spec.cpu_ns);
    } else {
      burn_cpu(spec.cpu_ns);
    }
  }
  int64_t delay_ns = route.delay ? route.delay->sample_ns(rng) : 0;
  if (spec.drift) {
    delay_ns = drifted_delay_ns(delay_ns, spec.drift->add_ns, spec.drift->every_ns, elapsed_ns);
  }
  if (spec.sse) {
    serve_sse(route, request, delay_ns, reply, limit_headers);
  } else if (spec.llm) {
    serve_llm(route, request, delay_ns, rng, reply, limit_headers);
  } else if (fault) {
    // A body fault: the route's status, cpu and delay, with the wrong body.
    send_prepared(reply, request, fault->keep_alive, fault->keep_alive_10, fault->close, delay_ns,
                  limit_headers);
  } else {
    send_prepared(reply, request, route.keep_alive, route.keep_alive_10, route.close, delay_ns,
                  limit_headers);
  }
  metrics_->count_request(shard, index, spec.status);
}

void RouteHandler::send_prepared(ReplyBuilder& reply, const RequestHead& request,
                                 const PreparedResponse& keep_alive,
                                 const PreparedResponse& keep_alive_10,
                                 const PreparedResponse& close, int64_t delay_ns,
                                 std::string_view extra_headers) {
  const PreparedResponse& response = !request.keep_alive ? close
                                     : request.http_1_0  ? keep_alive_10
                                                         : keep_alive;
  if (extra_headers.empty()) {
    reply.send(response.for_request(request.is_head), delay_ns);
  } else {
    // The prepared head up to its blank line, the extra headers, the blank line; the body (up
    // to 64 MiB) is not copied but sent from the prepared bytes as a second part.
    std::string_view bytes = response.bytes;
    std::string& head = reply.send_built(delay_ns);
    head.append(bytes.substr(0, response.head_size - 2)).append(extra_headers).append("\r\n");
    if (!request.is_head && bytes.size() > response.head_size) {
      reply.send(bytes.substr(response.head_size), delay_ns);
    }
  }
  if (!request.keep_alive) reply.close_after();
}

void RouteHandler::send_built(ReplyBuilder& reply, const RequestHead& request,
                              std::string_view status, std::string_view content_type,
                              std::string_view body, int64_t delay_ns,
                              std::string_view extra_headers) {
  std::string& out = reply.send_built(delay_ns);
  append_response_head(out, status, content_type, static_cast<int64_t>(body.size()),
                       connection_header(request), extra_headers);
  if (!request.is_head) out.append(body);
  if (!request.keep_alive) reply.close_after();
}

}  // namespace proofload::serve
