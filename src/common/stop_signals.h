// SIGINT and SIGTERM as "stop gracefully", for whatever runs in the foreground: a run, a ladder,
// `observe`, `serve`. A StopSignals installs the handlers for as long as it lives and puts the
// previous ones back after. Nested (a ladder's level run inside the ladder), the innermost takes
// the signals while it lives, as a level's run must stop its engine, and the ladder hears of it
// from the run's result (request()). The first signal sets requested(), a second forced(): what
// a stopping experiment uses to cancel the hooks it would otherwise still run on its way out.
// One thread installs and destroys them (the main one); the handler only touches atomics.
#pragma once

#include <signal.h>

#include <atomic>

namespace proofload {

class StopSignals {
 public:
  // Called from the signal handler with `context`: must be async-signal-safe (an atomic store,
  // Engine::request_stop, Server::stop).
  using Action = void (*)(void* context);

  explicit StopSignals(Action action = nullptr, void* context = nullptr);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const { return requested_.load(); }
  bool forced() const { return forced_.load(); }
  // For code that polls a cancel flag (hooks, the drain gate).
  const std::atomic<bool>& requested_flag() const { return requested_; }
  const std::atomic<bool>& forced_flag() const { return forced_; }
  // As if a signal had come: a nested run reported that it was interrupted.
  void request() { requested_.store(true); }

 private:
  friend void on_stop_signal(int);
  void on_signal();

  Action action_;
  void* context_;
  StopSignals* outer_;
  std::atomic<int> count_{0};
  std::atomic<bool> requested_{false};
  std::atomic<bool> forced_{false};
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace proofload
