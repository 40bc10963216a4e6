// See run_settings.h. The table is in groups, a file each (run_settings_parts.h), put together here
// in the order the Reproduce command writes the settings (`--executor open` only with stages, so
// after --rate); help lists them in the same order.
#include "plan/run_settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "common/clock.h"
#include "common/file_text.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "common/wall_time.h"
#include "http/url.h"
#include "net/tcp.h"
#include "observe/reconcile_source.h"
#include "plan/redaction.h"
#include "plan/run_settings_parts.h"
#include "plan/segment.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/stages.h"

namespace proofload::plan {

void CommandArgs::option(std::string_view flag, const std::string& value) {
  text_ += fmt::format(" {} {}", flag, shell_quote(value));
}
void CommandArgs::flag(std::string_view flag) { text_ += fmt::format(" {}", flag); }
void CommandArgs::raw(const std::string& text) { text_ += " " + text; }

namespace settings {
namespace {

constexpr int64_t kLatestPastNs = int64_t{24} * 3600 * kNsPerS;
constexpr int64_t kFurthestAheadNs = int64_t{366} * 24 * 3600 * kNsPerS;

bool parse_int(std::string_view text, int& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

}  // namespace settings

std::vector<std::string> read_sources(const std::string& text) {
  int count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
    if (count < 1 || static_cast<size_t>(count) > kMaxSources) {
      throw UsageError(
          fmt::format("--sources {}: a count of loopback addresses is 1 to {}", text, kMaxSources));
    }
    std::vector<std::string> addresses;
    for (int i = 0; i < count; ++i) addresses.push_back(fmt::format("127.0.0.{}", i + 2));
    return addresses;
  }
  std::vector<std::string> addresses;
  std::stringstream list(text);
  for (std::string address; std::getline(list, address, ',');) {
    address = std::string(trim_spaces_tabs(address));
    if (address.empty()) throw UsageError("--sources '" + text + "' has an empty address");
    net::local_address(address);  // a numeric IP address, or one line saying it is not
    addresses.push_back(address);
  }
  if (addresses.empty()) throw UsageError("--sources needs addresses or a count");
  return addresses;
}

void read_segment(const std::string& text, int& index, int& count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos ||
      !settings::parse_int(std::string_view(text).substr(0, slash), index) ||
      !settings::parse_int(std::string_view(text).substr(slash + 1), count)) {
    throw UsageError("--segment '" + text + "': expected I/N, such as 0/3 (I from 0 to N-1)");
  }
}

int64_t read_start_at(const std::string& text, int64_t now_wall_ns) {
  int64_t at = 0;
  if (text.starts_with('+')) {
    try {
      at = now_wall_ns + parse_duration_ns(std::string_view(text).substr(1));
    } catch (const UsageError&) {
      throw UsageError("--start-at '" + text + "': expected +DURATION such as +30s");
    }
  } else if (const std::optional<int64_t> parsed = parse_rfc3339_unix_ns(text)) {
    at = *parsed;
  } else {
    throw UsageError("--start-at '" + text +
                     "': expected an RFC 3339 time (2026-12-03T10:00:00Z) or +DURATION (+30s)");
  }
  if (at < now_wall_ns - settings::kLatestPastNs) {
    throw UsageError("--start-at '" + text + "' is more than a day ago");
  }
  if (at > now_wall_ns + settings::kFurthestAheadNs) {
    throw UsageError("--start-at '" + text + "' is more than a year ahead");
  }
  return at;
}

std::span<const RunSetting> run_settings() {
  static const std::vector<RunSetting> all = [] {
    std::vector<RunSetting> out;
    for (const std::span<const RunSetting> group :
         {settings::target_and_stream_settings(), settings::load_settings(),
          settings::request_settings(), settings::connection_settings(),
          settings::process_settings()}) {
      out.insert(out.end(), group.begin(), group.end());
    }
    return out;
  }();
  return all;
}

const RunSetting* find_run_setting(std::string_view name) {
  for (const RunSetting& setting : run_settings()) {
    if (setting.name == name) return &setting;
  }
  return nullptr;
}

void read_settings(const SettingTexts& texts, RunSpec& spec) {
  for (const RunSetting& setting : run_settings()) {
    const auto given = texts.find(setting.name);
    if (given != texts.end() && !given->second.empty()) {
      setting.read(given->second, spec);
    } else if (setting.read_when_absent) {
      setting.read({}, spec);
    }
  }
}

void check_settings(const RunSpec& spec) {
  for (const RunSetting& setting : run_settings()) {
    if (setting.check != nullptr) setting.check(spec);
  }
}

void plan_settings(const RunSpec& spec, Planning& planning) {
  for (const RunSetting& setting : run_settings()) {
    if (setting.plan != nullptr) setting.plan(spec, planning);
  }
}

}  // namespace proofload::plan
