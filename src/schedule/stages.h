// The stages of a ramping run (`--stages`, a scenario's `stages:`): what they are and how they are
// read. Configuration-time only: throws UsageError with one clear line. Stateless.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace proofload::schedule {

// One stage of a ramping run: over `duration_ns`, the target (a rate per second for open loop,
// a number of connections for closed loop) moves linearly from the previous stage's target to
// this one's.
struct Stage {
  int64_t duration_ns;
  double target;
  bool operator==(const Stage&) const = default;
};

// "10s:100,30s:1000,10s:0": comma-separated DURATION:TARGET pairs (spaces around items are
// ignored; targets accept the same suffixes as rates). Zero-length stages are allowed (a jump);
// a total of zero is not.
std::vector<Stage> parse_stages(std::string_view text);

}  // namespace proofload::schedule
