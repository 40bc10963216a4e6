// The dashboard's Server-Sent Events: every window sent so far, kept so that a page opened late
// (or reloaded) draws the whole run, and pushed to each subscriber as it comes.
// Bounded: the last kKeptWindows windows (an hour of 1 s windows, a few MiB); older ones are
// forgotten, and a page opened after that starts from the oldest kept.
// Thread-safety: all members may be called from any thread. A sink is called with the feed's lock
// held, so that a subscriber never misses a window nor gets one twice between its replay and
// the next publish; a sink must not call back into the feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace proofload::live {

constexpr size_t kKeptWindows = 3600;

// One Server-Sent Event: "event: NAME\ndata: DATA\n\n". `data` must be one line (JSON dumped
// without indentation is).
std::string sse_event(std::string_view name, std::string_view data);

class DashboardFeed {
 public:
  // A subscriber's way out: false when it is gone (it is then forgotten).
  using Sink = std::function<bool(std::string_view)>;

  explicit DashboardFeed(size_t keep = kKeptWindows) : keep_(keep) {}

  // Keeps the event and sends it to every subscriber.
  void publish(std::string event);
  // Sends every kept event to `sink` (then the end, if it came), and subscribes it.
  void subscribe(uint64_t id, Sink sink);
  void unsubscribe(uint64_t id);
  // The experiment ended: `event` goes to every subscriber, and to any that subscribes later
  // after the replay.
  void end(std::string event);

  size_t kept() const;

 private:
  const size_t keep_;
  mutable std::mutex mutex_;
  std::deque<std::string> events_;
  std::string end_;  // "" until end()
  std::map<uint64_t, Sink> sinks_;
};

}  // namespace proofload::live
