// See segment_file.h.
#include "experiments/segment_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/recorded_file.h"
#include "common/wall_time.h"
#include "experiments/segment_codec.h"
#include "plan/segment.h"
#include "result/recorded_json.h"

namespace proofload::experiments {
namespace {

using nlohmann::json;

// A window's line holds a few compressed histograms: kilobytes. A line past this is not one.
constexpr size_t kMaxLineBytes = size_t{64} << 20;
constexpr int64_t kMaxWindowIndex = int64_t{1} << 40;
// Windows from a millisecond to a day: anything else is not a run's.
constexpr int64_t kMinWindowNs = 1'000'000;
constexpr int64_t kMaxWindowNs = int64_t{86'400} * 1'000'000'000;

json observed_sources_json(const std::vector<ObservedSource>& sources) {
  json out = json::array();
  for (const ObservedSource& s : sources) out.push_back({{"label", s.label}, {"spec", s.spec}});
  return out;
}

}  // namespace

result::SegmentRecord segment_record(int index, int count, std::optional<int64_t> start_at_unix_ns,
                                     int64_t started_unix_ns) {
  result::SegmentRecord s;
  s.index = index;
  s.count = count;
  s.host = host_name();
  s.start_at_unix_ns = start_at_unix_ns;
  s.start_unix_ns = started_unix_ns;
  if (start_at_unix_ns) {
    s.start_skew_ms = static_cast<double>(started_unix_ns - *start_at_unix_ns) / 1e6;
  }
  const ClockStatus clock = read_clock_status();
  s.clock_synchronized = clock.synchronized;
  s.clock_offset_ms = clock.offset_ms;
  s.clock_error_ms = clock.estimated_error_ms;
  s.clock = clock.description;
  return s;
}

SegmentFileWriter::SegmentFileWriter(const std::filesystem::path& directory,
                                     const SegmentHeader& header)
    : file_(directory / kSegmentFile,
            json{{"schema", kSegmentSchema},
                 {"segment", result::segment_json(header.segment)},
                 {"spec", result::spec_to_json(header.spec)},
                 {"command_line", header.command_line},
                 {"proofload_version", header.proofload_version},
                 {"window_ns", header.window_ns},
                 {"workers", header.workers},
                 {"observed_sources", observed_sources_json(header.observed_sources)}}
                .dump()) {}

void SegmentFileWriter::append_window(const measure::WindowStats& w,
                                      const std::vector<observe::SamplerFigures>& observed) {
  file_.append(
      json{{"window", window_stats_json(w)}, {"observed", sampler_figures_json(observed)}}.dump());
}

void SegmentFileWriter::finish(const SegmentEnd& end) {
  json out = {{"total", window_stats_json(end.total)},
              {"warmup_total", window_stats_json(end.warmup_total)},
              {"span", span_json(end.span)},
              {"named", named_totals_json(end.named)},
              {"request_names", end.request_names},
              {"flow_names", end.flow_names},
              {"warmup_duration_s", end.warmup_duration_s},
              {"end_reason", end.end_reason},
              {"interrupted", end.interrupted},
              {"aborted", end.aborted},
              {"first_tls_failure", end.first_tls_failure},
              {"h2_server_max_streams",
               end.h2_server_max_streams ? json(*end.h2_server_max_streams) : json(nullptr)}};
  file_.append(json{{"end", out}}.dump());
}

SegmentFileReader::SegmentFileReader(const std::filesystem::path& directory)
    : path_(directory / kSegmentFile) {
  // Only a regular file: a segment's directory may come from a pod's tarball.
  file_ = open_recorded_stdio(path_).release();
  if (file_ == nullptr) {
    throw std::runtime_error(path_.string() + ": " + std::strerror(ENOENT) +
                             " (a segment's directory holds the segment.jsonl that a run given "
                             "--segment writes)");
  }
  try {
    const std::optional<json> first = next_line();
    if (!first || !first->is_object() || first->value("schema", "") != kSegmentSchema) {
      throw std::runtime_error(std::string("its first line is not a ") + kSegmentSchema +
                               " header");
    }
    const json& h = *first;
    const json* segment = &h.at("segment");
    const result::JsonReader reader(segment, "segment", "segment.jsonl");
    header_.segment = result::segment_from_json(reader);
    header_.spec = result::spec_from_json(h.at("spec"), "segment.jsonl");
    header_.command_line = h.at("command_line").get<std::string>();
    header_.proofload_version = h.at("proofload_version").get<std::string>();
    header_.window_ns = h.at("window_ns").get<int64_t>();
    header_.workers = h.at("workers").get<int>();
    for (const json& s : h.at("observed_sources")) {
      header_.observed_sources.push_back(
          {s.at("label").get<std::string>(), s.at("spec").get<std::string>()});
    }
    if (header_.window_ns < kMinWindowNs || header_.window_ns > kMaxWindowNs ||
        header_.workers < 1 || header_.segment.count < 1 ||
        header_.segment.count > plan::kMaxSegments || header_.segment.index < 0 ||
        header_.segment.index >= header_.segment.count) {
      throw std::runtime_error("its header's window length, workers or segment is out of range");
    }
  } catch (const std::exception& e) {
    std::fclose(file_);
    file_ = nullptr;
    throw std::runtime_error(path_.string() + ": " + e.what());
  }
}

SegmentFileReader::~SegmentFileReader() {
  if (file_ != nullptr) std::fclose(file_);
}

std::optional<json> SegmentFileReader::next_line() {
  std::string line;
  const LineRead read = read_recorded_line(file_, line, kMaxLineBytes);
  if (read == LineRead::kTooLong) {
    throw std::runtime_error(path_.string() + " line " + std::to_string(line_ + 1) +
                             " is longer than 64 MiB");
  }
  if (read == LineRead::kEnd) return std::nullopt;  // the end, or a torn last line of a killed run
  ++line_;
  std::optional<json> parsed = result::parse_recorded_object(line);
  if (!parsed) {
    throw std::runtime_error(path_.string() + " line " + std::to_string(line_) +
                             " is not a JSON object");
  }
  return parsed;
}

std::optional<SegmentWindow> SegmentFileReader::next() {
  if (over_) return std::nullopt;
  std::optional<json> line = next_line();
  try {
    if (line && line->contains("window")) {
      SegmentWindow w;
      w.stats = window_stats_from_json(line->at("window"));
      // A run of ten years has 3e8 one-second windows: an index past this is not a window's.
      if (w.stats.index > kMaxWindowIndex ||
          w.stats.start_ns / header_.window_ns > kMaxWindowIndex) {
        throw std::runtime_error("its window index or start is past any run's");
      }
      w.observed = sampler_figures_from_json(line->at("observed"));
      return w;
    }
    over_ = true;
    if (!line) return std::nullopt;
    const json& e = line->at("end");
    SegmentEnd end;
    end.total = window_stats_from_json(e.at("total"));
    end.warmup_total = window_stats_from_json(e.at("warmup_total"));
    end.span = span_from_json(e.at("span"));
    end.named = named_totals_from_json(e.at("named"));
    end.request_names = e.at("request_names").get<std::vector<std::string>>();
    end.flow_names = e.at("flow_names").get<std::vector<std::string>>();
    end.warmup_duration_s = e.at("warmup_duration_s").get<double>();
    end.end_reason = e.at("end_reason").get<std::string>();
    end.interrupted = e.at("interrupted").get<bool>();
    end.aborted = e.at("aborted").get<bool>();
    end.first_tls_failure = e.at("first_tls_failure").get<std::string>();
    if (const json& h2 = e.at("h2_server_max_streams"); !h2.is_null()) {
      end.h2_server_max_streams = h2.get<int64_t>();
    }
    end_ = std::move(end);
    return std::nullopt;
  } catch (const std::exception& e) {
    throw std::runtime_error(path_.string() + " line " + std::to_string(line_) + ": " + e.what());
  }
}

}  // namespace proofload::experiments
