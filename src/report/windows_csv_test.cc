// windows.csv: exact rows (golden), a column per header name, empty cells where no value exists.
#include "report/windows_csv.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using testing_support::lines_of;
using testing_support::make_synthetic_result;

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, separator)) cells.push_back(cell);
  if (!line.empty() && line.back() == separator) cells.emplace_back();
  return cells;
}

TEST(WindowsCsv, MatchesGolden) {
  testing_support::expect_matches_golden("windows.csv", windows_csv(make_synthetic_result()));
}

TEST(WindowsCsv, EveryRowHasOneCellPerHeaderColumn) {
  const std::vector<std::string> lines = lines_of(windows_csv(make_synthetic_result()));
  ASSERT_EQ(lines.size(), 5u);  // header + 4 windows
  const size_t columns = split(lines[0], ',').size();
  EXPECT_EQ(columns, 44u);
  for (const std::string& line : lines) EXPECT_EQ(split(line, ',').size(), columns) << line;
}

TEST(WindowsCsv, EmptyWindowHasEmptyPercentileCellsNotZero) {
  const RunResult result = make_synthetic_result();
  ASSERT_EQ(result.windows[3].latency.count, 0);
  const std::vector<std::string> header = split(lines_of(windows_csv_header())[0], ',');
  const std::vector<std::string> row = split(lines_of(windows_csv_row(result.windows[3]))[0], ',');
  ASSERT_EQ(row.size(), header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i].ends_with("_ms")) {
      EXPECT_EQ(row[i], "") << header[i];
    }
  }
}

TEST(WindowsCsv, WarmupWindowIsFlagged) {
  const RunResult result = make_synthetic_result();
  EXPECT_TRUE(windows_csv_row(result.windows[0]).starts_with("0,0.000,1.000,1,"));
  EXPECT_TRUE(windows_csv_row(result.windows[1]).starts_with("1,1.000,1.000,0,"));
}

}  // namespace
}  // namespace proofload::report
