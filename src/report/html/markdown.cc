// Our summary.md's Markdown as HTML (see markdown.h).
#include "report/html/markdown.h"

#include <algorithm>

namespace proofload::report::html {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// `code` and **bold**, the rest escaped. An unpaired marker is kept as text.
std::string inline_html(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '`') {
      const size_t end = text.find('`', i + 1);
      if (end != std::string_view::npos) {
        out += "<code>" + escape_html(text.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    } else if (text.substr(i, 2) == "**") {
      const size_t end = text.find("**", i + 2);
      if (end != std::string_view::npos) {
        out += "<strong>" + inline_html(text.substr(i + 2, end - i - 2)) + "</strong>";
        i = end + 2;
        continue;
      }
    }
    const size_t next = std::min(text.find('`', i + 1), text.find("**", i + 1));
    const size_t stop = next == std::string_view::npos ? text.size() : next;
    out += escape_html(text.substr(i, stop - i));
    i = stop;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A table row's cells: "| a | b |" → {"a", "b"}; "\|" is a pipe inside a cell.
std::vector<std::string> cells_of(std::string_view row) {
  row = trim(row);
  if (row.starts_with('|')) row.remove_prefix(1);
  if (row.ends_with('|') && !row.ends_with("\\|")) row.remove_suffix(1);
  std::vector<std::string> cells(1);
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cells.back() += '|';
      ++i;
    } else if (row[i] == '|') {
      cells.emplace_back();
    } else {
      cells.back() += row[i];
    }
  }
  for (auto& c : cells) c = std::string(trim(c));
  return cells;
}

bool is_separator_row(std::string_view line) {
  line = trim(line);
  return line.starts_with('|') && line.find_first_not_of("|-: ") == std::string_view::npos;
}

std::string table_html(const std::vector<std::string_view>& rows) {
  std::string out = "<div class=\"table\"><table>\n";
  std::vector<bool> right;  // a column whose separator ends with ':' is right-aligned
  if (rows.size() > 1 && is_separator_row(rows[1])) {
    for (const auto& c : cells_of(rows[1])) right.push_back(c.ends_with(':'));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r == 1 && is_separator_row(rows[r])) continue;
    const bool head = r == 0;
    out += "<tr>";
    const auto cells = cells_of(rows[r]);
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool num = c < right.size() && right[c];
      out += head ? "<th" : "<td";
      if (num) out += " class=\"num\"";
      out += ">" + inline_html(cells[c]) + (head ? "</th>" : "</td>");
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_to_html(std::string_view text, int heading_shift) {
  const auto lines = lines_of(text);
  std::string out;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string_view line = trim(lines[i]);
    if (line.empty() || line == "```") {
      ++i;
    } else if (line.starts_with('#')) {
      const size_t hashes = std::min<size_t>(line.find_first_not_of('#'), line.size());
      const int level = std::clamp(static_cast<int>(hashes) + heading_shift, 1, 6);
      const std::string tag = "h" + std::to_string(level);
      out += "<" + tag + ">" + inline_html(trim(line.substr(hashes))) + "</" + tag + ">\n";
      ++i;
    } else if (line.starts_with('|')) {
      std::vector<std::string_view> rows;
      while (i < lines.size() && trim(lines[i]).starts_with('|')) rows.push_back(lines[i++]);
      out += table_html(rows);
    } else if (line.starts_with("- ") || line.starts_with("* ")) {
      out += "<ul>\n";
      while (i < lines.size()) {
        const std::string_view item = trim(lines[i]);
        if (!item.starts_with("- ") && !item.starts_with("* ")) break;
        std::string body(item.substr(2));
        // A wrapped item goes on on indented lines.
        while (++i < lines.size() && lines[i].starts_with("  ") && !trim(lines[i]).empty() &&
               !trim(lines[i]).starts_with("- ")) {
          body += " " + std::string(trim(lines[i]));
        }
        out += "<li>" + inline_html(body) + "</li>\n";
      }
      out += "</ul>\n";
    } else {
      std::string paragraph;
      while (i < lines.size()) {
        const std::string_view l = trim(lines[i]);
        if (l.empty() || l.starts_with('#') || l.starts_with('|') || l.starts_with("- ") ||
            l == "```")
          break;
        paragraph += (paragraph.empty() ? "" : " ") + std::string(l);
        ++i;
      }
      out += "<p>" + inline_html(paragraph) + "</p>\n";
    }
  }
  return out;
}

std::vector<MarkdownSection> split_sections(std::string_view markdown) {
  std::vector<MarkdownSection> sections(1);
  for (std::string_view line : lines_of(markdown)) {
    if (line.starts_with("## ")) {
      sections.push_back({std::string(trim(line.substr(3))), ""});
    } else {
      sections.back().body += std::string(line) + "\n";
    }
  }
  return sections;
}

}  // namespace proofload::report::html
