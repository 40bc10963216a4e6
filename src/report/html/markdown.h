// The part of Markdown our summary.md files use, as HTML: headings, paragraphs, "- " lists,
// pipe tables, `code` and **bold**. Written here rather than taken from a library because the
// input is only ever our own renderer's (no Markdown library is in Debian's C++ packages that is
// made for so little); every character of it is escaped, so a server's text in a report (a
// status line, a check's message) is never markup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proofload::report::html {

// &, <, >, " and ' as entities.
std::string escape_html(std::string_view text);

// The Markdown `text` as HTML; headings are shifted down by `heading_shift` levels (a "## " of
// summary.md becomes an <h3> under the page's own <h2>s when it is 1).
std::string markdown_to_html(std::string_view text, int heading_shift = 0);

// summary.md cut where its "## " headings are: the opening (the title and the lines before the
// first "## "), then each section with its heading line.
struct MarkdownSection {
  std::string heading;  // "" for the opening
  std::string body;     // the lines under it, heading line excluded
};
std::vector<MarkdownSection> split_sections(std::string_view markdown);

}  // namespace proofload::report::html
