// What `proofload report DIR` reads of a probe: a source's per-second CSV (an input not starting
// with '{') or the probe's result.json (one that does), each as a damaged or hostile file may
// hold it. A CSV is parsed, analysed beside a second source, written as result.json, read back
// and rendered; a result.json is read, re-analysed and rendered. A bad file is one
// std::runtime_error (or a JSON parse error), never a crash; what is written reads back to the
// same file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "analyze/probe_analysis.h"
#include "report/probe_report.h"
#include "result/probe_expectation.h"
#include "result/probe_result.h"
#include "words/probe_words.h"

namespace {

using namespace proofload;

void round_trip_and_render(const result::ProbeResult& probe) {
  const nlohmann::json written = result::probe_to_json(probe);
  const result::ProbeResult back = result::probe_from_json(nlohmann::json::parse(written.dump()));
  if (result::probe_to_json(back) != written) std::abort();  // not its own inverse
  report::render_probe_summary(back);
  for (const analyze::ProbeSourceSeries& series : back.series) report::render_probe_csv(series);
}

void from_csv(std::string_view text) {
  analyze::ProbeSourceSeries series;
  series.address = "127.0.0.2";
  report::parse_probe_csv(text, series);
  analyze::ProbeSourceSeries other = series;
  other.address = "127.0.0.3";
  result::ProbeResult probe;
  probe.status = "complete";
  probe.settings.sources = {series.address, other.address};
  probe.settings.duration_s = 60;
  probe.measured_s = 60;
  probe.series = {series, other};
  const analyze::ProbeExpectation expect = result::parse_probe_expectation("100/s,burst=600", 0.1);
  probe.analysis = words::described_probe(probe.series, 60, 10, expect);
  round_trip_and_render(probe);
}

void from_json(std::string_view text) {
  result::ProbeResult probe = result::probe_from_json(nlohmann::json::parse(text));
  probe.analysis =
      words::described_probe(probe.series, probe.measured_s, probe.settings.settle_s, std::nullopt);
  round_trip_and_render(probe);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    if (!text.empty() && text.front() == '{') {
      from_json(text);
    } else {
      from_csv(text);
    }
  } catch (const std::runtime_error&) {
    // a damaged file, refused (UsageError is one too)
  } catch (const nlohmann::json::exception&) {
    // not JSON, or JSON of the wrong shape
  }
  return 0;
}
