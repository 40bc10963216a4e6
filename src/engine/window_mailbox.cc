// See window_mailbox.h.
#include "engine/window_mailbox.h"

#include <algorithm>

namespace proofload::engine {

WindowMailbox::WindowMailbox(int workers) : workers_(workers), spares_(workers) {}

void WindowMailbox::post(int worker, measure::WindowStats& window) {
  std::optional<measure::WindowStats> spare;
  {
    std::lock_guard lock(mutex_);
    std::vector<measure::WindowStats>& mine = spares_[static_cast<size_t>(worker)];
    if (!mine.empty()) {
      spare.emplace(std::move(mine.back()));
      mine.pop_back();
    }
  }
  if (!spare) {  // the first windows: a cleared copy, for its shape
    spare.emplace(window);
    spare->clear();
  }
  std::swap(window, *spare);
  const int64_t index = spare->index;
  {
    std::lock_guard lock(mutex_);
    pending_[index].emplace_back(worker, std::move(*spare));
    workers_[worker].posted_up_to = index;
  }
  changed_.notify_all();
}

void WindowMailbox::post_done(int worker, int64_t last_index, int64_t end_ns,
                              const measure::MeasuredSpan& span,
                              const measure::WindowStats& measured_total,
                              const measure::WindowStats& warmup_total,
                              const measure::NamedTotals& measured_named,
                              const measure::NamedTotals& warmup_named) {
  {
    std::lock_guard lock(mutex_);
    span_.merge(span);
    measured_total_.merge(measured_total);
    warmup_total_.merge(warmup_total);
    measured_named_.merge(measured_named);
    warmup_named_.merge(warmup_named);
    workers_[worker].posted_up_to = last_index;
    workers_[worker].done = true;
    end_ns_ = std::max(end_ns_, end_ns);
  }
  changed_.notify_all();
}

bool WindowMailbox::ready_locked(int64_t index) const {
  for (const WorkerState& w : workers_) {
    if (w.posted_up_to < index && !w.done) return false;
  }
  return true;
}

std::optional<measure::WindowStats> WindowMailbox::next_merged() {
  std::unique_lock lock(mutex_);
  for (;;) {
    bool all_done =
        std::all_of(workers_.begin(), workers_.end(), [](const WorkerState& w) { return w.done; });
    if (ready_locked(next_index_)) {
      auto it = pending_.find(next_index_);
      if (it != pending_.end()) {
        auto parts = std::move(it->second);
        pending_.erase(it);
        ++next_index_;
        lock.unlock();
        measure::WindowStats merged = parts.front().second;
        for (size_t i = 1; i < parts.size(); ++i) {
          const measure::WindowStats& part = parts[i].second;
          merged.merge(part);
          merged.warmup = merged.warmup || part.warmup;
          merged.drain = merged.drain && part.drain;  // every worker's span had ended
          merged.duration_ns = std::max(merged.duration_ns, part.duration_ns);
        }
        for (auto& [worker, part] : parts) part.clear();
        lock.lock();
        for (auto& [worker, part] : parts) {
          spares_[static_cast<size_t>(worker)].push_back(std::move(part));
        }
        return merged;
      }
      if (all_done) return std::nullopt;  // every worker ended before this index
    }
    changed_.wait(lock);
  }
}

int64_t WindowMailbox::end_ns() const {
  std::lock_guard lock(mutex_);
  return end_ns_;
}

measure::MeasuredSpan WindowMailbox::measured_span() const {
  std::lock_guard lock(mutex_);
  return span_;
}

measure::WindowStats WindowMailbox::measured_total() const {
  std::lock_guard lock(mutex_);
  return measured_total_;
}

measure::WindowStats WindowMailbox::warmup_total() const {
  std::lock_guard lock(mutex_);
  return warmup_total_;
}

measure::NamedTotals WindowMailbox::measured_named() const {
  std::lock_guard lock(mutex_);
  return measured_named_;
}

measure::NamedTotals WindowMailbox::warmup_named() const {
  std::lock_guard lock(mutex_);
  return warmup_named_;
}

}  // namespace proofload::engine
