// Checks as a scenario author relies on them: each kind passes and fails where it should, a bad
// body never throws, a truncated body is reported as such, and a JSON body is parsed once.
#include "workload/check.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/usage_error.h"
#include "workload/extract.h"

namespace proofload::workload {
namespace {

ResponseView response(int status, std::string_view body, bool truncated = false) {
  ResponseView view;
  view.status = status;
  view.headers = "Content-Type: application/json\r\n";
  view.body = body;
  view.body_truncated = truncated;
  return view;
}

CheckSpec status_in(std::vector<int> statuses) {
  CheckSpec spec;
  spec.kind = CheckSpec::Kind::kStatusIn;
  spec.statuses = std::move(statuses);
  return spec;
}

CheckSpec status_range(int min, int max) {
  CheckSpec spec;
  spec.kind = CheckSpec::Kind::kStatusRange;
  spec.status_min = min;
  spec.status_max = max;
  return spec;
}

CheckSpec body_check(CheckSpec::Kind kind, std::string text) {
  CheckSpec spec;
  spec.kind = kind;
  spec.text = std::move(text);
  return spec;
}

CheckSpec json_equals(std::string path, std::string value) {
  CheckSpec spec;
  spec.kind = CheckSpec::Kind::kJsonEquals;
  spec.path = std::move(path);
  spec.json_value = std::move(value);
  return spec;
}

// Runs one check on one response with a fresh cache.
CheckResult run(const CheckSpec& spec, const ResponseView& view) {
  JsonBodyCache cache;
  return CompiledCheck::compile(spec).evaluate(view, cache);
}

std::string compile_error(const CheckSpec& spec) {
  try {
    CompiledCheck::compile(spec);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CheckTest, StatusInAcceptsOnlyTheListedStatuses) {
  const CheckSpec spec = status_in({200, 204});
  EXPECT_EQ(run(spec, response(200, "")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(204, "")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(201, "")), CheckResult::kFailed);
  EXPECT_EQ(run(spec, response(500, "")), CheckResult::kFailed);
}

TEST(CheckTest, StatusRangeIncludesBothEnds) {
  const CheckSpec spec = status_range(200, 299);
  EXPECT_EQ(run(spec, response(199, "")), CheckResult::kFailed);
  EXPECT_EQ(run(spec, response(200, "")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(250, "")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(299, "")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(300, "")), CheckResult::kFailed);
}

TEST(CheckTest, StatusChecksIgnoreATruncatedBody) {
  EXPECT_EQ(run(status_range(200, 299), response(200, "cut", true)), CheckResult::kPassed);
}

TEST(CheckTest, BodyContainsFindsTextAnywhere) {
  const CheckSpec spec = body_check(CheckSpec::Kind::kBodyContains, "\"ok\"");
  EXPECT_EQ(run(spec, response(200, R"({"status":"ok"})")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(200, R"({"status":"okay"})")), CheckResult::kFailed);
  EXPECT_EQ(run(spec, response(200, "")), CheckResult::kFailed);
}

TEST(CheckTest, BodyContainsOnTruncatedBodyPassesOnlyWhenTheTextIsInTheCapturedPart) {
  const CheckSpec spec = body_check(CheckSpec::Kind::kBodyContains, "needle");
  EXPECT_EQ(run(spec, response(200, "hay needle hay", true)), CheckResult::kPassed);
  // The text may lie beyond the cap: not judged, and said so.
  EXPECT_EQ(run(spec, response(200, "hay hay nee", true)), CheckResult::kBodyTruncated);
  JsonBodyCache cache;
  EXPECT_FALSE(CompiledCheck::compile(spec).passes(response(200, "hay", true), cache));
}

TEST(CheckTest, BodyMatchesSearchesRatherThanMatchingTheWholeBody) {
  const CheckSpec spec = body_check(CheckSpec::Kind::kBodyMatches, R"(id=\d+)");
  EXPECT_EQ(run(spec, response(200, "before id=42 after")), CheckResult::kPassed);
  EXPECT_EQ(run(spec, response(200, "before id=x after")), CheckResult::kFailed);
  const CheckSpec anchored = body_check(CheckSpec::Kind::kBodyMatches, R"(^\d+$)");
  EXPECT_EQ(run(anchored, response(200, "123")), CheckResult::kPassed);
  EXPECT_EQ(run(anchored, response(200, "a123")), CheckResult::kFailed);
}

TEST(CheckTest, BodyMatchesOnTruncatedBodyIsNotJudged) {
  // `\d+$` would match the cut "12" although the real body may end otherwise.
  const CheckSpec spec = body_check(CheckSpec::Kind::kBodyMatches, R"(\d+$)");
  EXPECT_EQ(run(spec, response(200, "n=12", true)), CheckResult::kBodyTruncated);
}

TEST(CheckTest, APathologicalPatternOnAMegabyteBodyIsJudgedAtOnce) {
  // `(a+)+$` backtracks exponentially: with std::regex a 24-byte body cost 1 s and 8 KB never
  // finished. RE2 is linear in the body, so the whole megabyte is judged, and quickly (the bound
  // only turns a hang into a failure; it measures nothing).
  const CheckSpec spec = body_check(CheckSpec::Kind::kBodyMatches, "(a+)+$");
  const std::string body = std::string(1 << 20, 'a') + "!";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run(spec, response(200, body)), CheckResult::kFailed);
  EXPECT_EQ(run(spec, response(200, std::string(1 << 20, 'a'))), CheckResult::kPassed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // `(.*)$` recursed once per character in std::regex, past the stack's end: not any more.
  EXPECT_EQ(run(body_check(CheckSpec::Kind::kBodyMatches, "(.*)$"), response(200, body)),
            CheckResult::kPassed);
}

TEST(CheckTest, WhatRe2CannotExpressIsRefusedWhenCompiled) {
  for (const char* pattern : {"(a)\\1", "a(?=b)", "(?<!x)y", "[unclosed"}) {
    try {
      CompiledCheck::compile(body_check(CheckSpec::Kind::kBodyMatches, pattern));
      ADD_FAILURE() << pattern << " compiled";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid regular expression"), std::string::npos);
    }
  }
}

TEST(CheckTest, JsonEqualsComparesNumbersByValue) {
  const std::string body = R"({"n": 1, "f": 2.5, "big": 18446744073709551615, "neg": -3})";
  EXPECT_EQ(run(json_equals("/n", "1"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/n", "1.0"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/n", "2"), response(200, body)), CheckResult::kFailed);
  EXPECT_EQ(run(json_equals("/f", "2.5"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/big", "18446744073709551615"), response(200, body)),
            CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/neg", "-3"), response(200, body)), CheckResult::kPassed);
  // A number is not the string of its digits.
  EXPECT_EQ(run(json_equals("/n", "\"1\""), response(200, body)), CheckResult::kFailed);
}

TEST(CheckTest, JsonEqualsComparesStringsBooleansAndNull) {
  const std::string body = R"({"state": "open", "done": false, "owner": null, "esc": "a\"b"})";
  EXPECT_EQ(run(json_equals("/state", "\"open\""), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/state", "\"closed\""), response(200, body)), CheckResult::kFailed);
  EXPECT_EQ(run(json_equals("/done", "false"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/done", "0"), response(200, body)), CheckResult::kFailed);
  EXPECT_EQ(run(json_equals("/owner", "null"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/esc", R"("a\"b")"), response(200, body)), CheckResult::kPassed);
}

TEST(CheckTest, JsonEqualsComparesObjectsWhateverTheKeyOrderButArraysInOrder) {
  const std::string body = R"({"user": {"id": 7, "tags": ["a", "b"]}})";
  EXPECT_EQ(run(json_equals("/user", R"({"tags": ["a", "b"], "id": 7.0})"), response(200, body)),
            CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/user", R"({"tags": ["b", "a"], "id": 7})"), response(200, body)),
            CheckResult::kFailed);
  EXPECT_EQ(run(json_equals("/user", R"({"id": 7})"), response(200, body)), CheckResult::kFailed);
}

TEST(CheckTest, JsonEqualsFollowsPointersThroughArraysAndEscapes) {
  const std::string body = R"({"items": [{"name": "x"}, {"name": "y"}], "a/b": 1, "m~n": 2})";
  EXPECT_EQ(run(json_equals("/items/1/name", "\"y\""), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/a~1b", "1"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("/m~0n", "2"), response(200, body)), CheckResult::kPassed);
  EXPECT_EQ(run(json_equals("", R"([1])"), response(200, "[1]")), CheckResult::kPassed);
}

TEST(CheckTest, JsonEqualsFailsWhenThePointerNamesNothing) {
  const std::string body = R"({"items": [{"name": "x"}], "n": 5})";
  for (const char* path : {"/missing", "/items/1/name", "/items/-", "/items/01", "/items/x", "/n/0",
                           "/items/0/name/0"}) {
    EXPECT_EQ(run(json_equals(path, "\"x\""), response(200, body)), CheckResult::kFailed) << path;
  }
}

TEST(CheckTest, JsonEqualsFailsWithoutThrowingOnABodyThatIsNotJson) {
  const CheckSpec spec = json_equals("/id", "1");
  for (const char* body : {"", "not json", R"({"id": 1)", "<html>{\"id\":1}</html>",
                           R"({"id": 1} trailing)", "\xff\xfe"}) {
    EXPECT_NO_THROW({ EXPECT_EQ(run(spec, response(200, body)), CheckResult::kFailed) << body; });
  }
}

TEST(CheckTest, JsonEqualsOnTruncatedBodyIsNotJudgedAndNotParsed) {
  JsonBodyCache cache;
  const CompiledCheck check = CompiledCheck::compile(json_equals("/id", "1"));
  EXPECT_EQ(check.evaluate(response(200, R"({"id": 1})", true), cache),
            CheckResult::kBodyTruncated);
  EXPECT_EQ(cache.parse_count(), 0);
}

TEST(CheckTest, SeveralJsonChecksAndExtractionsShareOneParse) {
  const std::string body = R"({"id": 7, "state": "open", "items": [1, 2]})";
  const ResponseView view = response(200, body);
  const std::vector<CompiledCheck> checks = {
      CompiledCheck::compile(json_equals("/id", "7")),
      CompiledCheck::compile(json_equals("/state", "\"open\"")),
      CompiledCheck::compile(json_equals("/items/1", "2")),
  };
  ExtractSpec extract_spec;
  extract_spec.variable = "id";
  extract_spec.kind = ExtractSpec::Kind::kJsonPointer;
  extract_spec.expression = "/id";
  const CompiledExtract extract = CompiledExtract::compile(extract_spec);

  JsonBodyCache cache;
  for (const CompiledCheck& check : checks) EXPECT_TRUE(check.passes(view, cache));
  std::string id;
  EXPECT_TRUE(extract.extract(view, cache, id));
  EXPECT_EQ(id, "7");
  EXPECT_EQ(cache.parse_count(), 1);

  // The next response, through the same cache after reset(), is parsed anew.
  const std::string next_body = R"({"id": 8})";
  cache.reset();
  EXPECT_FALSE(checks[0].passes(response(200, next_body), cache));
  EXPECT_EQ(cache.parse_count(), 2);
}

TEST(CheckTest, ABodyThatIsNotJsonIsParsedOnceToo) {
  const ResponseView view = response(200, "<html>");
  JsonBodyCache cache;
  EXPECT_FALSE(CompiledCheck::compile(json_equals("/a", "1")).passes(view, cache));
  EXPECT_FALSE(CompiledCheck::compile(json_equals("/b", "2")).passes(view, cache));
  EXPECT_EQ(cache.parse_count(), 1);
}

TEST(CheckTest, OnlyStatusChecksDoWithoutTheBody) {
  EXPECT_FALSE(CompiledCheck::compile(status_in({200})).needs_body());
  EXPECT_FALSE(CompiledCheck::compile(status_range(200, 299)).needs_body());
  EXPECT_TRUE(CompiledCheck::compile(body_check(CheckSpec::Kind::kBodyContains, "x")).needs_body());
  EXPECT_TRUE(CompiledCheck::compile(body_check(CheckSpec::Kind::kBodyMatches, "x")).needs_body());
  EXPECT_TRUE(CompiledCheck::compile(json_equals("/a", "1")).needs_body());
}

TEST(CheckTest, DescriptionIsTheOneWrittenOrOneMadeFromTheSpec) {
  CheckSpec written = status_range(200, 299);
  written.description = "status: 2xx";
  EXPECT_EQ(CompiledCheck::compile(written).description(), "status: 2xx");
  EXPECT_EQ(CompiledCheck::compile(status_range(200, 299)).description(), "status 200-299");
  EXPECT_EQ(CompiledCheck::compile(status_in({200, 204})).description(), "status 200, 204");
  EXPECT_EQ(CompiledCheck::compile(body_check(CheckSpec::Kind::kBodyContains, "ok")).description(),
            "body contains 'ok'");
  EXPECT_EQ(CompiledCheck::compile(json_equals("/id", "42")).description(), "json /id == 42");
}

TEST(CheckTest, CompileRejectsWhatCanNeverWork) {
  EXPECT_EQ(compile_error(body_check(CheckSpec::Kind::kBodyMatches, "(unclosed"))
                .rfind("invalid regular expression '(unclosed': ", 0),
            0u);
  EXPECT_EQ(compile_error(json_equals("id", "1")),
            "invalid JSON pointer 'id': it must be empty or start with '/'");
  EXPECT_EQ(compile_error(json_equals("/a~2", "1")),
            "invalid JSON pointer '/a~2': '~' must be followed by '0' or '1'");
  EXPECT_EQ(compile_error(json_equals("/a", "{oops")), "expected value '{oops' is not JSON");
  EXPECT_EQ(compile_error(json_equals("/a", "")), "expected value '' is not JSON");
  EXPECT_EQ(compile_error(status_in({})), "status check with no status to accept");
  EXPECT_EQ(compile_error(status_range(300, 200)), "status range 300-200 is empty (min > max)");
}

}  // namespace
}  // namespace proofload::workload
