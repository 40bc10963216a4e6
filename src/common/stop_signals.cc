// See stop_signals.h.
#include "common/stop_signals.h"

namespace proofload {
namespace {

std::atomic<StopSignals*> g_innermost{nullptr};

}  // namespace

void on_stop_signal(int /*signal*/) {
  if (StopSignals* signals = g_innermost.load()) signals->on_signal();
}

void StopSignals::on_signal() {
  const int n = count_.fetch_add(1) + 1;
  requested_.store(true);
  if (n >= 2) forced_.store(true);
  if (action_ != nullptr) action_(context_);
}

StopSignals::StopSignals(Action action, void* context)
    : action_(action), context_(context), outer_(g_innermost.load()) {
  g_innermost.store(this);
  struct sigaction handler {};
  handler.sa_handler = on_stop_signal;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGINT, &handler, &previous_int_);
  sigaction(SIGTERM, &handler, &previous_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  g_innermost.store(outer_);
}

}  // namespace proofload
