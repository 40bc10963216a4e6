// See markdown_text.h.
#include "report/markdown_text.h"

namespace proofload::report::markdown {

std::string table_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string inline_code(std::string_view text) {
  std::string fence = "`";
  while (text.find(fence) != std::string_view::npos) fence += '`';
  // A fence of two or more needs spaces when the text starts or ends with a backtick.
  const bool pad = fence.size() > 1;
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

std::string command_block(const std::string& command_line) {
  if (command_line.empty()) return "The command was not recorded.\n\n";
  std::string fence = "```";
  while (command_line.find(fence) != std::string::npos) fence += '`';
  return fence + "\n" + command_line + "\n" + fence + "\n\n";
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + cell + " |";
  return out + "\n";
}

}  // namespace proofload::report::markdown
