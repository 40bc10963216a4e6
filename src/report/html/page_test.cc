// report.html's page and Markdown: a server's text is never markup, the data cannot close its
// <script>, the same page renders the same bytes, and the page refers to nothing outside itself.
#include "report/html/page.h"

#include <gtest/gtest.h>

#include "report/html/assets.h"
#include "report/html/markdown.h"

namespace proofload::report::html {
namespace {

Page hostile_page() {
  Page page;
  page.kind = "run";
  page.summary_md =
      "# Run: http://127.0.0.1/<b>x</b>\n\nA line.\n\n## The short version\n\n"
      "| Question | Answer |\n| --- | ---: |\n| <img src=x onerror=alert(1)> | 1 `a<b` **2** |\n\n"
      "## Latency\n\nnot shown\n\n## What this does not show\n\n- one\n- two\n  wrapped\n";
  Chart chart;
  chart.id = "c";
  chart.title = "</script><script>alert(1)</script>";
  chart.x = {1, 2};
  chart.series.push_back({.label = "s</script>",
                          .values = {1.0, std::nullopt},
                          .color = "",
                          .point_colors = {},
                          .points_only = false});
  page.sections.push_back({.title = "T<i>", .note = "", .charts = {chart}, .script_box = ""});
  return page;
}

TEST(HtmlPage, AServersTextIsNeverMarkupAndTheDataCannotCloseItsScript) {
  const std::string html = render_page(hostile_page());
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos);
  EXPECT_EQ(html.find("<h2>T<i></h2>"), std::string::npos);
  // The chart's title is data: its '<' is escaped inside the JSON, so </script> never appears.
  EXPECT_EQ(html.find("</script><script>alert(1)"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
}

TEST(HtmlPage, ShowsSummarysOpeningShortVersionAndWhatItDoesNotShowOnly) {
  const std::string html = render_page(hostile_page());
  EXPECT_NE(html.find("<p>A line.</p>"), std::string::npos);
  EXPECT_NE(html.find("<h2>The short version</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">1 <code>a&lt;b</code> <strong>2</strong></td>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>two wrapped</li>"), std::string::npos);
  EXPECT_EQ(html.find("not shown"), std::string::npos) << "other sections stay in summary.md";
}

TEST(HtmlPage, TheSamePageIsTheSameBytesAndCarriesEverythingItNeeds) {
  const std::string html = render_page(hostile_page());
  EXPECT_EQ(render_page(hostile_page()), html);
  EXPECT_NE(html.find(std::string(kUplotJs.substr(0, 200))), std::string::npos);
  EXPECT_NE(html.find("Permission is hereby granted"), std::string::npos) << "uPlot's licence";
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  for (const char* outside : {"src=\"http", "href=\"http", "@import", "<link"}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  // A gap stays a gap.
  EXPECT_NE(html.find("\"values\":[1.0,null]"), std::string::npos);
}

TEST(HtmlMarkdown, SplitsSummaryAtItsSecondLevelHeadings) {
  const auto sections = split_sections("# T\n\nintro\n## A\none\n## B\ntwo\n");
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0].body, "# T\n\nintro\n");
  EXPECT_EQ(sections[1].heading, "A");
  EXPECT_EQ(sections[2].body, "two\n");
  EXPECT_EQ(markdown_to_html("## A\n", 1), "<h3>A</h3>\n");
  EXPECT_EQ(markdown_to_html("a | b\n"), "<p>a | b</p>\n");
  EXPECT_EQ(markdown_to_html("unpaired ` and **\n"), "<p>unpaired ` and **</p>\n");
}

}  // namespace
}  // namespace proofload::report::html
