// See cgroup_files.h.
#include "observe/cgroup_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace proofload::observe::cgroup {
namespace {

constexpr size_t kMaxFileBytes = 1 << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

template <typename Int>
std::optional<Int> parse_int(std::string_view s) {
  Int value{};
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

FileRead read_small_file(const std::string& path, std::string& text, std::string& error) {
  text.clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    // ENODEV: a cgroup being removed; the caller decides whether the whole group is gone.
    if (errno == ENOENT || errno == ENOTDIR || errno == ENODEV) return FileRead::kMissing;
    error = "cannot open " + path + ": " + std::strerror(errno);
    return FileRead::kFailed;
  }
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      close(fd);
      if (saved == ENODEV) return FileRead::kMissing;
      error = "cannot read " + path + ": " + std::strerror(saved);
      return FileRead::kFailed;
    }
    if (text.size() + static_cast<size_t>(n) > kMaxFileBytes) {
      close(fd);
      error = "cannot read " + path + ": larger than 1 MiB";
      return FileRead::kFailed;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return FileRead::kOk;
}

bool parse_flat_keyed(std::string_view text, std::span<KeyedValue> fields, std::string& error) {
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) continue;
    size_t space = line.find_first_of(" \t");
    std::string_view key = line.substr(0, space);
    std::string_view value =
        space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
    for (KeyedValue& field : fields) {
      if (field.key != key) continue;
      field.value = parse_int<uint64_t>(value);
      if (!field.value) {
        error = "not a \"key count\" line: '" + std::string(line) + "'";
        return false;
      }
    }
  }
  return true;
}

std::optional<int64_t> parse_single_integer(std::string_view text) {
  return parse_int<int64_t>(trim(text));
}

std::optional<CpuMax> parse_cpu_max(std::string_view text) {
  text = trim(text);
  size_t space = text.find_first_of(" \t");
  if (space == std::string_view::npos) return std::nullopt;
  std::string_view quota = text.substr(0, space);
  std::optional<int64_t> period = parse_int<int64_t>(trim(text.substr(space)));
  if (!period || *period <= 0) return std::nullopt;
  CpuMax result;
  result.period_us = *period;
  if (quota == "max") return result;
  result.quota_us = parse_int<int64_t>(quota);
  if (!result.quota_us || *result.quota_us <= 0) return std::nullopt;
  return result;
}

}  // namespace proofload::observe::cgroup
