// The load engine: starts one Worker thread per configured worker, hands out their merged
// windows in order, and relays stop requests. Knows nothing of experiments or files.
//
//   Engine engine(spec);
//   engine.start();
//   while (auto window = engine.next_window()) { ... }   // about once per window_ns
//
// next_window() is for one consumer thread; request_stop() may be called from any thread and
// from a signal handler.
#pragma once

#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "engine/load_spec.h"
#include "engine/window_mailbox.h"
#include "engine/worker.h"

namespace proofload::engine {

class Engine {
 public:
  explicit Engine(LoadSpec spec);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Starts the workers. The run's clock (window 0, the first arrival) starts a short lead time
  // later, so that connections opened up front are ready when the schedule begins.
  void start();
  int64_t start_ns() const { return start_ns_; }

  // The next window, merged across workers, in index order; nullopt once the run has ended and
  // every window was returned (the worker threads have then been joined).
  std::optional<measure::WindowStats> next_window();
  // When the last request ended, in ns since the start; valid after next_window() ended.
  int64_t end_ns() const { return mailbox_.end_ns(); }
  // What ended inside the measured span (the end of the warm-up to the end of the schedule),
  // merged across workers: throughput's numerators and length. Valid after next_window() ended.
  measure::MeasuredSpan measured_span() const { return mailbox_.measured_span(); }
  // Totals by the part of the run a request was intended in (warm-up or measured); outcomes,
  // status codes, intended counts and histograms only. Valid after next_window() ended.
  measure::WindowStats measured_total() const { return mailbox_.measured_total(); }
  measure::WindowStats warmup_total() const { return mailbox_.warmup_total(); }
  // The same totals by named request and flow (empty unless the workload is a scenario).
  measure::NamedTotals measured_named() const { return mailbox_.measured_named(); }
  measure::NamedTotals warmup_named() const { return mailbox_.warmup_named(); }

  // First call: stop starting requests and drain in-flight ones within the grace period.
  // Second call: end now. Async-signal-safe.
  void request_stop();

  const LoadSpec& spec() const { return spec_; }
  // The first worker failure ("" if none); valid after next_window() ended. A failed worker
  // stops early; the others run on, so the result is partial.
  std::string failure() const;

  // Why the first failed TLS handshake failed ("" if none did); valid after next_window() ended.
  std::string first_tls_failure() const;
  // HTTP/2: the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server announced (nullopt: none did).
  std::optional<int64_t> h2_server_max_streams() const;

  // How many stop requests arrived (0: none; the run ended by its schedule).
  int stop_level() const { return control_.stop_level.load(); }

  // start() sets the load's start this far ahead, so that the workers are up and an open loop's
  // pool is connecting when the first request is due: a start at a given moment calls start()
  // this much before it.
  static constexpr int64_t kStartLeadNs = 50'000'000;

 private:
  LoadSpec spec_;
  RunControl control_;
  WindowMailbox mailbox_;
  int64_t start_ns_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace proofload::engine
