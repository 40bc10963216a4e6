// Parsers of /proc files (see proc_stat.h): plain scanning with std::from_chars, no regex, since
// the sampler thread parses these every period.
#include "observe/proc_stat.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <system_error>

namespace proofload::observe {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The whitespace-separated words of a text, one at a time.
class Words {
 public:
  explicit Words(std::string_view text) : rest_(text) {}

  // The next word, or an empty view when there is none left.
  std::string_view next() {
    size_t begin = 0;
    while (begin < rest_.size() && is_blank(rest_[begin])) ++begin;
    size_t end = begin;
    while (end < rest_.size() && !is_blank(rest_[end])) ++end;
    std::string_view word = rest_.substr(begin, end - begin);
    rest_.remove_prefix(end);
    return word;
  }

 private:
  std::string_view rest_;
};

// A whole word as a number: no sign for unsigned types, no trailing characters.
template <class Number>
bool parse_number(std::string_view word, Number& out) {
  if (word.empty()) return false;
  const char* end = word.data() + word.size();
  auto [stop, error] = std::from_chars(word.data(), end, out);
  return error == std::errc() && stop == end;
}

// The next line of `text` (without its '\n'), consumed from `text`.
std::string_view next_line(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

}  // namespace

std::optional<PidStat> parse_pid_stat(std::string_view text, std::string& error) {
  size_t close = text.rfind(')');
  if (close == std::string_view::npos || text.find('(') > close) {
    error = "no command name in parentheses";
    return std::nullopt;
  }
  // The fields after the command name, from field 3 (state) to field 24 (rss).
  constexpr size_t kFirstField = 3;
  constexpr size_t kRssField = 24;
  std::array<std::string_view, kRssField - kFirstField + 1> fields;
  Words words(text.substr(close + 1));
  for (size_t i = 0; i < fields.size(); ++i) {
    fields[i] = words.next();
    if (fields[i].empty()) {
      error = "only " + std::to_string(i + kFirstField - 1) + " fields, need " +
              std::to_string(kRssField) + " (up to rss)";
      return std::nullopt;
    }
  }
  auto field = [&](size_t number) { return fields[number - kFirstField]; };
  PidStat stat;
  if (field(3).size() != 1) {
    error = "field 3 (state) is not one letter: \"" + std::string(field(3)) + "\"";
    return std::nullopt;
  }
  stat.state = field(3)[0];
  struct Wanted {
    size_t number;
    const char* name;
    bool parsed;
  };
  const std::array<Wanted, 5> wanted = {{
      {14, "utime", parse_number(field(14), stat.utime_ticks)},
      {15, "stime", parse_number(field(15), stat.stime_ticks)},
      {20, "num_threads", parse_number(field(20), stat.num_threads)},
      {22, "starttime", parse_number(field(22), stat.starttime_ticks)},
      {24, "rss", parse_number(field(24), stat.rss_pages)},
  }};
  for (const Wanted& w : wanted) {
    if (!w.parsed) {
      error = "field " + std::to_string(w.number) + " (" + w.name + ") is not a number: \"" +
              std::string(field(w.number)) + "\"";
      return std::nullopt;
    }
  }
  return stat;
}

namespace {

// "0-1,3" -> 3; nullopt for anything that is not such a list.
std::optional<int64_t> count_cpu_list(std::string_view list) {
  int64_t count = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view range = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    const size_t dash = range.find('-');
    int64_t first = 0;
    int64_t last = 0;
    if (!parse_number(range.substr(0, dash), first)) return std::nullopt;
    last = first;
    if (dash != std::string_view::npos && !parse_number(range.substr(dash + 1), last)) {
      return std::nullopt;
    }
    if (last < first) return std::nullopt;
    count += last - first + 1;
  }
  return count > 0 ? std::optional<int64_t>(count) : std::nullopt;
}

}  // namespace

PidStatus parse_pid_status(std::string_view text) {
  PidStatus status;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    constexpr std::string_view kVmRss = "VmRSS:";
    constexpr std::string_view kCpus = "Cpus_allowed_list:";
    if (line.substr(0, kCpus.size()) == kCpus) {
      Words words(line.substr(kCpus.size()));
      status.cpus_allowed = count_cpu_list(words.next());
      continue;
    }
    if (line.substr(0, kVmRss.size()) != kVmRss) continue;
    Words words(line.substr(kVmRss.size()));
    int64_t kib = 0;
    // The kernel has always written this line in kB; anything else is not understood, so absent.
    if (parse_number(words.next(), kib) && words.next() == "kB") status.vm_rss_bytes = kib * 1024;
  }
  return status;
}

std::optional<int64_t> count_open_files(const std::filesystem::path& fd_dir) {
  DIR* dir = ::opendir(fd_dir.c_str());
  if (dir == nullptr) return std::nullopt;
  int64_t count = 0;
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") ++count;
  }
  ::closedir(dir);
  return count;
}

std::optional<HostCpuTimes> parse_proc_stat(std::string_view text, std::string& error) {
  HostCpuTimes times;
  bool have_aggregate = false;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    if (line.substr(0, 3) != "cpu") continue;
    if (line.size() > 3 && line[3] >= '0' && line[3] <= '9') {
      ++times.cpu_count;
      continue;
    }
    if (line.size() > 3 && !is_blank(line[3])) continue;
    // cpu  user nice system idle [iowait irq softirq steal guest guest_nice]
    Words words(line.substr(3));
    std::array<uint64_t, 8> ticks{};  // guest and guest_nice are left out: already in user, nice
    size_t count = 0;
    for (; count < ticks.size(); ++count) {
      std::string_view word = words.next();
      if (word.empty()) break;
      if (!parse_number(word, ticks[count])) {
        error = "cpu line: field " + std::to_string(count + 1) + " is not a number: \"" +
                std::string(word) + "\"";
        return std::nullopt;
      }
    }
    if (count < 4) {
      error = "cpu line has " + std::to_string(count) + " fields, needs at least 4";
      return std::nullopt;
    }
    const uint64_t idle = ticks[3] + ticks[4];
    times.busy_ticks = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
    times.total_ticks = times.busy_ticks + idle;
    have_aggregate = true;
  }
  if (!have_aggregate) {
    error = "no aggregate cpu line";
    return std::nullopt;
  }
  if (times.cpu_count == 0) {
    error = "no per-CPU lines (cpu0, cpu1, ...)";
    return std::nullopt;
  }
  return times;
}

std::optional<double> busy_share(const HostCpuTimes& before, const HostCpuTimes& after) {
  if (after.total_ticks <= before.total_ticks || after.busy_ticks < before.busy_ticks) {
    return std::nullopt;
  }
  const uint64_t busy = after.busy_ticks - before.busy_ticks;
  const uint64_t total = after.total_ticks - before.total_ticks;
  // Busy and idle ticks are read at slightly different moments per CPU; keep the share a share.
  if (busy >= total) return 1.0;
  return static_cast<double>(busy) / static_cast<double>(total);
}

std::optional<LoadAverage> parse_loadavg(std::string_view text, std::string& error) {
  Words words(text);
  LoadAverage load;
  const std::array<double*, 3> targets = {&load.load1, &load.load5, &load.load15};
  for (size_t i = 0; i < targets.size(); ++i) {
    std::string_view word = words.next();
    if (!parse_number(word, *targets[i])) {
      error = word.empty() ? "only " + std::to_string(i) + " load averages, need 3"
                           : "load average " + std::to_string(i + 1) + " is not a number: \"" +
                                 std::string(word) + "\"";
      return std::nullopt;
    }
  }
  return load;
}

int read_small_file(const std::filesystem::path& path, std::string& out, size_t max_bytes) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int failure = 0;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      failure = errno;
      break;
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      failure = EFBIG;
      break;
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return failure;
}

std::string errno_text(int error) { return std::system_category().message(error); }

}  // namespace proofload::observe
