// Tests of scenario files: a full file gives the expected model, defaults and short forms land
// as documented, every example parses, and each kind of mistake gives one line with the file,
// line and column a user fixing the file needs.
#include "workload/scenario_yaml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/usage_error.h"
#include "workload/scenario_yaml_test_support.h"

namespace proofload::workload {
namespace {

TEST(ScenarioYaml, SourceLocationText) {
  EXPECT_EQ((SourceLocation{"s.yaml", 3, 7}).text(), "s.yaml:3:7");
  EXPECT_EQ((SourceLocation{"s.yaml", 0, 0}).text(), "s.yaml");
}

TEST(ScenarioYaml, FullFileLandsInTheModel) {
  Scenario s = load_scenario_file(std::string(PROOFLOAD_SCENARIO_TESTDATA) + "/full.yaml");
  EXPECT_EQ(s.file, std::string(PROOFLOAD_SCENARIO_TESTDATA) + "/full.yaml");
  EXPECT_EQ(s.target, "http://127.0.0.1:8080/api");
  using Headers = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.default_headers, (Headers{{"Accept", "application/json"}, {"X-Run", "run-${run}"}}));

  // The run settings, by their flags' names, as the flags would take them.
  EXPECT_EQ(s.setting("executor"), "open");
  EXPECT_EQ(s.setting("stages"), "10s:100,30s:1k");
  EXPECT_EQ(s.setting("rate"), std::nullopt);
  EXPECT_EQ(s.setting("connections"), "20");
  EXPECT_EQ(s.setting("max-connections"), "200");
  EXPECT_EQ(s.setting("duration"), std::nullopt);
  EXPECT_EQ(s.setting("warmup"), "5s");
  EXPECT_EQ(s.setting("requests"), "10000");
  EXPECT_EQ(s.setting("timeout"), "5s");

  ASSERT_EQ(s.data.size(), 10u);
  const DataSpec& run = s.data[0];
  EXPECT_EQ(run.name, "run");
  EXPECT_EQ(run.kind, DataSpec::Kind::kUuid);
  EXPECT_EQ(run.where.text(), s.file + ":14:3");
  const DataSpec& word = s.data[1];
  EXPECT_EQ(word.kind, DataSpec::Kind::kWord);
  EXPECT_GT(word.values.size(), 1000u);  // the built-in list
  EXPECT_EQ(word.path, "");
  const DataSpec& myword = s.data[2];
  EXPECT_EQ(myword.kind, DataSpec::Kind::kWord);
  EXPECT_EQ(myword.values, (std::vector<std::string>{"alpha", "beta", "gamma"}));
  EXPECT_EQ(myword.path, "words.txt");
  const DataSpec& company = s.data[3];
  EXPECT_EQ(company.kind, DataSpec::Kind::kList);
  EXPECT_EQ(company.values, (std::vector<std::string>{"acme", "globex"}));
  EXPECT_FALSE(company.sequential);
  const DataSpec& short_form = s.data[4];
  EXPECT_EQ(short_form.kind, DataSpec::Kind::kList);
  EXPECT_EQ(short_form.values, (std::vector<std::string>{"a", "b"}));
  const DataSpec& ids = s.data[5];
  EXPECT_EQ(ids.kind, DataSpec::Kind::kFileLines);
  EXPECT_EQ(ids.values, (std::vector<std::string>{"101", "102", "103"}));
  EXPECT_EQ(ids.path, "ids.txt");
  EXPECT_TRUE(ids.sequential);
  const DataSpec& sic = s.data[6];
  EXPECT_EQ(sic.kind, DataSpec::Kind::kCsvColumn);
  EXPECT_EQ(sic.values, (std::vector<std::string>{"62012", "47110"}));
  EXPECT_EQ(sic.path, "companies.csv");
  EXPECT_EQ(sic.column, "sic");
  const DataSpec& n = s.data[7];
  EXPECT_EQ(n.kind, DataSpec::Kind::kIntRange);
  EXPECT_EQ(n.min, 1);
  EXPECT_EQ(n.max, 100);
  const DataSpec& seq = s.data[8];
  EXPECT_EQ(seq.kind, DataSpec::Kind::kSequence);
  EXPECT_EQ(seq.start, 5);
  EXPECT_EQ(seq.step, -2);
  const DataSpec& hot = s.data[9];
  EXPECT_EQ(hot.kind, DataSpec::Kind::kPool);
  EXPECT_EQ(hot.pool_size, 100);
  ASSERT_EQ(hot.pool_of.size(), 1u);
  EXPECT_EQ(hot.pool_of[0].kind, DataSpec::Kind::kWord);
  EXPECT_EQ(hot.pool_of[0].where.text(), s.file + ":23:31");

  ASSERT_EQ(s.requests.size(), 4u);
  const RequestSpec& lookup = s.requests[0];
  EXPECT_EQ(lookup.name, "lookup");
  EXPECT_EQ(lookup.method, "GET");
  EXPECT_EQ(lookup.path_template, "/sic/${sic}?q=${word}");
  EXPECT_EQ(lookup.header_templates,
            (Headers{{"Authorization", "Bearer ${env:TOKEN}"}, {"X-Key", "${file:key.txt}"}}));
  EXPECT_EQ(lookup.body_template, std::nullopt);
  EXPECT_EQ(lookup.where.text(), s.file + ":25:3");
  ASSERT_EQ(lookup.checks.size(), 8u);
  const auto& c = lookup.checks;
  EXPECT_EQ(c[0].kind, CheckSpec::Kind::kStatusIn);
  EXPECT_EQ(c[0].statuses, (std::vector<int>{200}));
  EXPECT_EQ(c[0].description, "status 200");
  EXPECT_EQ(c[0].where.text(), s.file + ":31:9");
  EXPECT_EQ(c[1].statuses, (std::vector<int>{200, 201}));
  EXPECT_EQ(c[1].description, "status 200, 201");
  EXPECT_EQ(c[2].kind, CheckSpec::Kind::kStatusRange);
  EXPECT_EQ(c[2].status_min, 200);
  EXPECT_EQ(c[2].status_max, 299);
  EXPECT_EQ(c[2].description, "status 200-299");
  EXPECT_EQ(c[3].kind, CheckSpec::Kind::kStatusRange);
  EXPECT_EQ(c[3].status_min, 200);
  EXPECT_EQ(c[3].status_max, 299);
  EXPECT_EQ(c[3].description, "status 2xx");
  EXPECT_EQ(c[4].kind, CheckSpec::Kind::kBodyContains);
  EXPECT_EQ(c[4].text, "sic");
  EXPECT_EQ(c[4].description, "body contains 'sic'");
  EXPECT_EQ(c[5].kind, CheckSpec::Kind::kBodyMatches);
  EXPECT_EQ(c[5].text, R"("id":\d+)");
  EXPECT_EQ(c[6].kind, CheckSpec::Kind::kJsonEquals);
  EXPECT_EQ(c[6].path, "/id");
  EXPECT_EQ(c[6].json_value, "42");
  EXPECT_EQ(c[6].description, "json /id == 42");
  EXPECT_EQ(c[7].json_value, R"(["a","1",2,true,null])");

  const RequestSpec& create = s.requests[1];
  EXPECT_EQ(create.method, "POST");
  EXPECT_TRUE(create.json_body);
  // Key order is kept; plain scalars become numbers and booleans, quoted ones stay strings.
  EXPECT_EQ(create.body_template,
            R"({"title":"${word}","n":3,"ok":true,"tags":["x","${company}"]})");
  ASSERT_EQ(create.extracts.size(), 3u);
  EXPECT_EQ(create.extracts[0].variable, "id");
  EXPECT_EQ(create.extracts[0].kind, ExtractSpec::Kind::kJsonPointer);
  EXPECT_EQ(create.extracts[0].expression, "/id");
  EXPECT_EQ(create.extracts[0].where.text(), s.file + ":44:7");
  EXPECT_EQ(create.extracts[1].kind, ExtractSpec::Kind::kHeader);
  EXPECT_EQ(create.extracts[1].expression, "Location");
  EXPECT_EQ(create.extracts[2].kind, ExtractSpec::Kind::kRegex);
  EXPECT_EQ(create.extracts[2].expression, R"(token=(\w+))");
  EXPECT_EQ(create.extracts[2].group, 1);

  const RequestSpec& assign = s.requests[2];
  EXPECT_EQ(assign.method, "PUT");
  EXPECT_EQ(assign.body_template, "who=${company}&t=${tok}");
  EXPECT_FALSE(assign.json_body);
  EXPECT_EQ(s.requests[3].path_template, "${loc}");

  ASSERT_EQ(s.flows.size(), 1u);
  const FlowSpec& flow = s.flows[0];
  EXPECT_EQ(flow.name, "lifecycle");
  ASSERT_EQ(flow.steps.size(), 3u);
  EXPECT_EQ(flow.steps[0].request, "create");
  EXPECT_EQ(flow.steps[0].think_ns, 100'000'000);
  EXPECT_EQ(flow.steps[1].request, "assign");
  EXPECT_EQ(flow.steps[1].think_ns, 0);
  EXPECT_EQ(flow.steps[1].where.text(), s.file + ":58:9");

  ASSERT_EQ(s.mix.size(), 2u);
  EXPECT_EQ(s.mix[0].name, "lookup");
  EXPECT_EQ(s.mix[0].weight, 4);
  EXPECT_EQ(s.mix[1].name, "lifecycle");
  EXPECT_EQ(s.mix[1].weight, 1.5);
  EXPECT_EQ(s.mix[1].where.text(), s.file + ":62:3");
  ASSERT_EQ(s.thresholds.size(), 2u);
  EXPECT_EQ(s.thresholds[0].expression, "p95(lookup) < 200ms");
  EXPECT_EQ(s.thresholds[1].expression, "errors < 1%");
  EXPECT_EQ(s.thresholds[1].where.text(), s.file + ":65:5");
}

TEST(ScenarioYaml, EveryExampleLoads) {
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PROOFLOAD_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++examples;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_scenario_file(entry.path().string()));
  }
  EXPECT_GE(examples, 4);
}

// docs/scenario.md opens with a complete file: it must stay one the parser accepts.
TEST(ScenarioYaml, TheCompleteFileOfTheDocsParses) {
  std::ifstream in(PROOFLOAD_DOCS_DIR "/scenario.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  size_t start = doc.find("```yaml\n");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  std::string yaml = doc.substr(start, doc.find("```", start) - start);
  // Its data files (data/codes.txt, data/companies.csv with a `sic` column) are examples/'s.
  Scenario s = parse_scenario_yaml(yaml, "scenario.md", PROOFLOAD_EXAMPLES_DIR);
  EXPECT_EQ(s.requests.size(), 4u);
  EXPECT_EQ(s.flows.size(), 1u);
  EXPECT_EQ(s.mix.size(), 3u);
  EXPECT_EQ(s.thresholds.size(), 2u);
}

TEST(ScenarioYaml, DefaultsOfAMinimalFile) {
  Scenario s = parse("requests:\n  home: {path: /}\n");
  EXPECT_EQ(s.file, "s.yaml");
  EXPECT_EQ(s.target, std::nullopt);
  EXPECT_TRUE(s.default_headers.empty());
  EXPECT_TRUE(s.settings.empty());
  ASSERT_EQ(s.requests.size(), 1u);
  EXPECT_EQ(s.requests[0].method, "GET");
  EXPECT_EQ(s.requests[0].body_template, std::nullopt);
  EXPECT_TRUE(s.requests[0].checks.empty());
  // No mix: the one request, weight 1.
  ASSERT_EQ(s.mix.size(), 1u);
  EXPECT_EQ(s.mix[0].name, "home");
  EXPECT_EQ(s.mix[0].weight, 1);
  EXPECT_TRUE(s.thresholds.empty());
}

TEST(ScenarioYaml, DataDefaults) {
  Scenario s = parse(
      "data:\n  s: {sequence: {}}\n  t: {sequence: }\n  u: {uuid: }\n  w: {word: }\n"
      "  v: {values: [x]}\n"
      "requests:\n  r: {path: \"/${s}${t}${u}${w}${v}\"}\n");
  EXPECT_EQ(s.data[0].start, 0);
  EXPECT_EQ(s.data[0].step, 1);
  EXPECT_EQ(s.data[1].kind, DataSpec::Kind::kSequence);
  EXPECT_EQ(s.data[2].kind, DataSpec::Kind::kUuid);
  EXPECT_EQ(s.data[3].kind, DataSpec::Kind::kWord);
  EXPECT_FALSE(s.data[4].sequential);
}

TEST(ScenarioYaml, JsonValuesFollowYamlTypes) {
  Scenario s = parse(
      "requests:\n  r:\n    path: /\n    checks:\n"
      "      - json: {path: /a, equals: null}\n"
      "      - json: {path: /a, equals: \"true\"}\n"
      "      - json: {path: /a, equals: {k: [1.5, -2, 1e3, 0x1F]}}\n"
      "      - json: {path: \"\", equals: 'x \"quoted\"'}\n");
  const auto& checks = s.requests[0].checks;
  EXPECT_EQ(checks[0].json_value, "null");
  EXPECT_EQ(checks[1].json_value, R"("true")");
  EXPECT_EQ(checks[2].json_value, R"({"k":[1.5,-2,1000.0,"0x1F"]})");
  EXPECT_EQ(checks[3].path, "");
  EXPECT_EQ(checks[3].json_value, R"("x \"quoted\"")");
}

TEST(ScenarioYaml, AJsonCheckMayNameItsPointerAndValueSideBySide) {
  Scenario s = parse(
      "requests:\n  r:\n    path: /\n    checks:\n"
      "      - {json: /description, equals: \"Computer consultancy\"}\n");
  ASSERT_EQ(s.requests[0].checks.size(), 1u);
  EXPECT_EQ(s.requests[0].checks[0].kind, CheckSpec::Kind::kJsonEquals);
  EXPECT_EQ(s.requests[0].checks[0].path, "/description");
  EXPECT_EQ(s.requests[0].checks[0].json_value, R"("Computer consultancy")");
}

TEST(ScenarioYaml, CanariesAreKnownAnswerRequestsApartFromTheLoad) {
  Scenario s = parse(
      "requests: {lookup: {path: /sic/1}}\n"
      "canaries:\n"
      "  sic_code: {path: /v4/sic/code/62012, checks: [{status: 200}, {json: /description, "
      "equals: \"Computer consultancy\"}]}\n"
      "  health:   {path: /health, checks: [{status: 200}, {body_matches: '^ok$'}]}\n");
  ASSERT_EQ(s.requests.size(), 1u);
  ASSERT_EQ(s.mix.size(), 1u);  // canaries are not part of the load's mix
  ASSERT_EQ(s.canaries.size(), 2u);
  EXPECT_EQ(s.canaries[0].name, "sic_code");
  EXPECT_EQ(s.canaries[0].path_template, "/v4/sic/code/62012");
  EXPECT_EQ(s.canaries[0].checks.size(), 2u);
  EXPECT_EQ(s.canaries[1].checks[1].kind, CheckSpec::Kind::kBodyMatches);
}

TEST(ScenarioYaml, NoMixMeansEveryFlowAndEveryRequestOutsideFlows) {
  Scenario s = parse(
      "requests:\n"
      "  home: {path: /}\n"
      "  create: {method: POST, path: /items, extract: {id: {json: /id}}}\n"
      "  get: {path: \"/items/${id}\"}\n"
      "flows:\n"
      "  life: [create, get]\n");
  ASSERT_EQ(s.mix.size(), 2u);
  EXPECT_EQ(s.mix[0].name, "home");
  EXPECT_EQ(s.mix[0].where.text(), "s.yaml:2:3");
  EXPECT_EQ(s.mix[1].name, "life");
  EXPECT_EQ(s.mix[1].weight, 1);
  ASSERT_EQ(s.flows[0].steps.size(), 2u);
}

TEST(ScenarioYaml, StagesAsAListOrAString) {
  EXPECT_EQ(parse(with("executor:\n  type: open\n  stages:\n    - {duration: 10s, target: 100}\n"
                       "    - {duration: 1m30s, target: 2.5k}\n    - {duration: 5s, target: 0}\n"))
                .setting("stages"),
            "10s:100,1m30s:2.5k,5s:0");
  EXPECT_EQ(parse(with("executor:\n  stages: \"10s:100, 30s:1000\"\n")).setting("stages"),
            "10s:100, 30s:1000");
  EXPECT_EQ(error_of(with("executor:\n  stages: \"10s:100,30s\"\n")),
            "s.yaml:4:11: 'stages' in 'executor': invalid stage 2 \"30s\" in \"10s:100,30s\": "
            "expected DURATION:TARGET, like 30s:1000");
  EXPECT_EQ(error_of(with("executor:\n  stages: [{duration: 10s}]\n")),
            "s.yaml:4:12: stage 1 of 'executor' needs 'target'");
  EXPECT_EQ(error_of(with("executor:\n  stages: [{duration: 10s, target: -5}]\n")),
            "s.yaml:4:36: 'target' in stage 1 of 'executor': invalid rate \"-5\": must not be "
            "negative");
  EXPECT_EQ(error_of(with("executor:\n  stages: [{duration: 0s, target: 5}]\n")),
            "s.yaml:4:11: 'stages' in 'executor': invalid stages \"0s:5\": the total duration is "
            "zero");
  EXPECT_EQ(error_of(with("executor:\n  stages: []\n")),
            "s.yaml:4:11: 'stages' in 'executor': needs at least one stage");
}

TEST(ScenarioYaml, RelativeDataFilesAreReadFromBaseDir) {
  std::string yaml = "data:\n  id: {file: ids.txt}\nrequests:\n  r: {path: \"/${id}\"}\n";
  EXPECT_EQ(parse_scenario_yaml(yaml, "s.yaml", kTestdata).data[0].values.size(), 3u);
  // The same text from another directory does not find the file.
  std::string error;
  try {
    parse_scenario_yaml(yaml, "s.yaml", kTestdata / "nowhere");
  } catch (const UsageError& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "s.yaml:2:14: 'file' in data 'id': cannot read data file '" +
                       (kTestdata / "nowhere" / "ids.txt").string() +
                       "': No such file or directory");
  // An absolute path is taken as it is.
  std::string absolute = "data:\n  id: {file: " + (kTestdata / "ids.txt").string() +
                         "}\nrequests:\n  r: {path: \"/${id}\"}\n";
  EXPECT_EQ(parse_scenario_yaml(absolute, "s.yaml", "/").data[0].values.size(), 3u);
}

TEST(ScenarioYaml, LoadFileErrors) {
  std::string missing = std::string(PROOFLOAD_SCENARIO_TESTDATA) + "/missing.yaml";
  try {
    load_scenario_file(missing);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read scenario file '" + missing + "': No such file or directory");
  }
}

}  // namespace
}  // namespace proofload::workload

namespace proofload::workload {
namespace {

// A request read as a stream: its keys, and its fixture read (bytes kept) at parse time.
TEST(ScenarioYaml, AStreamedRequestKeepsHowItIsRead) {
  const Scenario s = parse(
      "requests:\n"
      "  chat:\n"
      "    method: POST\n"
      "    path: /v1/chat/completions\n"
      "    json: {stream: true}\n"
      "    stream: sse\n"
      "    content: /choices/0/delta/content\n"
      "    tokens: /usage/completion_tokens\n"
      "    checks: [{status: 200}, {fixture: chat.sse}]\n"
      "  plain: {path: /}\n");
  const RequestSpec& chat = s.requests.at(0);
  ASSERT_TRUE(chat.stream);
  EXPECT_EQ(chat.stream->kind, "sse");
  EXPECT_EQ(chat.stream->content, "/choices/0/delta/content");
  EXPECT_EQ(chat.stream->tokens, "/usage/completion_tokens");
  EXPECT_FALSE(chat.stream->terminator) << "the default [DONE] applies";
  EXPECT_EQ(chat.stream->fixture_path, "chat.sse");
  ASSERT_TRUE(chat.stream->fixture);
  EXPECT_TRUE(chat.stream->fixture->ends_with("data: [DONE]\n\n"));
  EXPECT_EQ(chat.checks.size(), 1U) << "the fixture is the stream's check, not the body's";
  EXPECT_FALSE(s.requests.at(1).stream);
}

TEST(ScenarioYaml, StreamMistakesAreOneLineAtTheirPlace) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /, content: /a}\n"),
            "s.yaml:2:16: 'content' in request 'r': goes with 'stream: sse' (or chunked)");
  EXPECT_NE(error_of("requests:\n  r: {path: /, stream: websocket}\n")
                .find("a stream is 'sse' (server-sent events) or 'chunked'"),
            std::string::npos);
  EXPECT_NE(error_of("requests:\n  r: {path: /, stream: sse, tokens: usage}\n")
                .find("tokens 'usage'"),
            std::string::npos);
  EXPECT_NE(error_of("requests:\n  r: {path: /, checks: [{fixture: chat.sse}]}\n")
                .find("checks a stream: add 'stream: sse'"),
            std::string::npos);
  EXPECT_NE(error_of("requests:\n  r: {path: /, stream: sse, checks: [{fixture: none.sse}]}\n")
                .find("cannot read fixture"),
            std::string::npos);
}

}  // namespace
}  // namespace proofload::workload
