// Micro-benchmarks of the measurement hot path: HdrHistogram::record() (once per request per
// histogram in every worker) and merge() (once per histogram per worker per window).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "measure/hdr_histogram.h"

namespace {

using proofload::measure::HdrHistogram;

// Latency-like values (lognormal around 2 ms, in us), generated before timing starts.
std::vector<int64_t> sample_values(size_t n) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(2000.0), 1.0);
  std::vector<int64_t> values(n);
  for (auto& v : values) v = static_cast<int64_t>(dist(rng));
  return values;
}

void BM_Record(benchmark::State& state) {
  const std::vector<int64_t> values = sample_values(1 << 16);
  HdrHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record(values[i]);
    i = (i + 1) & (values.size() - 1);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Record);

void BM_Merge(benchmark::State& state) {
  HdrHistogram from, into;
  for (int64_t v : sample_values(100'000)) from.record(v);
  for (auto _ : state) {
    into.merge(from);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["counters"] = static_cast<double>(from.counter_count());
}
BENCHMARK(BM_Merge);

void BM_ValueAtPercentile(benchmark::State& state) {
  HdrHistogram h;
  for (int64_t v : sample_values(100'000)) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.value_at_percentile(99.9));
}
BENCHMARK(BM_ValueAtPercentile);

void BM_EncodeCompressed(benchmark::State& state) {
  HdrHistogram h;
  for (int64_t v : sample_values(100'000)) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.encode_compressed());
}
BENCHMARK(BM_EncodeCompressed);

}  // namespace

BENCHMARK_MAIN();
