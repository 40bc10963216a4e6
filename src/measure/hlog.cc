// HdrHistogram interval log writer and reader, and the base64 they carry.
// Numbers are formatted with std::to_chars so that a process locale never changes the format.
#include "measure/hlog.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <ctime>
#include <stdexcept>
#include <system_error>

namespace proofload::measure {
namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kLegend =
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";
constexpr std::string_view kTagPrefix = "Tag=";
// Interval_Max is written in ms for values recorded in us (HistogramLogWriter's
// maxValueUnitRatio).
constexpr double kMaxValueUnitRatio = 1000.0;

// "%.3f" without the locale.
std::string fixed3(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  return std::string(buf, res.ptr);
}

bool valid_tag(std::string_view tag) {
  if (tag.empty()) return false;
  for (char c : tag) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || u <= ' ' || u == 0x7f) return false;
  }
  return true;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

[[noreturn]] void line_error(size_t line_no, const std::string& what) {
  throw std::runtime_error("hlog line " + std::to_string(line_no) + ": " + what);
}

double parse_double(std::string_view field, size_t line_no, const char* name) {
  double v = 0;
  const auto res = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || res.ec != std::errc() || res.ptr != field.data() + field.size() ||
      !std::isfinite(v)) {
    line_error(line_no, std::string("bad ") + name + " '" + std::string(field) + "'");
  }
  return v;
}

}  // namespace

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t v = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8) | data[i + 2];
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.push_back(kBase64Alphabet[(v >> 6) & 63]);
    out.push_back(kBase64Alphabet[v & 63]);
  }
  if (size - i == 1) {
    const uint32_t v = uint32_t{data[i]} << 16;
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.append("==");
  } else if (size - i == 2) {
    const uint32_t v = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8);
    out.push_back(kBase64Alphabet[(v >> 18) & 63]);
    out.push_back(kBase64Alphabet[(v >> 12) & 63]);
    out.push_back(kBase64Alphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

std::vector<uint8_t> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) throw std::runtime_error("base64: length not a multiple of 4");
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = (last && text[i + 3] == '=') ? (text[i + 2] == '=' ? 2 : 1) : 0;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const int d = (k >= 4 - pad) ? 0 : base64_value(text[i + k]);
      if (d < 0) throw std::runtime_error("base64: invalid character");
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out.push_back(static_cast<uint8_t>(v >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(v >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(v));
  }
  return out;
}

void HlogWriter::put(const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) note_failure();
}

void HlogWriter::flush() {
  errno = 0;
  if (std::fflush(out_) != 0) note_failure();
}

void HlogWriter::note_failure() {
  if (error_ == 0) error_ = errno != 0 ? errno : EIO;
}

void HlogWriter::write_header(double start_time_epoch_s) {
  // Java's Date.toString() form, in UTC.
  const auto whole_s = static_cast<std::time_t>(std::floor(start_time_epoch_s));
  std::tm utc{};
  char date[64] = "";
  if (gmtime_r(&whole_s, &utc) != nullptr) {
    std::strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &utc);
  }
  put("#[Histogram log format version 1.3]\n");
  put("#[StartTime: " + fixed3(start_time_epoch_s) + " (seconds since epoch), " + date + "]\n");
  put(std::string(kLegend) + "\n");
  flush();
}

void HlogWriter::write_interval(double start_s, double length_s, const HdrHistogram& h,
                                std::string_view tag) {
  if (!tag.empty() && !valid_tag(tag)) {
    throw std::invalid_argument("hlog tag '" + std::string(tag) +
                                "' must not contain ',', spaces or control characters");
  }
  const std::vector<uint8_t> encoded = h.encode_compressed();
  std::string line;
  if (!tag.empty()) line.append(kTagPrefix).append(tag).push_back(',');
  line.append(fixed3(start_s)).push_back(',');
  line.append(fixed3(length_s)).push_back(',');
  line.append(fixed3(static_cast<double>(h.max()) / kMaxValueUnitRatio)).push_back(',');
  line.append(base64_encode(encoded.data(), encoded.size())).push_back('\n');
  put(line);
  flush();
}

std::vector<HlogInterval> read_hlog(std::istream& in) {
  std::vector<HlogInterval> intervals;
  std::string raw;
  size_t line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("\"StartTimestamp\"") || line.starts_with("StartTimestamp")) continue;

    std::vector<std::string_view> fields;
    size_t from = 0;
    while (true) {
      const size_t comma = line.find(',', from);
      fields.push_back(trim(line.substr(from, comma - from)));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    HlogInterval interval;
    size_t f = 0;
    if (fields[0].starts_with(kTagPrefix)) {
      interval.tag = std::string(fields[0].substr(kTagPrefix.size()));
      if (!valid_tag(interval.tag)) line_error(line_no, "empty or invalid tag");
      f = 1;
    }
    if (fields.size() - f != 4) {
      line_error(line_no, "expected 4 fields (start, length, max, histogram), got " +
                              std::to_string(fields.size() - f));
    }
    interval.start_s = parse_double(fields[f], line_no, "start timestamp");
    interval.length_s = parse_double(fields[f + 1], line_no, "interval length");
    interval.max_ms = parse_double(fields[f + 2], line_no, "interval max");
    try {
      const std::vector<uint8_t> bytes = base64_decode(fields[f + 3]);
      interval.histogram = HdrHistogram::decode_compressed(bytes.data(), bytes.size());
    } catch (const std::runtime_error& e) {
      line_error(line_no, e.what());
    }
    intervals.push_back(std::move(interval));
  }
  if (in.bad()) throw std::runtime_error("hlog: read error");
  return intervals;
}

}  // namespace proofload::measure
