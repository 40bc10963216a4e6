// Durations, rates and sizes as a user writes them (see units.h). Stateless; throws UsageError
// only.
#include "common/units.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/clock.h"
#include "common/text.h"
#include "common/usage_error.h"

namespace proofload {
namespace {

// Exact arithmetic for "digits x unit / 10^fraction_digits" without overflow surprises.
__extension__ using Int128 = __int128;

constexpr int64_t kNsPerMin = 60 * kNsPerS;
constexpr int64_t kNsPerHour = 60 * kNsPerMin;
// More fraction digits than this cannot change the result by a nanosecond (units are >= 1 ns
// and <= 3.6e12 ns); they are read and ignored so that "0.1000000000000000001s" still parses.
constexpr int kMaxFractionDigits = 18;

struct Unit {
  std::string_view name;
  int64_t ns;
};
// Largest first: the order units must appear in.
constexpr std::array<Unit, 7> kUnits = {{{"h", kNsPerHour},
                                         {"m", kNsPerMin},
                                         {"s", kNsPerS},
                                         {"ms", kNsPerMs},
                                         {"us", kNsPerUs},
                                         {"\xC2\xB5s", kNsPerUs},  // µs
                                         {"ns", 1}}};

[[noreturn]] void bad_duration(std::string_view text, std::string_view why) {
  throw UsageError("invalid duration \"" + std::string(text) + "\": " + std::string(why) +
                   " (use a number and a unit h, m, s, ms, us or ns, like 500ms, 10s or 1m30s)");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads "123", "1.5", ".5" or "2." from the front of `rest`. Returns the value scaled by `unit`
// once the unit is known, so the caller hands back the parts.
struct Number {
  Int128 integer = 0;
  Int128 fraction = 0;        // the fraction digits as an integer...
  Int128 fraction_scale = 1;  // ...over this power of ten
  bool any_digit = false;
};

Number read_number(std::string_view& rest, std::string_view text) {
  Number n;
  while (!rest.empty() && is_digit(rest.front())) {
    n.integer = n.integer * 10 + (rest.front() - '0');
    // Far beyond any int64 duration even in ns; stop before the Int128 itself could overflow.
    if (n.integer > Int128{std::numeric_limits<int64_t>::max()}) bad_duration(text, "too large");
    n.any_digit = true;
    rest.remove_prefix(1);
  }
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    int digits = 0;
    while (!rest.empty() && is_digit(rest.front())) {
      if (digits < kMaxFractionDigits) {
        n.fraction = n.fraction * 10 + (rest.front() - '0');
        n.fraction_scale *= 10;
        ++digits;
      }
      n.any_digit = true;
      rest.remove_prefix(1);
    }
  }
  return n;
}

}  // namespace

double parse_scaled_number(std::string_view text, std::string_view what) {
  const std::string_view original = text;
  auto fail = [&](std::string_view why) -> double {
    throw UsageError("invalid " + std::string(what) + " \"" + std::string(original) +
                     "\": " + std::string(why));
  };
  text = trim(text);
  if (text.empty()) fail("empty (use a number like 1000, 1k or 2.5k)");
  if (text.ends_with("/s")) text.remove_suffix(2);
  double multiplier = 1;
  if (text.ends_with('k') || text.ends_with('K')) {
    multiplier = 1e3;
    text.remove_suffix(1);
  } else if (text.ends_with('M')) {
    multiplier = 1e6;
    text.remove_suffix(1);
  }
  if (text.starts_with('-')) fail("must not be negative");
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    fail("not a number (use a number like 1000, 1k or 2.5k)");
  }
  value *= multiplier;
  if (!std::isfinite(value)) fail("must be a finite number");
  if (value < 0) fail("must not be negative");
  return value;
}

int64_t parse_duration_ns(std::string_view text) {
  std::string_view rest = trim(text);
  if (rest.empty()) bad_duration(text, "empty");
  if (rest.front() == '-') bad_duration(text, "must not be negative");

  Int128 total_ns = 0;
  size_t next_unit = 0;  // index in kUnits of the largest unit still allowed
  bool first = true;
  while (!rest.empty()) {
    Number n = read_number(rest, text);
    if (!n.any_digit) bad_duration(text, "expected a number");
    size_t unit_len = 0;
    while (unit_len < rest.size() && !is_digit(rest[unit_len]) && rest[unit_len] != '.') {
      ++unit_len;
    }
    const std::string_view unit_name = rest.substr(0, unit_len);
    rest.remove_prefix(unit_len);
    int64_t unit_ns = 0;
    if (unit_name.empty()) {
      if (!first || !rest.empty()) bad_duration(text, "missing unit");
      unit_ns = kNsPerS;  // a bare number is seconds
    } else {
      size_t i = 0;
      while (i < kUnits.size() && kUnits[i].name != unit_name) ++i;
      if (i == kUnits.size()) bad_duration(text, "unknown unit \"" + std::string(unit_name) + "\"");
      if (i < next_unit) bad_duration(text, "units must go from largest to smallest, once each");
      next_unit = i + 1;
      if (kUnits[i].name == "us") ++next_unit;  // "us" and "µs" are one unit
      unit_ns = kUnits[i].ns;
    }
    // Round the fraction to the nearest ns, half up.
    const Int128 fraction_ns =
        (n.fraction * unit_ns * 2 + n.fraction_scale) / (n.fraction_scale * 2);
    total_ns += n.integer * unit_ns + fraction_ns;
    if (total_ns > Int128{std::numeric_limits<int64_t>::max()}) bad_duration(text, "too large");
    first = false;
  }
  return static_cast<int64_t>(total_ns);
}

int64_t parse_positive_duration_ns(std::string_view flag, std::string_view text) {
  const int64_t ns = parse_duration_ns(text);
  if (ns <= 0) {
    throw UsageError(std::string(flag) + " must be longer than 0, got '" + std::string(text) + "'");
  }
  return ns;
}

double parse_rate_per_s(std::string_view text) {
  // Rate limits are often stated per minute: "6000/m" is 100 a second.
  std::string_view per_second = trim(text);
  double per_minute = 1;
  for (std::string_view suffix : {"/min", "/m"}) {
    if (per_second.ends_with(suffix)) {
      per_second.remove_suffix(suffix.size());
      per_minute = 60;
      break;
    }
  }
  const double rate = parse_scaled_number(per_second, "rate") / per_minute;
  if (rate > kMaxRatePerS) {
    throw UsageError("invalid rate \"" + std::string(text) +
                     "\": above 1e9 per second, the finest a nanosecond schedule can space");
  }
  return rate;
}

std::optional<int64_t> parse_bytes(std::string_view text, int64_t max) {
  struct Unit {
    std::string_view name;
    int64_t bytes;
  };
  constexpr std::array<Unit, 6> kByteUnits = {
      {{"", 1}, {"B", 1}, {"kB", 1000}, {"KiB", 1024}, {"MB", 1000 * 1000}, {"MiB", 1 << 20}}};
  int64_t count = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  const std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  auto found = std::find_if(kByteUnits.begin(), kByteUnits.end(),
                            [&](const Unit& u) { return u.name == unit; });
  if (error != std::errc() || count < 0 || found == kByteUnits.end() ||
      count > max / found->bytes || count * found->bytes > max) {
    return std::nullopt;
  }
  return count * found->bytes;
}

std::string bytes_text(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string format_duration(int64_t ns) {
  if (ns == 0) return "0s";
  std::string out;
  // Work in unsigned so that INT64_MIN has a magnitude.
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out = "-";
    magnitude = 0 - magnitude;
  }
  // "<whole>[.<fraction without trailing zeros>]<unit>"
  auto with_fraction = [](uint64_t value, uint64_t unit_ns, std::string_view unit) {
    std::string s = std::to_string(value / unit_ns);
    uint64_t fraction = value % unit_ns;
    if (fraction != 0) {
      std::string digits = std::to_string(fraction);
      const size_t width = std::to_string(unit_ns).size() - 1;
      digits.insert(0, width - digits.size(), '0');
      while (digits.back() == '0') digits.pop_back();
      s += "." + digits;
    }
    s += unit;
    return s;
  };
  const auto ns_per_s = static_cast<uint64_t>(kNsPerS);
  if (magnitude < static_cast<uint64_t>(kNsPerUs)) return out + std::to_string(magnitude) + "ns";
  if (magnitude < static_cast<uint64_t>(kNsPerMs))
    return out + with_fraction(magnitude, 1000, "us");
  if (magnitude < ns_per_s) return out + with_fraction(magnitude, kNsPerMs, "ms");
  const uint64_t hours = magnitude / kNsPerHour;
  const uint64_t minutes = magnitude % kNsPerHour / kNsPerMin;
  const uint64_t below_minute = magnitude % kNsPerMin;
  if (hours != 0) out += std::to_string(hours) + "h";
  if (minutes != 0) out += std::to_string(minutes) + "m";
  if (below_minute != 0) out += with_fraction(below_minute, ns_per_s, "s");
  return out;
}

}  // namespace proofload
