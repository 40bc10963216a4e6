// Data variables (the scenario's `data:` map), compiled from a DataSpec (scenario.h). A
// DataSource is immutable once compiled and shared by all workers; the mutable per-worker state
// (sequence counters, sequential cursors) lives in a DataCursor that one worker owns, and the
// randomness comes from that worker's Rng, so drawing takes no lock. Draws write into a
// std::string with assign: no allocation once its capacity suffices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/rng.h"
#include "workload/default_words.h"
#include "workload/scenario.h"

namespace proofload::workload {

// A worker's position in one source. Default-constructed, it behaves as worker 0 of 1.
class DataCursor {
 public:
  DataCursor() = default;

 private:
  friend class DataSource;
  // Sequential lists: the next index (reduced modulo the list's size when drawn). Sequences:
  // the next term's number k in start + step*k. Both advance by the workers' count.
  uint64_t position_ = 0;
  uint64_t stride_ = 1;
};

class DataSource {
 public:
  // Throws UsageError "data 'NAME': reason" for an impossible spec (empty list, min > max, step
  // 0, pool size < 1, CSV column missing, ...); the caller prefixes the file location. kPool
  // draws its N values now from its inner generator with `seed` (mixed with the source's name,
  // so two pools of the same kind differ) and keeps them. kWord with no values uses
  // default_words().
  static DataSource compile(const DataSpec& spec, uint64_t seed);

  // A fresh cursor for worker `worker_index` of `workers` (sequences give each worker a disjoint
  // share: start + step*(worker_index + k*workers); sequential lists start at worker_index and
  // stride by `workers`, so at any moment the workers hold neighbouring values and together
  // they go through the whole list).
  DataCursor cursor(int worker_index, int workers) const;

  // Draws the next value into `out` (replacing its content).
  void draw(DataCursor& cursor, Rng& rng, std::string& out) const;

  const std::string& name() const;
  // Some value holds CR, LF or NUL: it would split a request line or a header (values from a
  // file or a quoted CSV field can; generated ones never do).
  bool has_value_breaking_a_line() const;

 private:
  std::string name_;
  DataSpec::Kind kind_ = DataSpec::Kind::kList;
  bool sequential_ = false;
  std::vector<std::string> values_;             // kList, kFileLines, kCsvColumn, kWord, kPool
  std::span<const std::string_view> defaults_;  // kWord without values: the shipped words
  int64_t min_ = 0;                             // kIntRange
  int64_t max_ = 0;                             // kIntRange
  int64_t start_ = 0;                           // kSequence
  int64_t step_ = 1;                            // kSequence
};

// A value uniform in [0, bound) (bound > 0), without modulo bias.
uint64_t uniform_below(Rng& rng, uint64_t bound);
// A value uniform in [min, max] (min <= max), both ends included; the whole int64 range works.
int64_t uniform_int(Rng& rng, int64_t min, int64_t max);

// Loading helpers used by the parser. Errors are UsageErrors naming the file, never its content.
// Data files are read whole (read_bounded_file), up to this many bytes.
constexpr int64_t kMaxDataFileBytes = int64_t{256} << 20;
// One value a line: blank (empty or whitespace-only) lines skipped, a trailing \r removed.
// Throws "cannot read data file 'PATH': reason".
std::vector<std::string> read_lines_file(const std::string& path);
// The values of `column` of a CSV file whose first row is the header (RFC 4180: quoted fields
// with commas, doubled quotes and line breaks; CRLF or LF; blank lines skipped). Throws
// "cannot read data file 'PATH': reason", "CSV file 'PATH' has no column 'x'; columns: a, b",
// and "CSV file 'PATH' line N: reason" (1-based) for a malformed row.
std::vector<std::string> read_csv_column(const std::string& path, const std::string& column);

}  // namespace proofload::workload
