// The lossless JSON form of what a run measured, for a segment's file (segment_file.h): a window
// with every histogram (HdrHistogram's compressed encoding, base64, with the exact sum the
// encoding leaves out), every count and the observers' raw figures; a run's totals by intent, its
// measured span and its named requests and flows. What `proofload merge` adds up, so that the
// merged figures are those of one run that recorded every segment's samples. Reading checks
// every value (the file may come from anywhere): std::runtime_error naming the key. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "measure/hdr_histogram.h"
#include "measure/named_stats.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"
#include "observe/observer.h"

namespace proofload::experiments {

nlohmann::json histogram_json(const measure::HdrHistogram& h);
// Into `h`, which must hold its field's configuration (the encoding must have the same); null
// leaves it empty.
void histogram_from_json(const nlohmann::json& j, measure::HdrHistogram& h);

nlohmann::json window_stats_json(const measure::WindowStats& w);
measure::WindowStats window_stats_from_json(const nlohmann::json& j);

nlohmann::json span_json(const measure::MeasuredSpan& span);
measure::MeasuredSpan span_from_json(const nlohmann::json& j);

nlohmann::json named_totals_json(const measure::NamedTotals& named);
measure::NamedTotals named_totals_from_json(const nlohmann::json& j);

nlohmann::json sampler_figures_json(const std::vector<observe::SamplerFigures>& figures);
std::vector<observe::SamplerFigures> sampler_figures_from_json(const nlohmann::json& j);

}  // namespace proofload::experiments
