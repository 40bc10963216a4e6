// The dashboard's Server-Sent Events: every window sent so far, kept so that a page opened late
// (or reloaded) draws the whole run, and pushed to each subscriber as it comes.
// Bounded: the last kKeptWindows windows (an hour of 1 s windows) and at most kKeptBytes of them;
// older ones are forgotten, and a page opened after that starts from the oldest kept. The byte
// bound is what a subscriber's replay may queue at once (http_listener.h's per-reader bound is
// twice it), so that a replay never drops the page that asked for it.
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
// ~700 windows of ~3 KiB (12 minutes of 1 s windows); a window with a Prometheus observer's
// thousands of series is larger, and fewer of them are kept. The newest is always kept.
constexpr size_t kKeptBytes = size_t{2} << 20;

// One Server-Sent Event: "event: NAME\ndata: DATA\n\n". `data` must be one line (JSON dumped
// without indentation is).
std::string sse_event(std::string_view name, std::string_view data);

class DashboardFeed {
 public:
  // A subscriber's way out: false when it is gone (it is then forgotten).
  using Sink = std::function<bool(std::string_view)>;

  explicit DashboardFeed(size_t keep = kKeptWindows, size_t keep_bytes = kKeptBytes)
      : keep_(keep), keep_bytes_(keep_bytes) {}

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
  const size_t keep_bytes_;
  mutable std::mutex mutex_;
  std::deque<std::string> events_;
  size_t kept_bytes_ = 0;  // of events_
  std::string end_;  // "" until end()
  std::map<uint64_t, Sink> sinks_;
};

}  // namespace proofload::live
