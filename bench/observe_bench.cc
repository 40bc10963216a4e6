// Micro-benchmarks of what a `prom:` observer does per scrape and per window, at sizes an
// endpoint may send: parsing a page (here a line of N labels, whose check for a label given twice
// was once quadratic) and turning a window's samples of N readings into figures (once a linear
// search per reading). Google Benchmark fits the complexity: both should read O(N) (or N log N).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "observe/prom_text.h"
#include "observe/window_figures.h"

namespace {

using namespace proofload;
using namespace proofload::observe;

void BM_PromTextLabels(benchmark::State& state) {
  std::string line = "x{";
  for (int64_t i = 0; i < state.range(0); ++i) line += "l" + std::to_string(i) + "=\"\",";
  line += "} 1\n";
  PromParseOptions options;
  options.max_key_bytes = size_t{1} << 30;
  for (auto _ : state) benchmark::DoNotOptimize(parse_prom_text(line, options));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_PromTextLabels)->RangeMultiplier(4)->Range(1 << 8, 1 << 14)->Complexity();

void BM_WindowFiguresReadings(benchmark::State& state) {
  SampleSeries series;
  for (int at = 0; at <= 4; ++at) {
    Sample sample;
    sample.at_ns = at * kNsPerS / 4;
    for (int64_t i = 0; i < state.range(0); ++i) {
      sample.readings.push_back({"s{i=\"" + std::to_string(i) + "\"}",
                                 i % 2 == 0 ? MetricKind::kCounter : MetricKind::kGauge,
                                 static_cast<double>(at)});
    }
    series.add(std::move(sample));
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(series.figures(0, kNsPerS, 100 * kNsPerMs));
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_WindowFiguresReadings)->RangeMultiplier(4)->Range(1 << 8, 1 << 14)->Complexity();

}  // namespace

BENCHMARK_MAIN();
