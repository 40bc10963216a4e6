// Extraction as a flow relies on it: the value each kind yields, false when there is nothing to
// take, errors at compile time, and `out` reused rather than reallocated.
#include "workload/extract.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "common/usage_error.h"
#include "workload/check.h"

namespace proofload::workload {
namespace {

ExtractSpec spec_of(ExtractSpec::Kind kind, std::string expression, int group = 1) {
  ExtractSpec spec;
  spec.variable = "v";
  spec.kind = kind;
  spec.expression = std::move(expression);
  spec.group = group;
  return spec;
}

ResponseView response(std::string_view body, std::string_view headers = "",
                      bool truncated = false) {
  ResponseView view;
  view.status = 200;
  view.headers = headers;
  view.body = body;
  view.body_truncated = truncated;
  return view;
}

// The extracted value, or nullopt when extract() returned false.
std::optional<std::string> run(const ExtractSpec& spec, const ResponseView& view) {
  JsonBodyCache cache;
  std::string out;
  if (!CompiledExtract::compile(spec).extract(view, cache, out)) return std::nullopt;
  return out;
}

std::optional<std::string> json_at(std::string pointer, std::string_view body) {
  return run(spec_of(ExtractSpec::Kind::kJsonPointer, std::move(pointer)), response(body));
}

std::string compile_error(const ExtractSpec& spec) {
  try {
    CompiledExtract::compile(spec);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ExtractTest, JsonStringsComeOutUnquotedAndUnescaped) {
  EXPECT_EQ(json_at("/id", R"({"id": "abc-1"})"), "abc-1");
  EXPECT_EQ(json_at("/s", R"({"s": "say \"hi\"\n\u00e9"})"), "say \"hi\"\n\xc3\xa9");
  EXPECT_EQ(json_at("/s", R"({"s": ""})"), "");
}

TEST(ExtractTest, JsonScalarsComeOutAsJsonText) {
  const std::string body =
      R"({"i": 42, "neg": -7, "big": 18446744073709551615, "f": 1.5, "whole": 2.0,
          "t": true, "no": false, "nothing": null})";
  EXPECT_EQ(json_at("/i", body), "42");
  EXPECT_EQ(json_at("/neg", body), "-7");
  EXPECT_EQ(json_at("/big", body), "18446744073709551615");
  EXPECT_EQ(json_at("/f", body), "1.5");
  EXPECT_EQ(json_at("/whole", body), "2.0");
  EXPECT_EQ(json_at("/t", body), "true");
  EXPECT_EQ(json_at("/no", body), "false");
  EXPECT_EQ(json_at("/nothing", body), "null");
}

TEST(ExtractTest, JsonObjectsAndArraysComeOutAsCompactJson) {
  const std::string body = R"({"user": {"id": 1, "tags": ["a", "b"]}, "items": [{"id": 3}]})";
  EXPECT_EQ(json_at("/user", body), R"({"id":1,"tags":["a","b"]})");
  EXPECT_EQ(json_at("/user/tags", body), R"(["a","b"])");
  EXPECT_EQ(json_at("/items/0/id", body), "3");
  EXPECT_EQ(json_at("", "[1, 2]"), "[1,2]");
}

TEST(ExtractTest, JsonFindsNothingForAMissingValueABadBodyOrATruncatedOne) {
  EXPECT_EQ(json_at("/missing", R"({"id": 1})"), std::nullopt);
  EXPECT_EQ(json_at("/items/5", R"({"items": [1]})"), std::nullopt);
  EXPECT_EQ(json_at("/id", "not json"), std::nullopt);
  EXPECT_EQ(json_at("/id", ""), std::nullopt);
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kJsonPointer, "/id"),
                response(R"({"id": 1})", "", /*truncated=*/true)),
            std::nullopt);
}

TEST(ExtractTest, RegexTakesTheGroupOfTheFirstMatch) {
  const std::string body = "<a href=\"/orders/17\">17</a> <a href=\"/orders/18\">";
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(/orders/(\d+))"), response(body)), "17");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(/orders/(\d+))", 0), response(body)),
            "/orders/17");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"((\w+)/(\d+))", 2), response(body)), "17");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(token=(\w*))"), response("token=&x=1")), "");
}

TEST(ExtractTest, RegexFindsNothingWithoutAMatchOrWhenTheGroupTookNoPart) {
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(id=(\d+))"), response("id=none")),
            std::nullopt);
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(id=(\d+)?)"), response("id=none")),
            std::nullopt);
  // A match in a cut body may be cut too ("id=12" of "id=1234").
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, R"(id=(\d+))"), response("id=12", "", true)),
            std::nullopt);
}

TEST(ExtractTest, ARegexRunsOnAWholeMegabyteBody) {
  // std::regex recursed per character and stopped at 8 KiB; RE2 is linear.
  const ExtractSpec spec = spec_of(ExtractSpec::Kind::kRegex, "id=(.*)");
  const std::string body = "id=" + std::string(1 << 20, '7');
  EXPECT_EQ(run(spec, response(body)), body.substr(3));
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kRegex, "(?:a+)+(b)"),
                response(std::string(1 << 20, 'a') + "b")),
            "b");
}

TEST(ExtractTest, HeaderNameIsCaseInsensitiveAndValueTrimmed) {
  const std::string headers =
      "Content-Type: text/html\r\nLOCATION: \t /orders/17 \t\r\nX-Empty:\r\nlocation: /second\r\n";
  const ResponseView view = response("", headers);
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "Location"), view), "/orders/17");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "content-type"), view), "text/html");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "X-Empty"), view), "");
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "X-Missing"), view), std::nullopt);
  // A prefix of a name is not the name.
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "Content"), view), std::nullopt);
}

TEST(ExtractTest, HeaderExtractionIgnoresTheBodyAndItsTruncation) {
  const ResponseView view = response("Location: /from-body", "Location: /h\r\n", true);
  EXPECT_EQ(run(spec_of(ExtractSpec::Kind::kHeader, "location"), view), "/h");
}

TEST(ExtractTest, FindHeaderAcceptsBareNewlinesAndSkipsLinesWithoutAColon) {
  EXPECT_EQ(find_header("junk line\nA: 1\nb:2", "B"), "2");
  EXPECT_EQ(find_header("A: 1\r\n\r\n", "a"), "1");
  EXPECT_EQ(find_header("", "a"), std::nullopt);
  EXPECT_EQ(find_header(" A: folded\r\n", "A"), std::nullopt);
}

TEST(ExtractTest, ExtractReusesTheCapacityOfOut) {
  JsonBodyCache cache;
  std::string out;
  out.reserve(256);
  const char* const storage = out.data();
  const ResponseView view =
      response(R"({"id": "abc", "n": 12345, "t": true, "href": "x/orders/9"})", "Location: /l\r\n");
  for (const ExtractSpec& spec : {spec_of(ExtractSpec::Kind::kJsonPointer, "/id"),
                                  spec_of(ExtractSpec::Kind::kJsonPointer, "/n"),
                                  spec_of(ExtractSpec::Kind::kJsonPointer, "/t"),
                                  spec_of(ExtractSpec::Kind::kRegex, R"(orders/(\d+))"),
                                  spec_of(ExtractSpec::Kind::kHeader, "location")}) {
    ASSERT_TRUE(CompiledExtract::compile(spec).extract(view, cache, out)) << spec.expression;
    EXPECT_EQ(out.data(), storage) << spec.expression;
  }
  EXPECT_EQ(out, "/l");
}

TEST(ExtractTest, ReportsWhatItNeedsFromTheResponse) {
  const CompiledExtract json =
      CompiledExtract::compile(spec_of(ExtractSpec::Kind::kJsonPointer, "/a"));
  const CompiledExtract regex = CompiledExtract::compile(spec_of(ExtractSpec::Kind::kRegex, "(a)"));
  const CompiledExtract header = CompiledExtract::compile(spec_of(ExtractSpec::Kind::kHeader, "A"));
  EXPECT_TRUE(json.needs_body());
  EXPECT_FALSE(json.needs_headers());
  EXPECT_TRUE(regex.needs_body());
  EXPECT_FALSE(regex.needs_headers());
  EXPECT_FALSE(header.needs_body());
  EXPECT_TRUE(header.needs_headers());
  EXPECT_EQ(json.variable(), "v");
}

TEST(ExtractTest, CompileRejectsBadRegexPointerGroupAndHeaderName) {
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "a["))
                .rfind("invalid regular expression 'a[': ", 0),
            0u);
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "(a)(b)", 3)),
            "regular expression '(a)(b)' has 2 capture group(s); group 3 does not exist");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "ab")),
            "regular expression 'ab' has 0 capture group(s); group 1 does not exist");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "(a)", -1)),
            "regular expression '(a)' has 1 capture group(s); group -1 does not exist");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "ab", 0)), "(no error)");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kRegex, "(?:a)(b)", 1)), "(no error)");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kJsonPointer, "id")),
            "invalid JSON pointer 'id': it must be empty or start with '/'");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kHeader, "X Token")),
            "'X Token' is not a header name");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kHeader, "Location:")),
            "'Location:' is not a header name");
  EXPECT_EQ(compile_error(spec_of(ExtractSpec::Kind::kHeader, "")),
            "header extraction with no header name");
}

}  // namespace
}  // namespace proofload::workload
