// Wall-clock time: RFC 3339 text, this machine's name and how far its clock can be trusted, and a
// wait for an agreed moment. What several machines running one load (`--start-at`, docs/
// distributed.md) and Kubernetes' timestamps need. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proofload {

// "2024-05-01T10:00:00Z", with an optional fraction and a "Z" or "+02:00" offset, as Unix ns;
// nullopt for anything else.
std::optional<int64_t> parse_rfc3339_unix_ns(std::string_view text);

// Unix ns as RFC 3339 UTC: "2024-05-01T12:00:00.123Z" (milliseconds, floored), or with
// `whole_seconds` "2024-05-01T12:00:00Z".
std::string format_rfc3339_utc(int64_t unix_ns, bool whole_seconds = false);

// What the kernel says of its clock's discipline (adjtimex): whether NTP (chrony, ntpd,
// systemd-timesyncd) keeps it synchronized, and then its estimated offset and error. Without a
// synchronized clock there is no estimate, and `description` says so: several machines' start
// times can then be compared only as well as their clocks were set.
struct ClockStatus {
  bool synchronized = false;
  std::optional<double> offset_ms;           // the last measured offset the kernel is correcting
  std::optional<double> estimated_error_ms;  // the kernel's estimated error
  std::optional<double> max_error_ms;        // its bound on the error
  std::string description;                   // one line for a report
};
ClockStatus read_clock_status();

// This machine's host name ("" when it cannot be read).
std::string host_name();

// Sleeps until the wall clock reads `wall_ns` or `stop` is set (looked at every 50 ms); true when
// the moment came. A moment already past returns at once.
bool sleep_until_wall_ns(int64_t wall_ns, const std::atomic<bool>& stop);

}  // namespace proofload
