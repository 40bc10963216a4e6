// Data sources: every kind draws only legal values, random choices are uniform, workers get
// disjoint sequences and share sequential lists, pools repeat their N values; data files load.
#include "workload/data_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/usage_error.h"

long allocations_so_far();  // template_test.cc

namespace proofload::workload {
namespace {

using SourceKind = DataSpec::Kind;

DataSpec list_spec(std::vector<std::string> values, bool sequential = false) {
  DataSpec spec;
  spec.name = "item";
  spec.kind = SourceKind::kList;
  spec.values = std::move(values);
  spec.sequential = sequential;
  return spec;
}

DataSpec sequence_spec(int64_t start, int64_t step) {
  DataSpec spec;
  spec.name = "n";
  spec.kind = SourceKind::kSequence;
  spec.start = start;
  spec.step = step;
  return spec;
}

DataSpec int_spec(int64_t min, int64_t max) {
  DataSpec spec;
  spec.name = "i";
  spec.kind = SourceKind::kIntRange;
  spec.min = min;
  spec.max = max;
  return spec;
}

DataSpec word_spec() {
  DataSpec spec;
  spec.name = "word";
  spec.kind = SourceKind::kWord;
  return spec;
}

DataSpec uuid_spec() {
  DataSpec spec;
  spec.name = "id";
  spec.kind = SourceKind::kUuid;
  return spec;
}

DataSpec pool_spec(const std::string& name, int64_t size, DataSpec of) {
  DataSpec spec;
  spec.name = name;
  spec.kind = SourceKind::kPool;
  spec.pool_size = size;
  spec.pool_of = {std::move(of)};
  return spec;
}

// `count` draws of one worker, from a fresh cursor.
std::vector<std::string> draws(const DataSource& source, int count, int worker = 0, int workers = 1,
                               uint64_t seed = 7) {
  DataCursor cursor = source.cursor(worker, workers);
  Rng rng = make_rng(seed, static_cast<uint64_t>(worker));
  std::vector<std::string> out(static_cast<size_t>(count));
  for (std::string& value : out) source.draw(cursor, rng, value);
  return out;
}

std::string compile_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

std::string write_data_file(const std::string& name, const std::string& content) {
  const std::string path = testing::TempDir() + "data_source_test_" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(DataSource, RandomListChoiceIsUniformOverAllValues) {
  const std::vector<std::string> values = {"a", "b", "c", "d", "e"};
  const DataSource source = DataSource::compile(list_spec(values), 1);
  EXPECT_EQ(source.name(), "item");
  constexpr int kDraws = 50'000;
  std::map<std::string, int> counts;
  for (const std::string& value : draws(source, kDraws)) ++counts[value];
  ASSERT_EQ(counts.size(), values.size());  // every value, and nothing else
  const double expected = static_cast<double>(kDraws) / static_cast<double>(values.size());
  double chi_square = 0;
  for (const std::string& value : values) {
    const double diff = counts[value] - expected;
    chi_square += diff * diff / expected;
  }
  // 4 degrees of freedom: P(chi-square > 30) is about 5e-6; a biased choice lands far above.
  EXPECT_LT(chi_square, 30.0);
}

TEST(DataSource, SequentialListGoesInOrderAndWraps) {
  const DataSource source = DataSource::compile(list_spec({"a", "b", "c"}, true), 1);
  EXPECT_EQ(draws(source, 7), (std::vector<std::string>{"a", "b", "c", "a", "b", "c", "a"}));
  // A default-constructed cursor behaves as worker 0 of 1.
  DataCursor cursor;
  Rng rng = make_rng(1, 0);
  std::string value;
  source.draw(cursor, rng, value);
  source.draw(cursor, rng, value);
  EXPECT_EQ(value, "b");
}

TEST(DataSource, SequentialListAcrossWorkersCoversAllValues) {
  std::vector<std::string> values;
  for (int i = 0; i < 9; ++i) values.push_back("v" + std::to_string(i));
  const DataSource source = DataSource::compile(list_spec(values, true), 1);
  // 3 workers drawing 3 each go through the whole list once.
  std::multiset<std::string> seen;
  for (int worker = 0; worker < 3; ++worker) {
    for (const std::string& value : draws(source, 3, worker, 3)) seen.insert(value);
  }
  EXPECT_EQ(seen, std::multiset<std::string>(values.begin(), values.end()));
  // With a size that is no multiple of the workers, they still cover it together.
  const DataSource seven =
      DataSource::compile(list_spec({"0", "1", "2", "3", "4", "5", "6"}, true), 1);
  std::set<std::string> union_of_workers;
  for (int worker = 0; worker < 3; ++worker) {
    for (const std::string& value : draws(seven, 3, worker, 3)) union_of_workers.insert(value);
  }
  EXPECT_EQ(union_of_workers.size(), 7u);
}

TEST(DataSource, SequencesAreDisjointAndCompleteAcrossWorkers) {
  const DataSource source = DataSource::compile(sequence_spec(100, 5), 1);
  std::vector<int64_t> all;
  for (int worker = 0; worker < 3; ++worker) {
    for (const std::string& value : draws(source, 10, worker, 3)) all.push_back(std::stoll(value));
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected;
  for (int k = 0; k < 30; ++k) expected.push_back(100 + 5 * k);
  EXPECT_EQ(all, expected);
  EXPECT_EQ(draws(DataSource::compile(sequence_spec(-1, -2), 1), 3),
            (std::vector<std::string>{"-1", "-3", "-5"}));
}

TEST(DataSource, IntRangeDrawsEveryValueBetweenItsEndsAndNoOther) {
  const DataSource source = DataSource::compile(int_spec(-2, 2), 1);
  std::set<std::string> seen;
  for (const std::string& value : draws(source, 1000)) seen.insert(value);
  EXPECT_EQ(seen, (std::set<std::string>{"-2", "-1", "0", "1", "2"}));
  for (const std::string& value : draws(DataSource::compile(int_spec(42, 42), 1), 20)) {
    EXPECT_EQ(value, "42");
  }
}

TEST(DataSource, IntRangeHandlesTheWholeInt64Range) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::set<std::string> ends;
  for (const std::string& value : draws(DataSource::compile(int_spec(kMin, kMin + 1), 1), 200)) {
    ends.insert(value);
  }
  EXPECT_EQ(ends, (std::set<std::string>{std::to_string(kMin), std::to_string(kMin + 1)}));
  bool negative = false;
  bool positive = false;
  for (const std::string& value : draws(DataSource::compile(int_spec(kMin, kMax), 1), 100)) {
    (value.starts_with('-') ? negative : positive) = true;
  }
  EXPECT_TRUE(negative && positive);
  std::set<std::string> top;
  for (const std::string& value : draws(DataSource::compile(int_spec(kMax - 1, kMax), 1), 200)) {
    top.insert(value);
  }
  EXPECT_EQ(top, (std::set<std::string>{std::to_string(kMax - 1), std::to_string(kMax)}));
}

TEST(DataSource, UniformBelowIsUnbiasedForABoundThatDoesNotDivideTwoToThe64) {
  Rng rng = make_rng(3, 0);
  // With bound = 3 * 2^62, a plain modulo of a 64-bit draw would land below 2^62 half of the
  // time instead of a third.
  const uint64_t bound = uint64_t{3} << 62;
  int lower_third = 0;
  constexpr int kDraws = 30'000;
  for (int i = 0; i < kDraws; ++i) lower_third += uniform_below(rng, bound) < (uint64_t{1} << 62);
  EXPECT_NEAR(lower_third, kDraws / 3, 600);  // about 7 standard deviations
}

TEST(DataSource, UuidsAreVersion4Lowercase) {
  const std::regex uuid("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (const std::string& value : draws(DataSource::compile(uuid_spec(), 1), 1000)) {
    EXPECT_TRUE(std::regex_match(value, uuid)) << value;
    seen.insert(value);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(DataSource, WordsComeFromTheDefaultListOrTheGivenOne) {
  DataSpec spec = word_spec();
  const auto words = default_words();
  const std::set<std::string_view> word_set(words.begin(), words.end());
  std::set<std::string> seen;
  for (const std::string& value : draws(DataSource::compile(spec, 1), 2000)) {
    EXPECT_TRUE(word_set.count(value)) << value;
    seen.insert(value);
  }
  EXPECT_GT(seen.size(), 1000u);  // spread over the list, not a few favourites
  spec.values = {"alpha", "beta"};
  for (const std::string& value : draws(DataSource::compile(spec, 1), 100)) {
    EXPECT_TRUE(value == "alpha" || value == "beta") << value;
  }
}

TEST(DefaultWords, AboutTwoThousandDistinctLowercaseWords) {
  const auto words = default_words();
  EXPECT_GE(words.size(), 1900u);
  EXPECT_LE(words.size(), 2100u);
  EXPECT_EQ(std::set<std::string_view>(words.begin(), words.end()).size(), words.size());
  for (std::string_view word : words) {
    EXPECT_TRUE(word.size() >= 3 && word.size() <= 10) << word;
    EXPECT_TRUE(std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        << word;
  }
}

TEST(DataSource, PoolRepeatsOnlyItsNValues) {
  const DataSource pool = DataSource::compile(pool_spec("session", 5, uuid_spec()), 11);
  std::set<std::string> seen;
  for (const std::string& value : draws(pool, 1000)) seen.insert(value);
  EXPECT_EQ(seen.size(), 5u);
  // The same seed gives the same pool, and so does every worker's draw.
  std::set<std::string> again;
  for (const std::string& value :
       draws(DataSource::compile(pool_spec("session", 5, uuid_spec()), 11), 1000, 1, 2, 99)) {
    again.insert(value);
  }
  EXPECT_EQ(again, seen);
  // Two pools of the same kind under other names differ.
  std::set<std::string> other;
  for (const std::string& value :
       draws(DataSource::compile(pool_spec("cart", 5, uuid_spec()), 11), 1000)) {
    other.insert(value);
  }
  EXPECT_NE(other, seen);
  // A pool of a sequence holds its first N terms.
  std::set<std::string> terms;
  for (const std::string& value :
       draws(DataSource::compile(pool_spec("user", 3, sequence_spec(1, 1)), 1), 300)) {
    terms.insert(value);
  }
  EXPECT_EQ(terms, (std::set<std::string>{"1", "2", "3"}));
}

TEST(DataSource, ImpossibleSpecsAreUsageErrors) {
  EXPECT_EQ(compile_error_of([] { DataSource::compile(list_spec({}), 1); }),
            "data 'item': the list of values is empty");
  EXPECT_EQ(compile_error_of([] { DataSource::compile(int_spec(5, 3), 1); }),
            "data 'i': int min (5) is greater than max (3)");
  EXPECT_NE(compile_error_of([] { DataSource::compile(sequence_spec(1, 0), 1); }).find("step"),
            std::string::npos);
  EXPECT_NE(compile_error_of([] {
              DataSource::compile(pool_spec("p", 0, uuid_spec()), 1);
            }).find("pool size"),
            std::string::npos);
  DataSpec no_generator = pool_spec("p", 3, uuid_spec());
  no_generator.pool_of.clear();
  EXPECT_NE(compile_error_of([&] { DataSource::compile(no_generator, 1); }).find("'of'"),
            std::string::npos);
  DataSpec csv;
  csv.name = "user";
  csv.kind = SourceKind::kCsvColumn;
  csv.values = {"ann"};
  EXPECT_NE(compile_error_of([&] { DataSource::compile(csv, 1); }).find("column"),
            std::string::npos);
  csv.column = "name";
  csv.path = "users.csv";
  csv.values.clear();
  EXPECT_EQ(compile_error_of([&] { DataSource::compile(csv, 1); }),
            "data 'user': file 'users.csv' has no values");
  // An impossible inner generator is reported too.
  EXPECT_THROW(DataSource::compile(pool_spec("p", 3, int_spec(2, 1)), 1), UsageError);
}

TEST(DataSource, DrawsDoNotAllocateOnceTheBufferIsBigEnough) {
  const std::vector<DataSource> sources = {
      DataSource::compile(list_spec({"short", "a-much-longer-value"}), 1),
      DataSource::compile(list_spec({"x", "y"}, true), 1),
      DataSource::compile(int_spec(std::numeric_limits<int64_t>::min(), 0), 1),
      DataSource::compile(sequence_spec(0, 1000), 1),
      DataSource::compile(uuid_spec(), 1),
      DataSource::compile(pool_spec("p", 4, uuid_spec()), 1),
      DataSource::compile(word_spec(), 1),
  };
  std::vector<DataCursor> cursors;
  for (const DataSource& source : sources) cursors.push_back(source.cursor(0, 1));
  Rng rng = make_rng(5, 0);
  std::string out;
  out.reserve(64);
  const char* const buffer = out.data();
  const long allocations_before = allocations_so_far();
  for (int i = 0; i < 1000; ++i) {
    for (size_t s = 0; s < sources.size(); ++s) sources[s].draw(cursors[s], rng, out);
  }
  EXPECT_EQ(allocations_so_far() - allocations_before, 0);
  EXPECT_EQ(out.data(), buffer);
}

TEST(DataFiles, LinesFileSkipsBlankLinesAndCarriageReturns) {
  const std::string path = write_data_file("lines", "alpha\r\n\r\n  \nbeta\n\ngamma delta\n");
  EXPECT_EQ(read_lines_file(path), (std::vector<std::string>{"alpha", "beta", "gamma delta"}));
  EXPECT_EQ(read_lines_file(write_data_file("no_newline", "one\ntwo")),
            (std::vector<std::string>{"one", "two"}));
  EXPECT_TRUE(read_lines_file(write_data_file("empty", "")).empty());
}

TEST(DataFiles, UnreadableFileErrorGivesPathAndReason) {
  const std::string missing = testing::TempDir() + "data_source_test_missing.csv";
  EXPECT_EQ(compile_error_of([&] { read_lines_file(missing); }),
            "cannot read data file '" + missing + "': No such file or directory");
  EXPECT_EQ(compile_error_of([&] { read_csv_column(missing, "x"); }),
            "cannot read data file '" + missing + "': No such file or directory");
  EXPECT_NE(compile_error_of([] { read_lines_file(testing::TempDir()); }).find("it is a directory"),
            std::string::npos);
}

TEST(DataFiles, CsvColumnWithQuotesCommasAndLineBreaks) {
  const std::string path = write_data_file("quotes.csv",
                                           "id,name,\"note, with comma\"\r\n"
                                           "1,\"Smith, Ann\",plain\r\n"
                                           "2,\"say \"\"hi\"\"\",\"two\nlines\"\r\n"
                                           "\r\n"
                                           "3,,last\n"
                                           "4,bob,\n");
  EXPECT_EQ(read_csv_column(path, "name"),
            (std::vector<std::string>{"Smith, Ann", "say \"hi\"", "", "bob"}));
  EXPECT_EQ(read_csv_column(path, "note, with comma"),
            (std::vector<std::string>{"plain", "two\nlines", "last", ""}));
  EXPECT_EQ(read_csv_column(path, "id"), (std::vector<std::string>{"1", "2", "3", "4"}));
}

TEST(DataFiles, CsvMissingColumnListsTheColumns) {
  const std::string path = write_data_file("columns.csv", "user,password\nann,x\n");
  EXPECT_EQ(compile_error_of([&] { read_csv_column(path, "email"); }),
            "CSV file '" + path + "' has no column 'email'; columns: user, password");
}

TEST(DataFiles, CsvMalformedRowGivesItsLine) {
  const std::string short_row = write_data_file("short.csv", "a,b\n1,2\n3\n");
  EXPECT_EQ(compile_error_of([&] { read_csv_column(short_row, "a"); }),
            "CSV file '" + short_row + "' line 3: the row has 1 fields, the header has 2");
  const std::string unclosed = write_data_file("unclosed.csv", "a,b\n1,2\n\"3,4\n5,6\n");
  EXPECT_EQ(compile_error_of([&] { read_csv_column(unclosed, "a"); }),
            "CSV file '" + unclosed + "' line 3: a quoted field is never closed");
  const std::string after_quote =
      write_data_file("after.csv", "a,b\n\"multi\nline\",2\n\"x\"y,3\n");
  EXPECT_NE(compile_error_of([&] { read_csv_column(after_quote, "a"); }).find("line 4: text after"),
            std::string::npos);
  EXPECT_NE(compile_error_of([&] {
              read_csv_column(write_data_file("empty.csv", "\n"), "a");
            }).find("no header"),
            std::string::npos);
}

}  // namespace
}  // namespace proofload::workload
