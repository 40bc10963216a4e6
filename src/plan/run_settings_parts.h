// Inside the run settings' table (run_settings.h): what every group's entries read their texts
// with, and the groups, each in its own file and listed in the Reproduce command's order by
// run_settings(). Not for use outside src/plan/run_settings*.cc.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "plan/run_settings.h"

namespace proofload::plan::settings {

using Texts = std::vector<std::string>;

inline const std::string& one(const Texts& texts) { return texts.back(); }

// A whole number the CLI has already read as one (SettingTakes::kWholeNumber).
inline int64_t whole(const Texts& texts) {
  int64_t value = 0;
  const std::string& text = one(texts);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("'" + text + "' is not a whole number");
  }
  return value;
}

inline int whole_int(const Texts& texts, std::string_view flag) {
  const int64_t value = whole(texts);
  if (value < INT_MIN || value > INT_MAX) {
    throw UsageError(fmt::format("{} must be at most {}, got {}", flag, INT_MAX, value));
  }
  return static_cast<int>(value);
}

inline bool open_loop(const RunSpec& spec) { return spec.executor == engine::Executor::kOpenLoop; }

inline void duration_at_least(std::string_view flag, int64_t ns) {
  if (ns <= 0) {
    throw UsageError(fmt::format("{} must be longer than 0, got '{}'", flag, format_duration(ns)));
  }
}

// The groups, in the Reproduce command's order.
std::span<const RunSetting> target_and_stream_settings();  // run_settings_request.cc
std::span<const RunSetting> load_settings();               // run_settings_load.cc
std::span<const RunSetting> request_settings();            // run_settings_request.cc
std::span<const RunSetting> connection_settings();         // run_settings_connection.cc
std::span<const RunSetting> process_settings();            // run_settings_process.cc

}  // namespace proofload::plan::settings
