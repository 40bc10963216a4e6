// See engine.h.
#include "engine/engine.h"

#include "common/clock.h"

namespace proofload::engine {

Engine::Engine(LoadSpec spec) : spec_(std::move(spec)), mailbox_(spec_.workers) {}

Engine::~Engine() {
  if (!threads_.empty()) {
    control_.stop_level.store(2);
    for (auto& w : workers_) w->wake();
    for (auto& t : threads_) t.join();
  }
}

void Engine::start() {
  start_ns_ = monotonic_ns() + kStartLeadNs;
  for (int i = 0; i < spec_.workers; ++i) {
    workers_.push_back(std::make_unique<Worker>(spec_, i, start_ns_, control_, mailbox_));
  }
  for (auto& w : workers_) threads_.emplace_back([worker = w.get()] { worker->run(); });
}

std::optional<measure::WindowStats> Engine::next_window() {
  auto window = mailbox_.next_merged();
  if (!window && !threads_.empty()) {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  return window;
}

std::string Engine::failure() const {
  for (const auto& w : workers_) {
    if (!w->failure().empty()) return w->failure();
  }
  return {};
}

std::string Engine::first_tls_failure() const {
  for (const auto& w : workers_) {
    if (!w->first_tls_failure().empty()) return w->first_tls_failure();
  }
  return {};
}

std::optional<int64_t> Engine::h2_server_max_streams() const {
  uint32_t lowest = UINT32_MAX;
  for (const auto& w : workers_) lowest = std::min(lowest, w->h2_server_max_streams());
  if (lowest == UINT32_MAX) return std::nullopt;
  return lowest;
}

void Engine::request_stop() {
  // fetch_add on a lock-free atomic and write(2) on an eventfd are both async-signal-safe.
  int level = control_.stop_level.fetch_add(1) + 1;
  if (level > 2) control_.stop_level.store(2);
  for (auto& w : workers_) w->wake();
}

}  // namespace proofload::engine
