// What `proofload merge` reads of a segment: segment.jsonl's lines (a header, windows, the end),
// as a damaged or hostile file may hold them, one line of JSON per line of input. Each window is
// decoded, merged into a running total as the merge does, written again and read back to the
// same counts; the end's totals, span and named requests likewise. A bad line is one
// std::runtime_error (or a JSON error), never a crash or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "experiments/segment_codec.h"

namespace {

using namespace proofload;
using nlohmann::json;

void same_window(const measure::WindowStats& a, const measure::WindowStats& b) {
  if (!a.latency_us.same_counts(b.latency_us) || a.outcomes != b.outcomes ||
      a.status != b.status || a.intended != b.intended || a.sources.size() != b.sources.size() ||
      !a.streams.inter_event_us.same_counts(b.streams.inter_event_us)) {
    std::abort();  // the form is not its own inverse
  }
}

void one_line(std::string_view line, measure::WindowStats& total) {
  const json parsed = json::parse(line);
  if (!parsed.is_object()) return;
  if (parsed.contains("window")) {
    const measure::WindowStats w = experiments::window_stats_from_json(parsed.at("window"));
    same_window(w, experiments::window_stats_from_json(experiments::window_stats_json(w)));
    if (parsed.contains("observed")) experiments::sampler_figures_from_json(parsed.at("observed"));
    total.merge(w);  // what the merge does with every segment's window
  } else if (parsed.contains("end")) {
    const json& end = parsed.at("end");
    const measure::WindowStats t = experiments::window_stats_from_json(end.at("total"));
    same_window(t, experiments::window_stats_from_json(experiments::window_stats_json(t)));
    const measure::MeasuredSpan span = experiments::span_from_json(end.at("span"));
    if (experiments::span_from_json(experiments::span_json(span)).counts.responses !=
        span.counts.responses) {
      std::abort();
    }
    measure::NamedTotals named = experiments::named_totals_from_json(end.at("named"));
    named.merge(experiments::named_totals_from_json(experiments::named_totals_json(named)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  measure::WindowStats total;
  size_t at = 0;
  while (at < input.size()) {
    size_t end = input.find('\n', at);
    if (end == std::string_view::npos) end = input.size();
    try {
      one_line(input.substr(at, end - at), total);
    } catch (const std::runtime_error&) {
    } catch (const json::exception&) {
    }
    at = end + 1;
  }
  return 0;
}
