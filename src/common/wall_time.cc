// See wall_time.h.
#include "common/wall_time.h"

#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

#include "common/clock.h"

namespace proofload {
namespace {

int digits(std::string_view text, size_t at, size_t count) {
  int value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<int64_t> parse_rfc3339_unix_ns(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = digits(text, 0, 4) - 1900;
  tm.tm_mon = digits(text, 5, 2) - 1;
  tm.tm_mday = digits(text, 8, 2);
  tm.tm_hour = digits(text, 11, 2);
  tm.tm_min = digits(text, 14, 2);
  tm.tm_sec = digits(text, 17, 2);
  if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 ||
      tm.tm_sec > 60) {
    return std::nullopt;
  }
  size_t at = 19;
  int64_t fraction_ns = 0;
  if (at < text.size() && text[at] == '.') {
    int64_t scale = kNsPerS;
    for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
      scale /= 10;
      fraction_ns += (text[at] - '0') * scale;
    }
  }
  int64_t offset_s = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    int hours = digits(text, at + 1, 2);
    int minutes = digits(text, at + 4, 2);
    if (hours < 0 || minutes < 0) return std::nullopt;
    offset_s = (text[at] == '+' ? 1 : -1) * (hours * 3600 + minutes * 60);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  const int64_t seconds = static_cast<int64_t>(timegm(&tm)) - offset_s;
  return seconds * kNsPerS + fraction_ns;
}

std::string format_rfc3339_utc(int64_t unix_ns, bool whole_seconds) {
  int64_t seconds = unix_ns / kNsPerS;
  int64_t rest_ns = unix_ns % kNsPerS;
  if (rest_ns < 0) {  // before 1970: floor, so the fraction stays positive
    --seconds;
    rest_ns += kNsPerS;
  }
  const time_t t = static_cast<time_t>(seconds);
  tm utc{};
  gmtime_r(&t, &utc);
  char text[40];
  const size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::string out(text, length);
  if (!whole_seconds) {
    std::snprintf(text, sizeof text, ".%03lld", static_cast<long long>(rest_ns / kNsPerMs));
    out += text;
  }
  return out + "Z";
}

ClockStatus read_clock_status() {
  ClockStatus status;
  timex tx{};
  const int state = adjtimex(&tx);
  if (state == -1) {
    status.description = "unknown: the kernel's clock status could not be read (adjtimex)";
    return status;
  }
  if (state == TIME_ERROR || (tx.status & STA_UNSYNC) != 0) {
    status.description = "unknown: the clock is not synchronized by NTP (adjtimex)";
    return status;
  }
  status.synchronized = true;
  const double offset_unit_ms = (tx.status & STA_NANO) != 0 ? 1e-6 : 1e-3;
  status.offset_ms = static_cast<double>(tx.offset) * offset_unit_ms;
  status.estimated_error_ms = static_cast<double>(tx.esterror) / 1000.0;
  status.max_error_ms = static_cast<double>(tx.maxerror) / 1000.0;
  status.description = "synchronized by NTP (adjtimex)";
  return status;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

bool sleep_until_wall_ns(int64_t wall_ns, const std::atomic<bool>& stop) {
  constexpr int64_t kLookEveryNs = 50 * kNsPerMs;
  for (;;) {
    if (stop.load()) return false;
    const int64_t now = wall_clock_ns();
    if (now >= wall_ns) return true;
    // Absolute on CLOCK_REALTIME: a clock stepped meanwhile moves the moment with it.
    const int64_t until = std::min(wall_ns, now + kLookEveryNs);
    timespec at{static_cast<time_t>(until / kNsPerS), static_cast<long>(until % kNsPerS)};
    clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, nullptr);
  }
}

}  // namespace proofload
