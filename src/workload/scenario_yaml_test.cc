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

namespace proofload::workload {
namespace {

const std::filesystem::path kTestdata = PROOFLOAD_SCENARIO_TESTDATA;

Scenario parse(std::string_view yaml) { return parse_scenario_yaml(yaml, "s.yaml", kTestdata); }

// The message of the UsageError that parsing `yaml` as "s.yaml" throws, or "" if none.
std::string error_of(std::string_view yaml) {
  try {
    parse(yaml);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// A scenario with one request `r` to `/` and `extra` after it (whole top-level sections).
std::string with(std::string_view extra) {
  return "requests:\n  r: {path: /}\n" + std::string(extra);
}

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

  const ExecutorSettings& e = s.executor;
  EXPECT_EQ(e.executor, "open");
  EXPECT_EQ(e.stages, "10s:100,30s:1k");
  EXPECT_EQ(e.rate, std::nullopt);
  EXPECT_EQ(e.connections, 20);
  EXPECT_EQ(e.max_connections, 200);
  EXPECT_EQ(e.duration, std::nullopt);
  EXPECT_EQ(e.warmup, "5s");
  EXPECT_EQ(e.requests, 10000);
  EXPECT_EQ(e.timeout, "5s");

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
  // Its data files (ids.txt, companies.csv with a `sic` column) are the test's.
  Scenario s = parse_scenario_yaml(yaml, "scenario.md", kTestdata);
  EXPECT_EQ(s.requests.size(), 3u);
  EXPECT_EQ(s.flows.size(), 1u);
  EXPECT_EQ(s.mix.size(), 2u);
  EXPECT_EQ(s.thresholds.size(), 2u);
}

TEST(ScenarioYaml, DefaultsOfAMinimalFile) {
  Scenario s = parse("requests:\n  home: {path: /}\n");
  EXPECT_EQ(s.file, "s.yaml");
  EXPECT_EQ(s.target, std::nullopt);
  EXPECT_TRUE(s.default_headers.empty());
  EXPECT_EQ(s.executor.executor, std::nullopt);
  EXPECT_EQ(s.executor.connections, std::nullopt);
  EXPECT_EQ(s.executor.rate, std::nullopt);
  EXPECT_EQ(s.executor.timeout, std::nullopt);
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
                .executor.stages,
            "10s:100,1m30s:2.5k,5s:0");
  EXPECT_EQ(parse(with("executor:\n  stages: \"10s:100, 30s:1000\"\n")).executor.stages,
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

TEST(ScenarioYamlErrors, YamlSyntaxAndShape) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /\n"),
            "s.yaml:3:1: invalid YAML: end of map flow not found (inside { } or [ ], quote values "
            "that contain { } [ ] or commas, like title: \"${word}\")");
  EXPECT_EQ(error_of(""), "s.yaml:1:1: the scenario file is empty: it needs a 'requests:' map");
  EXPECT_EQ(error_of("target: http://127.0.0.1:8080\n"),
            "s.yaml:1:1: the scenario file needs 'requests'");
  EXPECT_EQ(error_of("requests: 3\n"),
            "s.yaml:1:11: 'requests' in the scenario file: expected a map of named requests "
            "(\"lookup: {path: /sic/1}\"), got a single value");
  EXPECT_EQ(error_of(with("---\nrequests: {}\n")),
            "s.yaml:4:1: one YAML document per scenario file");
}

TEST(ScenarioYamlErrors, UnknownKeysNameTheNearestAndTheAllowed) {
  EXPECT_EQ(error_of(with("targt: http://x\n")),
            "s.yaml:3:1: unknown key 'targt' in the scenario file; did you mean 'target'? allowed: "
            "target, defaults, executor, data, requests, flows, mix, thresholds");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, methd: GET}\n"),
            "s.yaml:2:16: unknown key 'methd' in request 'r'; did you mean 'method'? allowed: "
            "method, path, headers, body, json, checks, extract");
  EXPECT_EQ(
      error_of(with("executor:\n  conections: 5\n")),
      "s.yaml:4:3: unknown key 'conections' in 'executor'; did you mean 'connections'? "
      "allowed: type, rate, stages, connections, max_connections, duration, warmup, requests");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: 200, body_contains: x}]}\n"),
            "s.yaml:2:39: 'body_contains' in check 1 of request 'r': a check tests one thing, and "
            "'status' is already given (write one list item per check)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{stauts: 200}]}\n"),
            "s.yaml:2:26: unknown key 'stauts' in check 1 of request 'r'; did you mean 'status'? "
            "allowed: status, body_contains, body_matches, json");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {json: /a, header: B}}}\n"),
            "s.yaml:2:40: 'header' in extraction 'x' of request 'r': an extraction has one source, "
            "and 'json' is already given");
  EXPECT_EQ(
      error_of(with("data:\n  x: {wrd: {}}\n")),
      "s.yaml:4:7: unknown key 'wrd' in data 'x'; did you mean 'word'? allowed: values, file, "
      "csv, column, order, word, int, sequence, uuid, pool");
}

TEST(ScenarioYamlErrors, WrongTypes) {
  EXPECT_EQ(error_of(with("executor:\n  connections: lots\n")),
            "s.yaml:4:16: 'connections' in 'executor': expected an integer from 1 to 1000000, got "
            "'lots'");
  EXPECT_EQ(error_of(with("executor: fast\n")),
            "s.yaml:3:11: 'executor': expected a map of keys (type, rate, stages, connections, "
            "max_connections, duration, warmup, requests), got a single value");
  EXPECT_EQ(error_of("requests:\n  r: {path: [/a]}\n"),
            "s.yaml:2:13: 'path' in request 'r': expected a string, got a list");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: {status: 200}}\n"),
            "s.yaml:2:24: 'checks' in request 'r': expected a list (\"- status: 200\"), got a map");
  EXPECT_EQ(error_of(with("thresholds: p95 < 1s\n")),
            "s.yaml:3:13: 'thresholds' in the scenario file: expected a list (\"- p95 < 200ms\"), "
            "got a single value");
}

TEST(ScenarioYamlErrors, ExecutorValues) {
  EXPECT_EQ(error_of(with("executor:\n  type: opn\n")),
            "s.yaml:4:9: 'type' in 'executor': unknown executor type 'opn'; did you mean 'open'? "
            "allowed: closed, open");
  EXPECT_EQ(error_of(with("executor:\n  connections: 0\n")),
            "s.yaml:4:16: 'connections' in 'executor': expected an integer from 1 to 1000000, got "
            "'0'");
  EXPECT_EQ(
      error_of(with("executor:\n  duration: 10 parsecs\n")),
      "s.yaml:4:13: 'duration' in 'executor': invalid duration \"10 parsecs\": unknown unit "
      "\" parsecs\" (use a number and a unit h, m, s, ms, us or ns, like 500ms, 10s or 1m30s)");
  EXPECT_EQ(error_of(with("executor:\n  duration: 0s\n")),
            "s.yaml:4:13: 'duration' in 'executor': must be above 0");
  EXPECT_EQ(error_of(with("executor:\n  rate: fast\n")),
            "s.yaml:4:9: 'rate' in 'executor': invalid rate \"fast\": not a number (use a number "
            "like 1000, 1k or 2.5k)");
  EXPECT_EQ(error_of(with("executor:\n  rate: 0/s\n")),
            "s.yaml:4:9: 'rate' in 'executor': a rate must be above 0, got '0/s'");
  EXPECT_EQ(error_of(with("executor:\n  type: closed\n  rate: 10/s\n")),
            "s.yaml:5:3: 'rate' in 'executor': sets an open-loop schedule: use 'type: open' (or "
            "leave 'type' out)");
  EXPECT_EQ(error_of(with("executor:\n  rate: 10/s\n  stages: \"10s:5\"\n")),
            "s.yaml:5:3: 'stages' in 'executor': cannot be combined with 'rate' (with type: open "
            "the stages ramp the rate)");
  EXPECT_EQ(error_of(with("executor:\n  stages: \"10s:5\"\n  duration: 10s\n")),
            "s.yaml:5:3: 'duration' in 'executor': cannot be combined with 'stages' (the stages "
            "give the duration)");
  EXPECT_EQ(error_of(with("executor:\n  connections: 10\n  max_connections: 5\n")),
            "s.yaml:5:20: 'max_connections' in 'executor': must be at least 'connections' (10)");
  EXPECT_EQ(error_of(with("executor:\n  requests: 0\n")),
            "s.yaml:4:13: 'requests' in 'executor': expected an integer from 1 to 1000000000000, "
            "got '0'");
  EXPECT_EQ(error_of(with("defaults:\n  timeout: 0s\n")),
            "s.yaml:4:12: 'timeout' in 'defaults': must be above 0");
  EXPECT_EQ(error_of(with("target: ftp://x\n")),
            "s.yaml:3:9: 'target' in the scenario file: malformed URL 'ftp://x': unsupported "
            "scheme 'ftp' (only http:// is supported)");
  Scenario open = parse(with("executor: {type: open, rate: 2.5k/s, duration: 1m, warmup: 0}\n"));
  EXPECT_EQ(open.executor.rate, "2.5k/s");
  EXPECT_EQ(open.executor.duration, "1m");
  EXPECT_EQ(open.executor.warmup, "0");
}

TEST(ScenarioYamlErrors, Mix) {
  EXPECT_EQ(error_of(with("mix:\n  r: 0\n")),
            "s.yaml:4:6: weight of 'r' in 'mix': a weight must be above 0, got '0' (to leave an "
            "entry out, remove it)");
  EXPECT_EQ(error_of(with("mix:\n  r: -1\n")),
            "s.yaml:4:6: weight of 'r' in 'mix': a weight must be above 0, got '-1' (to leave an "
            "entry out, remove it)");
  EXPECT_EQ(
      error_of(with("mix:\n  r: heavy\n")),
      "s.yaml:4:6: weight of 'r' in 'mix': expected a weight (a number above 0), got 'heavy'");
  EXPECT_EQ(error_of("requests:\n  lookup: {path: /}\nmix:\n  lokup: 1\n"),
            "s.yaml:4:3: 'mix' names 'lokup', which is no request or flow; did you mean 'lookup'? "
            "(known: lookup)");
  EXPECT_EQ(error_of(with("mix: {}\n")),
            "s.yaml:3:6: 'mix' in the scenario file: expected a map of request or flow names to "
            "weights (\"lookup: 4\"), got an empty map");
}

TEST(ScenarioYamlErrors, Data) {
  EXPECT_EQ(error_of(with("data:\n  x: {}\n")),
            "s.yaml:4:6: data 'x' needs a kind: one of values, file, int, sequence, uuid, csv, "
            "word, pool");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], file: f.txt}\n")),
            "s.yaml:4:20: 'file' in data 'x': a data entry has one kind, and 'values' is already "
            "given");
  EXPECT_EQ(error_of(with("data:\n  x: {file: f.txt, values: [a]}\n")),
            "s.yaml:4:20: 'values' in data 'x': a data entry has one kind, and 'file' is already "
            "given");
  EXPECT_EQ(error_of(with("data:\n  x: {int: {min: 5, max: 1}}\n")),
            "s.yaml:4:26: 'max' in 'int' of data 'x': must not be below 'min' (5)");
  EXPECT_EQ(error_of(with("data:\n  x: {int: {min: 5}}\n")),
            "s.yaml:4:12: 'int' of data 'x' needs 'max'");
  EXPECT_EQ(error_of(with("data:\n  x: {sequence: {step: 0}}\n")),
            "s.yaml:4:24: 'step' in 'sequence' of data 'x': must not be 0 (every value would be "
            "the same)");
  EXPECT_EQ(error_of(with("data:\n  x: {pool: {size: 0, of: {uuid: {}}}}\n")),
            "s.yaml:4:20: 'size' in 'pool' of data 'x': expected an integer from 1 to 10000000, "
            "got '0'");
  EXPECT_EQ(error_of(with("data:\n  x: {pool: {size: 5, of: {pool: {size: 1, of: [a]}}}}\n")),
            "s.yaml:4:28: 'pool' in 'of' of data 'x': a pool cannot be drawn from another pool");
  EXPECT_EQ(error_of(with("data:\n  x: {values: []}\n")),
            "s.yaml:4:15: 'values' in data 'x': needs at least one value");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], order: shuffled}\n")),
            "s.yaml:4:27: 'order' in data 'x': unknown order 'shuffled'; allowed: random, "
            "sequential");
  EXPECT_EQ(error_of(with("data:\n  x: {uuid: {}, order: random}\n")),
            "s.yaml:4:17: 'order' in data 'x': goes with 'values', 'file' or 'csv' only (the "
            "others are drawn at random)");
  EXPECT_EQ(error_of(with("data:\n  x: {values: [a], column: c}\n")),
            "s.yaml:4:20: 'column' in data 'x': goes with 'csv' only");
  EXPECT_EQ(error_of(with("data:\n  x-y: [a]\n")),
            "s.yaml:4:3: data 'x-y': 'x-y' cannot be a variable name: use letters, digits and '_', "
            "not starting with a digit");
  EXPECT_EQ(error_of(with("data:\n  x: [a]\n  x: [b]\n")),
            "s.yaml:5:3: variable 'x' given twice in 'data' (first at line 4)");
}

TEST(ScenarioYamlErrors, DataFiles) {
  EXPECT_EQ(error_of(with("data:\n  x: {file: nope.txt}\n")),
            "s.yaml:4:13: 'file' in data 'x': cannot read data file '" +
                (kTestdata / "nope.txt").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {file: blank.txt}\n")),
            "s.yaml:4:13: 'file' in data 'x': the file 'blank.txt' has no values (blank lines are "
            "skipped)");
  EXPECT_EQ(error_of(with("data:\n  x: {word: {file: nope.txt}}\n")),
            "s.yaml:4:20: 'file' in 'word' of data 'x': cannot read data file '" +
                (kTestdata / "nope.txt").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: companies.csv, column: sicc}\n")),
            "s.yaml:4:35: 'column' in data 'x': CSV file '" +
                (kTestdata / "companies.csv").string() +
                "' has no column 'sicc'; columns: name, sic");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: nope.csv, column: sic}\n")),
            "s.yaml:4:12: 'csv' in data 'x': cannot read data file '" +
                (kTestdata / "nope.csv").string() + "': No such file or directory");
  EXPECT_EQ(error_of(with("data:\n  x: {csv: companies.csv}\n")),
            "s.yaml:4:6: data 'x' needs 'column'");
}

TEST(ScenarioYamlErrors, NamesAcrossRequestsAndFlows) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /}\n  r: {path: /x}\n"),
            "s.yaml:3:3: request 'r' given twice in 'requests' (first at line 2)");
  EXPECT_EQ(error_of(with("flows:\n  r: [r]\n")),
            "s.yaml:4:3: 'r' names both a request (line 2) and a flow: the mix and thresholds need "
            "one meaning");
  EXPECT_EQ(error_of(with("flows:\n  f: [r]\n  f: [r]\n")),
            "s.yaml:5:3: flow 'f' given twice in 'flows' (first at line 4)");
  EXPECT_EQ(error_of("requests:\n  \"a b\": {path: /}\n"),
            "s.yaml:2:3: request 'a b': a name is 1 to 100 letters, digits, '_', '.' or '-' (it "
            "labels metrics and thresholds)");
  EXPECT_EQ(error_of(with("flows:\n  f: [nothing]\n")),
            "s.yaml:4:7: step 1 of flow 'f': no request named 'nothing' (requests: r)");
  EXPECT_EQ(error_of("requests:\n  assign: {path: /}\nflows:\n  f: [asign]\n"),
            "s.yaml:4:7: step 1 of flow 'f': no request named 'asign'; did you mean 'assign'? "
            "(requests: assign)");
  EXPECT_EQ(error_of(with("flows:\n  f: [r, g]\n  g: [r]\n")),
            "s.yaml:4:10: step 2 of flow 'f': 'g' is a flow; a step names a request (flows do not "
            "nest)");
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: []}\n")),
            "s.yaml:4:14: flow 'f' needs at least one step");
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: [{request: r, think: 1s}]}\n")),
            "s.yaml:4:15: step 1 of flow 'f': 'think' on the last step has no effect (it is the "
            "pause before the next step)");
  EXPECT_EQ(error_of(with("flows:\n  f: {steps: [{request: r, think: soon}, r]}\n")).substr(0, 51),
            "s.yaml:4:35: 'think' in step 1 of flow 'f': invalid");
}

TEST(ScenarioYamlErrors, Requests) {
  EXPECT_EQ(error_of("requests:\n  r: {method: GET}\n"), "s.yaml:2:6: request 'r' needs 'path'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, method: \"GE T\"}\n"),
            "s.yaml:2:24: 'method' in request 'r': expected a method like GET or POST (letters, "
            "digits and !#$%&'*+-.^_`|~, no spaces), got 'GE T'");
  EXPECT_EQ(error_of("requests:\n  r: {path: items}\n"),
            "s.yaml:2:13: 'path' in request 'r': must start with '/' (a path on the target, like "
            "/items?q=${word}), or with a ${variable} whose values are paths");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"${env:P}/x\"}\n"),
            "s.yaml:2:13: 'path' in request 'r': must start with '/' (a path on the target, like "
            "/items?q=${word}), or with a ${variable} whose values are paths");
  EXPECT_EQ(error_of("requests:\n  r: {path: /a b}\n"),
            "s.yaml:2:13: 'path' in request 'r': must not contain spaces or control characters "
            "(write a space as %20)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, body: x, json: {a: 1}}\n"),
            "s.yaml:2:25: 'json' in request 'r': cannot be combined with 'body' (both give the "
            "body)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {\"Bad Name\": x}}\n"),
            "s.yaml:2:26: header in request 'r': a header name is a token like Accept or "
            "X-Request-Id (letters, digits and !#$%&'*+-.^_`|~)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {Accept: x, accept: y}}\n"),
            "s.yaml:2:37: header 'accept' in request 'r': given twice (names ignore case)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {Content-Length: 5}}\n"),
            "s.yaml:2:26: header 'Content-Length' in request 'r': proofload sets it from the body");
  // A path may start with a variable whose values are paths.
  EXPECT_EQ(parse("data:\n  url: [/a, /b]\nrequests:\n  r: {path: \"${url}\"}\n")
                .requests[0]
                .path_template,
            "${url}");
  EXPECT_EQ(
      error_of("requests:\n  r: {path: \"${url}\"}\ndata:\n  url: [/a, b]\n"),
      "s.yaml:2:13: 'path' in request 'r': starts with ${url}, whose value 'b' does not start "
      "with '/'");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"${n}/x\"}\ndata:\n  n: {int: {min: 1, max: 2}}\n"),
            "s.yaml:2:13: 'path' in request 'r': starts with ${n}, whose values are not paths; a "
            "path must start with '/'");
}

TEST(ScenarioYamlErrors, MalformedTemplatesPointAtTheReference) {
  EXPECT_EQ(error_of("requests:\n  r: {path: \"/${word\"}\n"),
            "s.yaml:2:15: 'path' in request 'r': unterminated '${' (a literal '${' is written "
            "'$${')");
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /a/${}\n"),
            "s.yaml:3:14: 'path' in request 'r': empty reference '${}'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, headers: {X: \"a ${sec:x}\"}}\n"),
            "s.yaml:2:32: header 'X' in request 'r': unknown prefix 'sec:': use ${name}, "
            "${env:NAME} or ${file:PATH}");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, json: {a: \"${x\"}}\n"),
            "s.yaml:2:27: 'json' in request 'r': unterminated '${' (a literal '${' is written "
            "'$${')");
  // Where the column cannot be known exactly (a block scalar), the offset stays in the message.
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /\n    body: |\n      /a/${x\n"),
            "s.yaml:4:11: 'body' in request 'r': unterminated '${' at offset 3 (a literal '${' is "
            "written '$${')");
  // Secrets are references only: allowed, never read.
  Scenario s = parse(
      "requests:\n  r: {path: /, headers: {A: \"${env:NOT_SET_ANYWHERE}\", "
      "B: \"${file:/no/such/file}\"}}\n");
  EXPECT_EQ(s.requests[0].header_templates[1].second, "${file:/no/such/file}");
}

TEST(ScenarioYamlErrors, ChecksExtractionsAndThresholds) {
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: 99}]}\n"),
            "s.yaml:2:34: 'status' in check 1 of request 'r': expected an integer from 100 to 599, "
            "got '99'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{status: \"300-200\"}]}\n"),
            "s.yaml:2:34: 'status' in check 1 of request 'r': status range 300-200 is empty (min > "
            "max)");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{body_matches: \"(unclosed\"}]}\n"),
            "s.yaml:2:40: 'body_matches' in check 1 of request 'r': invalid regular expression "
            "'(unclosed': Mismatched '(' and ')' in regular expression");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{json: {path: id, equals: 1}}]}\n"),
            "s.yaml:2:32: 'json' in check 1 of request 'r': invalid JSON pointer 'id': it must be "
            "empty or start with '/'");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, checks: [{json: {path: /id}}]}\n"),
            "s.yaml:2:32: 'json' of check 1 of request 'r' needs 'equals'");
  EXPECT_EQ(
      error_of("requests:\n  r: {path: /, extract: {x: {regex: \"a(b)\", group: 2}}}\n"),
      "s.yaml:2:52: 'group' in extraction 'x' of request 'r': regular expression 'a(b)' has 1 "
      "capture group(s); group 2 does not exist");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {header: \"Bad Header\"}}}\n"),
            "s.yaml:2:38: 'header' in extraction 'x' of request 'r': 'Bad Header' is not a header "
            "name");
  EXPECT_EQ(error_of("requests:\n  r: {path: /, extract: {x: {json: /a, group: 1}}}\n"),
            "s.yaml:2:40: 'group' in extraction 'x' of request 'r': goes with 'regex' only");
  EXPECT_EQ(error_of(with("thresholds:\n  - p95(r) < 1 parsec\n")),
            "s.yaml:4:5: invalid threshold \"p95(r) < 1 parsec\": invalid duration \"1parsec\": "
            "unknown unit \"parsec\" (use a number and a unit h, m, s, ms, us or ns, like 500ms, "
            "10s or 1m30s)");
  EXPECT_EQ(error_of("requests:\n  lookup: {path: /}\nthresholds:\n  - p95(lokup) < 1s\n"),
            "s.yaml:4:5: threshold 1 'p95(lokup) < 1s': no request or flow named 'lokup'; did you "
            "mean 'lookup'? (known: lookup)");
}

TEST(ScenarioYamlErrors, VariablesMustBeSetWhereTheyAreUsed) {
  EXPECT_EQ(error_of("requests:\n  r:\n    path: /items/${idd}\ndata:\n  id: [1]\n"),
            "s.yaml:3:18: variable 'idd' is used but never defined; did you mean 'id'? (data: id; "
            "extracted: none)");
  EXPECT_EQ(error_of("requests:\n  r: {path: \"/${x}\"}\n"),
            "s.yaml:2:15: variable 'x' is used but never defined (no variable is defined: add it "
            "to 'data')");
  // A request the mix picks on its own sees data variables only.
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\n"),
            "s.yaml:3:23: variable 'id' is extracted by request 'create', but request 'get' is "
            "picked by the mix on its own (there is no 'mix', and no flow uses it), where only "
            "'data' variables are set; use it in a flow after that request");
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [create, get]\nmix:\n  f: 1\n"
                     "  get: 1\n"),
            "s.yaml:3:23: variable 'id' is extracted by request 'create', but request 'get' is "
            "picked by the mix on its own (line 8), where only 'data' variables are set; use it in "
            "a flow after that request");
  // In a flow, a step sees what the steps before it extracted.
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [get, create]\n"),
            "s.yaml:5:7: step 1 ('get') of flow 'f': variable 'id' is extracted by step 2 "
            "('create') of flow 'f', after this step uses it");
  EXPECT_EQ(error_of("requests:\n  me: {path: \"/items/${id}\", extract: {id: {json: /id}}}\n"
                     "flows:\n  f: [me, me]\n"),
            "s.yaml:4:7: step 1 ('me') of flow 'f': variable 'id' is extracted by step 1 ('me') of "
            "flow 'f', after this step uses it");
  EXPECT_EQ(error_of("requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
                     "  get: {path: \"/items/${id}\"}\nflows:\n  f: [create, get]\n  g: [get]\n"),
            "s.yaml:6:7: step 1 ('get') of flow 'g': variable 'id' is extracted only by request "
            "'create', which is not a step of flow 'g' before this one");
  EXPECT_EQ(
      error_of("data:\n  id: [1]\nrequests:\n  create: {path: /, extract: {id: {json: /id}}}\n"),
      "s.yaml:4:31: variable 'id' is defined both in 'data' (line 2) and by an extraction of "
      "request 'create'");
  EXPECT_EQ(error_of("defaults:\n  headers: {X: \"${id}\"}\nrequests:\n"
                     "  create: {path: /, extract: {id: {json: /id}}}\n"),
            "s.yaml:2:17: variable 'id' is extracted by request 'create', but default headers are "
            "sent with every request, so they may use 'data' variables only; give the header to "
            "the requests that follow it in a flow");
  // A request no one picks is still checked for typos, but may use extracted variables.
  Scenario s = parse(
      "requests:\n  create: {path: /, extract: {id: {json: /id}}}\n"
      "  get: {path: \"/items/${id}\"}\nmix:\n  create: 1\n");
  EXPECT_EQ(s.mix.size(), 1u);
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
