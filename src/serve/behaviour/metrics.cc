// Metrics: counters laid out per shard on their own cache lines; rendering sums the shards
// and reads /proc. Rendering takes no lock: a sum may miss an add racing with it, which the
// next scrape sees.
#include "serve/behaviour/metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace proofload::serve {
namespace {

// Statuses the server answers with on its own (routes, limits, failures, lifecycle, errors).
constexpr int kCommonStatuses[] = {200, 201, 202, 204, 206, 301, 302, 303, 304, 307,
                                   308, 400, 401, 403, 404, 405, 408, 409, 410, 413,
                                   414, 415, 422, 429, 431, 500, 501, 502, 503, 504};

// Reads a small /proc file whole; empty on failure.
std::string read_proc_file(const char* path) {
  std::string text;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[1024];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  close(fd);
  return text;
}

void append_number(std::string& out, uint64_t value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_number(std::string& out, int64_t value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_number(std::string& out, double value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_family(std::string& out, std::string_view name, std::string_view type,
                   std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;  // our help texts hold no backslash or newline, so need no escaping
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

template <typename Number>
void append_single(std::string& out, std::string_view name, std::string_view type,
                   std::string_view help, Number value) {
  append_family(out, name, type, help);
  out += name;
  out += ' ';
  append_number(out, value);
  out += '\n';
}

}  // namespace

ProcessStats read_process_stats() {
  ProcessStats stats;
  // Fields after the command name, which is in parentheses and may itself hold spaces or
  // parentheses: hence the last ')'. utime and stime are fields 14 and 15 of the man page.
  std::string stat = read_proc_file("/proc/self/stat");
  size_t paren = stat.rfind(')');
  std::string statm = read_proc_file("/proc/self/statm");
  if (paren == std::string::npos || statm.empty()) return stats;
  const char* p = stat.c_str() + paren + 1;
  const char* end = stat.c_str() + stat.size();
  uint64_t fields[13] = {};  // fields 3..15; field 3 (state) is a letter and reads as 0
  for (int i = 0; i < 13 && p < end; ++i) {
    while (p < end && *p == ' ') ++p;
    auto result = std::from_chars(p, end, fields[i]);
    p = result.ptr;
    while (p < end && *p != ' ') ++p;
  }
  uint64_t resident_pages = 0;
  const char* q = statm.c_str();
  while (*q != '\0' && *q != ' ') ++q;  // skip the total size
  if (*q == ' ') ++q;
  std::from_chars(q, statm.c_str() + statm.size(), resident_pages);
  long ticks_per_s = sysconf(_SC_CLK_TCK);
  long page_bytes = sysconf(_SC_PAGESIZE);
  if (ticks_per_s <= 0 || page_bytes <= 0) return stats;
  stats.cpu_seconds = static_cast<double>(fields[11] + fields[12]) / ticks_per_s;
  stats.resident_bytes = static_cast<int64_t>(resident_pages) * page_bytes;
  stats.ok = true;
  return stats;
}

Metrics::Metrics(std::vector<std::string> route_names, size_t shards,
                 std::span<const int> extra_statuses)
    : shard_count_(std::max<size_t>(1, shards)) {
  for (const std::string& name : route_names) escaped_routes_.push_back(escape_label_value(name));
  statuses_.assign(std::begin(kCommonStatuses), std::end(kCommonStatuses));
  for (int status : extra_statuses) {
    if (status >= 100 && status < 600) statuses_.push_back(status);
  }
  std::sort(statuses_.begin(), statuses_.end());
  statuses_.erase(std::unique(statuses_.begin(), statuses_.end()), statuses_.end());
  other_slot_ = statuses_.size();
  status_slots_ = statuses_.size() + 1;
  slot_of_status_.assign(500, static_cast<uint16_t>(other_slot_));
  for (size_t slot = 0; slot < statuses_.size(); ++slot) {
    slot_of_status_[statuses_[slot] - 100] = static_cast<uint16_t>(slot);
  }
  size_t per_shard = 1 + escaped_routes_.size() * status_slots_;
  shard_stride_ = (per_shard + 7) / 8 * 8;
  lines_ = std::make_unique<Line[]>(shard_count_ * shard_stride_ / 8);  // zeroed (C++20)
}

Metrics::~Metrics() = default;

void Metrics::set_backlog_source(std::function<int64_t()> backlog) {
  backlog_ = std::move(backlog);
}

uint64_t Metrics::sum(size_t index) const {
  uint64_t total = 0;
  for (size_t shard = 0; shard < shard_count_; ++shard) {
    total += counter(shard, index).load(std::memory_order_relaxed);
  }
  return total;
}

uint64_t Metrics::requests(size_t route, int status) const {
  return sum(1 + route * status_slots_ + status_slot(status));
}

int64_t Metrics::in_flight() const {
  // Starts and ends may be counted on different shards, so one shard alone can be negative;
  // the sum read while requests race may be too, for an instant.
  return std::max<int64_t>(0, static_cast<int64_t>(sum(0)));
}

std::string Metrics::render_prometheus() const {
  std::string out;
  out.reserve(4096);
  append_family(out, "proofload_requests_total", "counter",
                "Requests answered by the target, by route and status.");
  for (size_t route = 0; route < escaped_routes_.size(); ++route) {
    for (size_t slot = 0; slot < status_slots_; ++slot) {
      uint64_t count = sum(1 + route * status_slots_ + slot);
      if (count == 0) continue;  // series appear with their first request
      out += "proofload_requests_total{route=\"";
      out += escaped_routes_[route];
      out += "\",status=\"";
      if (slot == other_slot_) {
        out += "other";
      } else {
        append_number(out, static_cast<int64_t>(statuses_[slot]));
      }
      out += "\"} ";
      append_number(out, count);
      out += '\n';
    }
  }
  append_single(out, "proofload_in_flight_requests", "gauge",
                "Requests received and not yet answered.", in_flight());
  append_single(out, "proofload_writes_accepted_total", "counter",
                "Writes accepted and queued for commit.",
                accepted_.load(std::memory_order_relaxed));
  append_single(out, "proofload_writes_committed_total", "counter",
                "Writes committed by the committers.", committed_.load(std::memory_order_relaxed));
  append_single(out, "proofload_writes_dropped_total", "counter",
                "Writes accepted but dropped before commit (queue full or reset).",
                dropped_.load(std::memory_order_relaxed));
  append_single(out, "proofload_streams_completed_total", "counter",
                "Streamed answers whose last part was written.", streams_completed());
  append_single(out, "proofload_streams_dropped_total", "counter",
                "Streamed answers whose connection closed before their last part.",
                streams_dropped());
  if (backlog_) {
    append_single(out, "proofload_commit_backlog", "gauge",
                  "Writes accepted and not yet committed.", backlog_());
  }
  ProcessStats process = read_process_stats();
  if (process.ok) {
    append_single(out, "process_cpu_seconds_total", "counter",
                  "Total user and system CPU time spent in seconds.", process.cpu_seconds);
    append_single(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                  process.resident_bytes);
  }
  return out;
}

}  // namespace proofload::serve
