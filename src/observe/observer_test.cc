// Tests for the sampler thread: samples on the run's grid, figures per window, a failing sampler
// as gaps while the others go on, and a last sample at stop.
#include "observe/observer.h"

#include <gtest/gtest.h>

#include <atomic>

#include "common/clock.h"

namespace proofload::observe {
namespace {

// A "process" that uses half a core: its CPU counter grows by 0.5 s per second of the clock.
class HalfCoreSampler : public Sampler {
 public:
  explicit HalfCoreSampler(int64_t origin_ns) : origin_ns_(origin_ns) {}
  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override {
    ++calls;
    Sample s;
    s.at_ns = now_ns;
    s.readings = {{"cpu_seconds", MetricKind::kCounter,
                   0.5 * static_cast<double>(now_ns - origin_ns_) / kNsPerS}};
    return s;
  }
  std::atomic<int> calls{0};

 private:
  std::string spec_ = "fake:half";
  int64_t origin_ns_;
};

class FailingSampler : public Sampler {
 public:
  const std::string& spec() const override { return spec_; }
  Sample sample(int64_t now_ns) override {
    Sample s;
    s.at_ns = now_ns;
    s.ok = false;
    s.error = "endpoint down";
    return s;
  }

 private:
  std::string spec_ = "fake:down";
};

TEST(Observer, FiguresPerWindowFromSamplesOnTheGridAndGapsForAFailingSampler) {
  const int64_t period = 20 * kNsPerMs;
  const int64_t start = monotonic_ns() + 5 * kNsPerMs;
  std::vector<std::unique_ptr<Sampler>> samplers;
  auto* half = new HalfCoreSampler(start);
  samplers.emplace_back(half);
  samplers.emplace_back(new FailingSampler());
  Observer observer(std::move(samplers), period);
  observer.start(start);
  const int64_t window = 100 * kNsPerMs;
  for (int i = 0; i < 3; ++i) {
    auto figures = observer.window(start + i * window, start + (i + 1) * window, kNsPerS);
    ASSERT_EQ(figures.size(), 2u);
    EXPECT_EQ(figures[0].spec, "fake:half");
    ASSERT_TRUE(figures[0].figures.value("cpu_cores").has_value()) << i;
    EXPECT_NEAR(*figures[0].figures.value("cpu_cores"), 0.5, 0.01) << i;
    EXPECT_GE(figures[0].figures.samples, 1) << i;
    EXPECT_EQ(figures[1].figures.samples, 0);
    EXPECT_GE(figures[1].figures.gaps, 1);
    EXPECT_EQ(figures[1].figures.last_error, "endpoint down");
  }
  observer.stop();
  const int calls = half->calls.load();
  EXPECT_GE(calls, 5);  // 300 ms at 20 ms, minus grid points a busy machine made it skip
  observer.stop();  // idempotent
  EXPECT_EQ(half->calls.load(), calls);
}

}  // namespace
}  // namespace proofload::observe
