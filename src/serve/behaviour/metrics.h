// The target's /metrics: request counters by (route, status), requests in flight, the write
// lifecycle's accepted/committed/dropped counters and backlog, streams completed and dropped,
// and the process's CPU and
// memory, rendered in Prometheus text format 0.0.4.
// Thread-safe: counting is a relaxed atomic add into the calling thread's own shard (no lock,
// no allocation, no shared cache line between shards); render_prometheus() may run at any
// time from any thread and sums the shards.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"  // escape_label_value, for the routes' names

namespace proofload::serve {

constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// This process's CPU time (user + system, from /proc/self/stat) and resident memory (from
// /proc/self/statm). ok is false when /proc could not be read.
struct ProcessStats {
  bool ok = false;
  double cpu_seconds = 0;
  int64_t resident_bytes = 0;
};
ProcessStats read_process_stats();

class Metrics {
 public:
  // route_names: the label value of each route index. shards: how many threads count (each
  // passes its own index; a shard may also be shared, at the cost of contention).
  // extra_statuses: statuses, besides the common ones (200, 201, 204, 3xx, 4xx, 5xx in use),
  // that get a series of their own, e.g. those configured on routes. Any other status is
  // counted under status="other". Statuses outside 100..599 are ignored here.
  Metrics(std::vector<std::string> route_names, size_t shards = 1,
          std::span<const int> extra_statuses = {});
  ~Metrics();

  // Reports the commit backlog as a gauge; called at each render. Set before serving.
  void set_backlog_source(std::function<int64_t()> backlog);

  // One answered request. Precondition: route < route count. ~15 ns.
  void count_request(size_t shard, size_t route, int status) {
    counter(shard, 1 + route * status_slots_ + status_slot(status))
        .fetch_add(1, std::memory_order_relaxed);
  }
  // +1 when a request starts being handled, -1 when its answer is done.
  void add_in_flight(size_t shard, int64_t delta) {
    counter(shard, 0).fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
  }
  // The write lifecycle: accepted (queued), committed, dropped (queue full or reset).
  void add_accepted(uint64_t n = 1) { accepted_.fetch_add(n, std::memory_order_relaxed); }
  void add_committed(uint64_t n = 1) { committed_.fetch_add(n, std::memory_order_relaxed); }
  void add_dropped(uint64_t n = 1) { dropped_.fetch_add(n, std::memory_order_relaxed); }
  // Streamed answers (sse, llm): the last part written, or the connection closed first. A
  // client's count of complete streams is reconciled against these.
  void add_stream_ended(bool completed) {
    (completed ? streams_completed_ : streams_dropped_).fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t streams_completed() const { return streams_completed_.load(std::memory_order_relaxed); }
  uint64_t streams_dropped() const { return streams_dropped_.load(std::memory_order_relaxed); }

  // Sums over shards, for tests and the server's own summary.
  uint64_t requests(size_t route, int status) const;
  int64_t in_flight() const;

  // The whole exposition. Allocates (it is one request, not every request).
  std::string render_prometheus() const;

 private:
  struct alignas(64) Line {
    std::atomic<uint64_t> values[8];
  };

  size_t status_slot(int status) const {
    return status >= 100 && status < 600 ? slot_of_status_[status - 100] : other_slot_;
  }
  std::atomic<uint64_t>& counter(size_t shard, size_t index) const {
    if (shard >= shard_count_) shard %= shard_count_;
    size_t i = shard * shard_stride_ + index;
    return lines_[i / 8].values[i % 8];
  }
  uint64_t sum(size_t index) const;

  std::vector<std::string> escaped_routes_;
  std::vector<int> statuses_;             // the status of each slot but the last ("other")
  std::vector<uint16_t> slot_of_status_;  // status - 100 -> slot
  size_t status_slots_;                   // statuses_.size() + 1
  size_t other_slot_;
  size_t shard_count_;
  size_t shard_stride_;            // counters per shard, a multiple of 8: shards never share a line
  std::unique_ptr<Line[]> lines_;  // per shard: [0] in flight, then route-major counters
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> committed_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> streams_completed_{0};
  std::atomic<uint64_t> streams_dropped_{0};
  std::function<int64_t()> backlog_;
};

}  // namespace proofload::serve
