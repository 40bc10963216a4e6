// The random generator of per-thread random choices (the server's behaviours, the workload's
// data and mixes): one per thread (never shared, so no lock), seeded from a configured seed and
// the thread's index so runs repeat.
#pragma once

#include <cstdint>
#include <random>

namespace proofload {

using Rng = std::mt19937_64;

// SplitMix64's finaliser: spreads nearby seeds (seed, seed + 1, ...) over the whole state
// space, so the streams of neighbouring threads do not start correlated.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The generator of thread `thread_index` for a behaviour seeded with `seed`.
inline Rng make_rng(uint64_t seed, uint64_t thread_index) {
  return Rng(mix64(seed ^ mix64(thread_index)));
}

// A double in [0, 1) with 53 random bits; the same on every standard library (unlike
// std::uniform_real_distribution), so a seed gives the same delays everywhere.
inline double unit_double(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace proofload
