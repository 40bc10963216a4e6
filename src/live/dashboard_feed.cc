// See dashboard_feed.h.
#include "live/dashboard_feed.h"

#include <vector>

namespace proofload::live {

std::string sse_event(std::string_view name, std::string_view data) {
  std::string out = "event: ";
  out.append(name);
  out += "\ndata: ";
  out.append(data);
  out += "\n\n";
  return out;
}

void DashboardFeed::publish(std::string event) {
  std::lock_guard lock(mutex_);
  std::vector<uint64_t> gone;
  for (auto& [id, sink] : sinks_) {
    if (!sink(event)) gone.push_back(id);
  }
  for (uint64_t id : gone) sinks_.erase(id);
  kept_bytes_ += event.size();
  events_.push_back(std::move(event));
  while (events_.size() > 1 && (events_.size() > keep_ || kept_bytes_ > keep_bytes_)) {
    kept_bytes_ -= events_.front().size();
    events_.pop_front();
  }
}

void DashboardFeed::subscribe(uint64_t id, Sink sink) {
  std::lock_guard lock(mutex_);
  for (const std::string& event : events_) {
    if (!sink(event)) return;
  }
  if (!end_.empty()) {
    sink(end_);
    return;  // nothing more will come
  }
  sinks_[id] = std::move(sink);
}

void DashboardFeed::unsubscribe(uint64_t id) {
  std::lock_guard lock(mutex_);
  sinks_.erase(id);
}

void DashboardFeed::end(std::string event) {
  std::lock_guard lock(mutex_);
  for (auto& [id, sink] : sinks_) sink(event);
  sinks_.clear();
  end_ = std::move(event);
}

size_t DashboardFeed::kept() const {
  std::lock_guard lock(mutex_);
  return events_.size();
}

}  // namespace proofload::live
