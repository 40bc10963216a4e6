// Shared by the summary.md tests: reading a rendered report back (its "## " sections and its
// Markdown tables), so that each test can compare the printed numbers with the JSON they came
// from. Test-only; pure.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace proofload::report::testing_support {

// The text of a "## " section, up to the next one; "" when absent.
inline std::string section(const std::string& markdown, const std::string& title) {
  const size_t start = markdown.find("\n## " + title + "\n");
  if (start == std::string::npos) return "";
  const size_t end = markdown.find("\n## ", start + 1);
  return markdown.substr(start + 1, end == std::string::npos ? std::string::npos : end - start);
}

// The cells of one table line "| a | b \| c |" -> {"a", "b | c"} (padding stripped).
inline std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cell.size() >= 2 ? cell.substr(1, cell.size() - 2) : "");
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The first Markdown table in `text`: header, then body rows (the alignment row dropped).
inline std::vector<std::vector<std::string>> first_table(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (!line.starts_with("|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (line.starts_with("| ---")) continue;
    rows.push_back(split_cells(line));
  }
  return rows;
}

}  // namespace proofload::report::testing_support
