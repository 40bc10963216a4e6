// Data sources: compiling a DataSpec, drawing values, and reading data files. See data_source.h.
#include "workload/data_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <system_error>

#include "common/file_text.h"
#include "common/usage_error.h"

namespace proofload::workload {

namespace {

// Far more than any scenario needs; a bigger pool is a typo that would eat the memory.
constexpr int64_t kMaxPoolSize = 10'000'000;
// The Rng stream of a pool's draws at compile time (workers use their own indices).
constexpr uint64_t kPoolStream = 0x706f6f6c;  // "pool"

[[noreturn]] void fail(const DataSpec& spec, const std::string& reason) {
  throw UsageError("data '" + spec.name + "': " + reason);
}

// FNV-1a: a hash of the name that is the same on every platform, so a seed repeats a run.
uint64_t stable_hash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return hash;
}

void assign_int(std::string& out, int64_t value) {
  std::array<char, 24> digits;
  const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  out.assign(digits.data(), result.ptr);
}

// A random version-4 UUID (RFC 9562): 122 random bits, lowercase, 36 characters.
void assign_uuid(std::string& out, Rng& rng) {
  constexpr char kHex[] = "0123456789abcdef";
  uint64_t high = rng();
  uint64_t low = rng();
  high = (high & ~0xf000ULL) | 0x4000ULL;                       // version 4 (13th hex digit)
  low = (low & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10xx (17th)
  out.assign(36, '-');
  size_t at = 0;
  for (int nibble = 0; nibble < 32; ++nibble) {
    if (at == 8 || at == 13 || at == 18 || at == 23) ++at;
    const uint64_t word = nibble < 16 ? high : low;
    out[at++] = kHex[(word >> (60 - 4 * (nibble % 16))) & 0xf];
  }
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::string_view without_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

// An RFC 4180 reader over a whole file's text, one record at a time.
class CsvReader {
 public:
  CsvReader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  // Reads the next record into `fields`; false at the end. `line` is where the record began.
  bool next(std::vector<std::string>& fields, int& line) {
    fields.clear();
    if (at_ >= text_.size()) return false;
    line = line_;
    while (true) {
      std::string& field = fields.emplace_back();
      if (at_ < text_.size() && text_[at_] == '"') {
        read_quoted(field);
      } else {
        while (at_ < text_.size() && text_[at_] != ',' && !at_line_end()) field += text_[at_++];
      }
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      skip_line_end();
      return true;
    }
  }

  [[noreturn]] void fail_at(int line, const std::string& reason) const {
    throw UsageError("CSV file '" + path_ + "' line " + std::to_string(line) + ": " + reason);
  }

 private:
  bool at_line_end() const {
    return text_[at_] == '\n' ||
           (text_[at_] == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n');
  }

  void skip_line_end() {
    if (at_ >= text_.size()) return;
    at_ += text_[at_] == '\r' ? 2 : 1;
    ++line_;
  }

  void read_quoted(std::string& field) {
    const int opened_on = line_;
    ++at_;
    while (true) {
      if (at_ >= text_.size()) fail_at(opened_on, "a quoted field is never closed");
      const char c = text_[at_++];
      if (c == '"') {
        if (at_ < text_.size() && text_[at_] == '"') {
          field += '"';
          ++at_;
          continue;
        }
        if (at_ < text_.size() && text_[at_] != ',' && !at_line_end()) {
          fail_at(line_, "text after a closing quote (a quote inside a field is written \"\")");
        }
        return;
      }
      if (c == '\n') ++line_;
      field += c;
    }
  }

  std::string_view text_;
  const std::string& path_;
  size_t at_ = 0;
  int line_ = 1;
};

bool is_blank_record(const std::vector<std::string>& fields) {
  return fields.size() == 1 && is_blank(fields[0]);
}

}  // namespace

uint64_t uniform_below(Rng& rng, uint64_t bound) {
  // Lemire's multiply-and-reject: the high word of x * bound is uniform once the few low words
  // that would favour some results are rejected; the division runs only in that rare case.
  __extension__ using Uint128 = unsigned __int128;
  Uint128 product = static_cast<Uint128>(rng()) * bound;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<Uint128>(rng()) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

int64_t uniform_int(Rng& rng, int64_t min, int64_t max) {
  const uint64_t span = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  if (span == UINT64_MAX) return static_cast<int64_t>(rng());  // the whole int64 range
  return static_cast<int64_t>(static_cast<uint64_t>(min) + uniform_below(rng, span + 1));
}

DataSource DataSource::compile(const DataSpec& spec, uint64_t seed) {
  using Kind = DataSpec::Kind;
  DataSource source;
  source.name_ = spec.name;
  source.kind_ = spec.kind;
  switch (spec.kind) {
    case Kind::kList:
    case Kind::kFileLines:
    case Kind::kCsvColumn:
      if (spec.kind == Kind::kCsvColumn && spec.column.empty()) fail(spec, "no CSV column named");
      if (spec.values.empty()) {
        fail(spec, spec.kind == Kind::kList ? "the list of values is empty"
                                            : "file '" + spec.path + "' has no values");
      }
      source.values_ = spec.values;
      source.sequential_ = spec.sequential;
      break;
    case Kind::kWord:
      if (spec.values.empty()) {
        source.defaults_ = default_words();
      } else {
        source.values_ = spec.values;
      }
      break;
    case Kind::kIntRange:
      if (spec.min > spec.max) {
        fail(spec, "int min (" + std::to_string(spec.min) + ") is greater than max (" +
                       std::to_string(spec.max) + ")");
      }
      source.min_ = spec.min;
      source.max_ = spec.max;
      break;
    case Kind::kSequence:
      if (spec.step == 0) fail(spec, "sequence step must not be 0 (its values must differ)");
      source.start_ = spec.start;
      source.step_ = spec.step;
      break;
    case Kind::kUuid:
      break;
    case Kind::kPool: {
      if (spec.pool_size < 1 || spec.pool_size > kMaxPoolSize) {
        fail(spec, "pool size must be between 1 and " + std::to_string(kMaxPoolSize) + " (got " +
                       std::to_string(spec.pool_size) + ")");
      }
      if (spec.pool_of.size() != 1) fail(spec, "a pool needs exactly one generator in 'of'");
      DataSpec inner_spec = spec.pool_of[0];
      if (inner_spec.name.empty()) inner_spec.name = spec.name;
      const DataSource inner = compile(inner_spec, seed);
      Rng rng = make_rng(seed ^ stable_hash(spec.name), kPoolStream);
      DataCursor cursor = inner.cursor(0, 1);
      source.values_.resize(static_cast<size_t>(spec.pool_size));
      for (std::string& value : source.values_) inner.draw(cursor, rng, value);
      break;
    }
  }
  return source;
}

DataCursor DataSource::cursor(int worker_index, int workers) const {
  if (workers < 1 || worker_index < 0 || worker_index >= workers) {
    throw std::invalid_argument("DataSource::cursor: worker " + std::to_string(worker_index) +
                                " of " + std::to_string(workers));
  }
  DataCursor cursor;
  cursor.position_ = static_cast<uint64_t>(worker_index);
  cursor.stride_ = static_cast<uint64_t>(workers);
  return cursor;
}

void DataSource::draw(DataCursor& cursor, Rng& rng, std::string& out) const {
  using Kind = DataSpec::Kind;
  switch (kind_) {
    case Kind::kList:
    case Kind::kFileLines:
    case Kind::kCsvColumn:
    case Kind::kPool: {
      size_t index;
      if (sequential_) {
        index = static_cast<size_t>(cursor.position_ % values_.size());
        cursor.position_ = index + cursor.stride_;
      } else {
        index = static_cast<size_t>(uniform_below(rng, values_.size()));
      }
      out.assign(values_[index]);
      return;
    }
    case Kind::kWord:
      if (!defaults_.empty()) {
        out.assign(defaults_[static_cast<size_t>(uniform_below(rng, defaults_.size()))]);
      } else {
        out.assign(values_[static_cast<size_t>(uniform_below(rng, values_.size()))]);
      }
      return;
    case Kind::kIntRange:
      assign_int(out, uniform_int(rng, min_, max_));
      return;
    case Kind::kSequence: {
      // Unsigned arithmetic: past the int64 range the sequence wraps instead of being undefined.
      const uint64_t value =
          static_cast<uint64_t>(start_) + static_cast<uint64_t>(step_) * cursor.position_;
      cursor.position_ += cursor.stride_;
      assign_int(out, static_cast<int64_t>(value));
      return;
    }
    case Kind::kUuid:
      assign_uuid(out, rng);
      return;
  }
}

const std::string& DataSource::name() const { return name_; }

bool DataSource::has_value_breaking_a_line() const {
  return std::any_of(values_.begin(), values_.end(), [](const std::string& value) {
    return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos;
  });
}

std::vector<std::string> read_lines_file(const std::string& path) {
  const std::string content = read_bounded_file(path, "data file", kMaxDataFileBytes);
  std::string_view rest = without_bom(content);
  std::vector<std::string> lines;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!is_blank(line)) lines.emplace_back(line);
  }
  return lines;
}

std::vector<std::string> read_csv_column(const std::string& path, const std::string& column) {
  const std::string content = read_bounded_file(path, "data file", kMaxDataFileBytes);
  CsvReader reader(without_bom(content), path);
  std::vector<std::string> fields;
  int line = 0;
  std::vector<std::string> header;
  while (reader.next(fields, line)) {
    if (!is_blank_record(fields)) {
      header = fields;
      break;
    }
  }
  if (header.empty()) throw UsageError("CSV file '" + path + "' is empty (no header row)");
  size_t index = 0;
  while (index < header.size() && header[index] != column) ++index;
  if (index == header.size()) {
    std::string names;
    for (const std::string& name : header) names += (names.empty() ? "" : ", ") + name;
    throw UsageError("CSV file '" + path + "' has no column '" + column + "'; columns: " + names);
  }
  std::vector<std::string> values;
  while (reader.next(fields, line)) {
    if (is_blank_record(fields)) continue;
    if (fields.size() != header.size()) {
      reader.fail_at(line, "the row has " + std::to_string(fields.size()) +
                               " fields, the header has " + std::to_string(header.size()));
    }
    values.push_back(std::move(fields[index]));
  }
  return values;
}

}  // namespace proofload::workload
