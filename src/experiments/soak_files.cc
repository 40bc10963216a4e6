// See soak_files.h.
#include "experiments/soak_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/unique_fd.h"

namespace proofload::experiments {
namespace {

// Complete lines only: a soak killed mid-write leaves a torn last line, which is not a record.
std::vector<std::string_view> complete_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    const size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) break;
    lines.push_back(text.substr(start, eol - start));
    start = eol + 1;
  }
  return lines;
}

// Splits a line at commas; the last field (reasons) may hold anything but a line break, so it is
// everything after the fixed fields.
std::vector<std::string> fields(std::string_view line, size_t fixed) {
  std::vector<std::string> out;
  size_t start = 0;
  while (out.size() + 1 < fixed) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) break;
    out.emplace_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  out.emplace_back(line.substr(start));
  return out;
}

std::string number(std::optional<double> value) {
  return value ? fmt::format("{:.3f}", *value) : std::string();
}

std::optional<double> number_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double value = std::stod(text, &used);
  if (used != text.size()) throw std::invalid_argument(text);
  return value;
}

int64_t count_of(const std::string& text) {
  size_t used = 0;
  long long value = std::stoll(text, &used);
  if (used != text.size() || value < 0) throw std::invalid_argument(text);
  return value;
}

// Reasons and canary failures hold commas and quotes; the field is last on its line, and line
// breaks are the only characters it may not hold.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return one_line(out);
}

std::vector<std::string> split_reasons(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t at = text.find("; ", start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 2;
  }
  return out;
}

constexpr size_t kWindowFields = 22;
constexpr size_t kCanaryFields = 5;

}  // namespace

std::string soak_windows_csv_header() {
  return "index,phase,start_s,duration_s,requests,errors,status_429,p50_ms,p95_ms,p99_ms,"
         "slowest_ms,slowest_at_s,throughput_rps,canaries_right,canaries_wrong,observer_gaps,"
         "observer_gap,ttft_p95_ms,itl_p99_ms,tokens_per_s,stream_goodput,"
         "bar_met,reasons";
}

std::string soak_windows_csv_line(const analyze::SoakWindowRow& r) {
  // bar_met and reasons make one field pair: "true," or "false,errors 3% > 1%; ...".
  // The gap's reason is free text too: its commas become semicolons, so only the last field
  // (the bar's reasons) may hold commas.
  std::string gap = one_line(r.observer_gap);
  std::replace(gap.begin(), gap.end(), ',', ';');
  return fmt::format(
      "{},{},{:.3f},{:.3f},{},{},{},{},{},{},{},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{},{}",
      r.index, r.ramp ? "ramp" : "hold", r.start_s, r.duration_s, r.requests, r.errors,
      r.status_429, number(r.p50_ms), number(r.p95_ms), number(r.p99_ms), number(r.slowest_ms),
      r.slowest_at_s, r.throughput_rps, r.canaries_right, r.canaries_wrong, r.observer_gaps, gap,
      number(r.ttft_p95_ms), number(r.itl_p99_ms), number(r.tokens_per_s),
      number(r.stream_goodput), r.bar_met ? "true" : "false", joined(r.reasons));
}

std::vector<analyze::SoakWindowRow> parse_soak_windows_csv(std::string_view text) {
  std::vector<analyze::SoakWindowRow> rows;
  const std::vector<std::string_view> lines = complete_lines(text);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::vector<std::string> f = fields(lines[i], kWindowFields + 1);
    try {
      if (f.size() != kWindowFields + 1) throw std::invalid_argument("fields");
      analyze::SoakWindowRow r;
      r.index = std::stoll(f[0]);
      r.ramp = f[1] == "ramp";
      r.start_s = *number_of(f[2]);
      r.duration_s = *number_of(f[3]);
      r.requests = count_of(f[4]);
      r.errors = count_of(f[5]);
      r.status_429 = count_of(f[6]);
      r.p50_ms = number_of(f[7]);
      r.p95_ms = number_of(f[8]);
      r.p99_ms = number_of(f[9]);
      r.slowest_ms = number_of(f[10]);
      r.slowest_at_s = *number_of(f[11]);
      r.throughput_rps = *number_of(f[12]);
      r.canaries_right = count_of(f[13]);
      r.canaries_wrong = count_of(f[14]);
      r.observer_gaps = count_of(f[15]);
      r.observer_gap = f[16];
      r.ttft_p95_ms = number_of(f[17]);
      r.itl_p99_ms = number_of(f[18]);
      r.tokens_per_s = number_of(f[19]);
      r.stream_goodput = number_of(f[20]);
      r.bar_met = f[21] == "true";
      r.reasons = split_reasons(f[22]);
      rows.push_back(std::move(r));
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("windows.csv line {} is not a soak window", i + 1));
    }
  }
  return rows;
}

std::string canaries_csv_header() { return "at_s,name,right,retried,reason"; }

std::string canaries_csv_line(const CanaryResult& result, double at_s) {
  return fmt::format("{:.3f},{},{},{},{}", at_s, result.name, result.right ? "true" : "false",
                     result.retried ? "true" : "false", one_line(result.reason));
}

std::vector<RecordedCanary> parse_canaries_csv(std::string_view text) {
  std::vector<RecordedCanary> out;
  const std::vector<std::string_view> lines = complete_lines(text);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::vector<std::string> f = fields(lines[i], kCanaryFields);
    try {
      if (f.size() != kCanaryFields) throw std::invalid_argument("fields");
      out.push_back({*number_of(f[0]), f[1], f[2] == "true", f[3] == "true", f[4]});
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("canaries.csv line {} is not a canary", i + 1));
    }
  }
  return out;
}

void append_mark(const std::filesystem::path& directory, const std::string& source,
                 const std::string& label, int64_t wall_ns) {
  const std::filesystem::path path = directory / kMarksLog;
  const std::string line = fmt::format("{}\t{}\t{}\n", wall_ns, source, one_line(label));
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  const ssize_t n = ::write(fd.get(), line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) {
    throw std::runtime_error("cannot write " + path.string() + ": " +
                             (n < 0 ? std::strerror(errno) : "short write"));
  }
}

std::vector<LoggedMark> read_marks(std::string_view text, size_t& offset) {
  std::vector<LoggedMark> out;
  while (offset < text.size()) {
    const size_t eol = text.find('\n', offset);
    if (eol == std::string_view::npos) break;
    const std::string_view line = text.substr(offset, eol - offset);
    offset = eol + 1;
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) continue;  // not a mark: left out, not trusted
    try {
      LoggedMark mark;
      mark.wall_ns = std::stoll(std::string(line.substr(0, tab1)));
      mark.source = std::string(line.substr(tab1 + 1, tab2 - tab1 - 1));
      mark.label = std::string(line.substr(tab2 + 1));
      out.push_back(std::move(mark));
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace proofload::experiments
