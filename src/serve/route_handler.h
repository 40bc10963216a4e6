// The route-based handler of `proofload serve --routes FILE | --profile NAME`: matches each
// request to a route of a RouteTable and gives it the route's behaviour (limit, injected
// failure, cache, cpu, serial, delay, SSE stream, lifecycle and admin built-ins, /metrics), and
// the parts that change with the server's age (drift, scheduled faults).
// Built once; called from every server thread: per-thread state (random generators) is indexed
// by the request's thread, shared state (token buckets, cache, item store, metrics) is
// thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "serve/behaviour/delay_sampler.h"
#include "serve/behaviour/fail_picker.h"
#include "serve/behaviour/metrics.h"
#include "serve/behaviour/path_matcher.h"
#include "serve/behaviour/rate_limiter.h"
#include "serve/behaviour/result_cache.h"
#include "serve/handler.h"
#include "serve/lifecycle/item_store.h"
#include "serve/routes/route_config.h"
#include "serve/llm_stream.h"
#include "serve/sse_stream.h"

namespace proofload::serve {

class RouteHandler : public RequestHandler {
 public:
  // Throws UsageError for routes the server cannot serve as configured (say why).
  RouteHandler(const RouteTable& table, int threads);
  ~RouteHandler() override;

  // The server's time zero on the monotonic clock, which drift and faults count from (default:
  // when constructed). Set before serving; a test sets one in the past to be that far in.
  void set_start_ns(int64_t start_ns) { start_ns_ = start_ns; }

  void handle(const RequestHead& request, ReplyBuilder& reply) const override;
  void reject(RequestError error, ReplyBuilder& reply) const override;
  void stream_ended(bool completed) const override { metrics_->add_stream_ended(completed); }

 private:
  // The answer of a scheduled fault, prepared like the route's own.
  struct FaultAnswer {
    int status = 0;           // the status it answers (the route's own for a body fault)
    bool wrong_body = false;  // a body fault: served after the route's cpu and delay
    PreparedResponse keep_alive, keep_alive_10, close;
  };
  // A route as served: its spec plus what it needs at run time.
  struct Route {
    RouteSpec spec;
    std::string status_line;  // "200 OK"
    std::string body;         // fixed or generated
    PreparedResponse keep_alive, keep_alive_10, close;
    std::optional<DelaySampler> delay;
    std::unique_ptr<RateLimiter> limit;
    std::string trusted_header_name;  // lower case, as RequestHead::header wants it
    std::string key_header_name;      // lower case; set when the limit is keyed by a header
    FailPicker fail;
    std::unique_ptr<std::mutex> serial;      // held while the cpu work runs
    std::unique_ptr<SseStream> sse;          // the events of an sse route, made as they fall due
    // An llm route's answers by token count (index n - 1), streamed and whole, and its slots.
    std::vector<LlmAnswer> llm_streams, llm_wholes;
    std::unique_ptr<LlmSlots> llm_slots;
    std::vector<FaultWindow> fault_windows;  // parallel to fault_answers
    std::vector<FaultAnswer> fault_answers;
  };
  struct alignas(64) ThreadState {
    Rng rng;
  };

  void serve_route(const Route& route, size_t index, const RequestHead& request,
                   const PathMatch& match, ReplyBuilder& reply) const;
  // The serve_* below and send_prepared add `limit_headers` (each line ending in CRLF; the
  // RateLimit headers of a limited route, else empty) to every HTTP answer they make.
  // Answers a built-in; returns the status sent.
  int serve_builtin(const Route& route, const RequestHead& request, const PathMatch& match,
                    ReplyBuilder& reply, std::string_view limit_headers) const;
  int serve_failure(Failure failure, const Route& route, const RequestHead& request,
                    ReplyBuilder& reply, std::string_view limit_headers) const;
  void serve_sse(const Route& route, const RequestHead& request, int64_t delay_ns,
                 ReplyBuilder& reply, std::string_view limit_headers) const;
  void serve_llm(const Route& route, const RequestHead& request, int64_t delay_ns, Rng& rng,
                 ReplyBuilder& reply, std::string_view limit_headers) const;
  // Without extra headers the prepared bytes go out as they are; with them, the head is copied
  // with the headers added and the body still goes out from the prepared bytes.
  static void send_prepared(ReplyBuilder& reply, const RequestHead& request,
                            const PreparedResponse& keep_alive,
                            const PreparedResponse& keep_alive_10, const PreparedResponse& close,
                            int64_t delay_ns, std::string_view extra_headers = {});
  static void send_built(ReplyBuilder& reply, const RequestHead& request, std::string_view status,
                         std::string_view content_type, std::string_view body, int64_t delay_ns,
                         std::string_view extra_headers = {});

  std::vector<Route> routes_;
  PathMatcher matcher_;
  mutable std::vector<ThreadState> threads_;
  std::unique_ptr<ResultCache> cache_;
  std::unique_ptr<ItemStore> items_;
  std::unique_ptr<Metrics> metrics_;
  mutable std::mutex write_counters_mutex_;      // guards exported_writes_
  mutable LifecycleCounters exported_writes_{};  // the store's counters last added to metrics_
  size_t unmatched_route_;             // metrics index for requests no route took (404, 405)
  int64_t start_ns_ = monotonic_ns();  // time zero of drift and faults
};

}  // namespace proofload::serve
