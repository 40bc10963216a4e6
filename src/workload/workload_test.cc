// Tests for the compiled workload and the session the engine drives: the bytes a request is
// sent as, the weighted mix, data drawn once per iteration, and a flow's steps with extraction,
// checks and failure.
#include "workload/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/usage_error.h"
#include "http/url.h"
#include "workload/session.h"

namespace proofload::workload {
namespace {

RequestSpec request(std::string name, std::string method, std::string path) {
  RequestSpec r;
  r.name = std::move(name);
  r.method = std::move(method);
  r.path_template = std::move(path);
  r.where = {"test.yaml", 1, 1};
  return r;
}

DataSpec list_data(std::string name, std::vector<std::string> values) {
  DataSpec d;
  d.name = std::move(name);
  d.kind = DataSpec::Kind::kList;
  d.values = std::move(values);
  return d;
}

std::shared_ptr<const Workload> compile(const Scenario& scenario,
                                        std::string_view target = "http://127.0.0.1:8080") {
  SecretStore secrets([](const std::string& name) -> std::optional<std::string> {
    if (name == "TOKEN") return "s3cret";
    return std::nullopt;
  });
  return Workload::compile(scenario, http::parse_url(target), secrets, 42);
}

// Feeds a whole response to a parser set up the way the engine sets it up for `r`.
void receive(http::ResponseParser& parser, const CompiledRequest& r, const std::string& bytes) {
  parser.start(r.is_head, r.capture);
  ASSERT_EQ(parser.feed(bytes.data(), bytes.size()).state, http::ResponseParser::State::kComplete);
}

TEST(Workload, FixedRequestIsSentAsItIs) {
  auto w = Workload::fixed("GET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  for (int i = 0; i < 3; ++i) {
    s.begin_step(context);
    EXPECT_EQ(s.request_bytes(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  EXPECT_TRUE(w->is_fixed());
}

TEST(Workload, TemplatesRenderWithBasePathHostDefaultsAndContentLength) {
  Scenario scenario;
  scenario.data.push_back(list_data("word", {"alpha"}));
  scenario.default_headers = {{"Accept", "application/json"}, {"X-Team", "default"}};
  RequestSpec create = request("create", "POST", "/items?q=${word}");
  create.header_templates = {{"X-Team", "core"}, {"Authorization", "Bearer ${env:TOKEN}"}};
  create.body_template = R"({"title":"${word}"})";
  create.json_body = true;
  scenario.requests.push_back(create);
  auto w = compile(scenario, "http://127.0.0.1:8080/api/");
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  s.begin_step(context);
  EXPECT_EQ(std::string(s.request_bytes()),
            "POST /api/items?q=alpha HTTP/1.1\r\n"
            "Host: 127.0.0.1:8080\r\n"
            "User-Agent: proofload/" PROOFLOAD_VERSION
            "\r\n"
            "X-Team: core\r\n"
            "Authorization: Bearer s3cret\r\n"
            "Accept: application/json\r\n"
            "Content-Type: application/json\r\n"
            "Content-Length: 17\r\n"
            "\r\n"
            R"({"title":"alpha"})");
}

TEST(Workload, ARequestWithNothingVariableIsBuiltOnce) {
  Scenario scenario;
  scenario.requests.push_back(request("health", "GET", "/health"));
  auto w = compile(scenario);
  ASSERT_TRUE(w->requests()[0].fixed_bytes.has_value());
  EXPECT_EQ(w->requests()[0].fixed_bytes->find("GET /health HTTP/1.1\r\n"), 0u);
}

TEST(Workload, ProtocolHeadersAndBrokenValuesAreRejectedWithTheLocation) {
  Scenario scenario;
  RequestSpec r = request("bad", "GET", "/");
  r.header_templates = {{"Content-Length", "5"}};
  scenario.requests.push_back(r);
  try {
    compile(scenario);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("test.yaml:1:1: request 'bad'"), std::string::npos)
        << e.what();
  }
  scenario.requests[0].header_templates = {{"Bad Name", "x"}};
  EXPECT_THROW(compile(scenario), UsageError);
}

// A CSV field may hold a line break; in a header it would be a header line of its own.
TEST(Workload, DataWithALineBreakIsRefusedInTheHeadAndAllowedInTheBody) {
  Scenario scenario;
  scenario.data.push_back(list_data("note", {"plain", "two\r\nX-Injected: 1"}));
  RequestSpec r = request("post", "POST", "/notes");
  r.header_templates = {{"X-Note", "${note}"}};
  scenario.requests.push_back(r);
  try {
    compile(scenario);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "test.yaml:1:1: request 'post' puts data 'note' in its path or headers, and a value "
              "of it holds a line break or NUL");
  }
  scenario.requests[0].header_templates.clear();
  scenario.requests[0].path_template = "/notes/${note}";
  EXPECT_THROW(compile(scenario), UsageError);
  scenario.requests[0].path_template = "/notes";
  scenario.requests[0].body_template = "${note}";
  EXPECT_NO_THROW(compile(scenario));
}

TEST(Workload, MixPicksEntriesInProportionToTheirWeights) {
  Scenario scenario;
  for (const char* name : {"lookup", "similarity", "hybrid"}) {
    scenario.requests.push_back(request(name, "GET", std::string("/") + name));
  }
  scenario.mix = {{"lookup", 4, {}}, {"similarity", 3, {}}, {"hybrid", 3, {}}};
  auto w = compile(scenario);
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  constexpr int kPicks = 100'000;
  int counts[3] = {};
  for (int i = 0; i < kPicks; ++i) {
    ++counts[s.begin_step(context).name == "lookup" ? 0 : s.entry()];
    http::ResponseParser parser;
    receive(parser, w->requests()[static_cast<size_t>(s.request())],
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    ASSERT_TRUE(s.on_response(parser).iteration_over);
  }
  const double shares[3] = {0.4, 0.3, 0.3};
  for (int i = 0; i < 3; ++i) {
    const double expected = kPicks * shares[i];
    const double sigma = std::sqrt(kPicks * shares[i] * (1 - shares[i]));
    EXPECT_NEAR(counts[i], expected, 4 * sigma) << "entry " << i;
    EXPECT_DOUBLE_EQ(w->entry_share(i), shares[i]);
  }
}

// create -> (extract id from JSON, Location header) -> resolve: the id flows into the next step.
Scenario lifecycle() {
  Scenario scenario;
  scenario.data.push_back(list_data("title", {"t1", "t2"}));
  RequestSpec create = request("create", "POST", "/items");
  create.body_template = "${title}";
  CheckSpec created;
  created.kind = CheckSpec::Kind::kStatusIn;
  created.statuses = {201};
  create.checks.push_back(created);
  ExtractSpec id;
  id.variable = "id";
  id.kind = ExtractSpec::Kind::kJsonPointer;
  id.expression = "/id";
  create.extracts.push_back(id);
  ExtractSpec location;
  location.variable = "where";
  location.kind = ExtractSpec::Kind::kHeader;
  location.expression = "Location";
  create.extracts.push_back(location);
  scenario.requests.push_back(create);
  RequestSpec resolve = request("resolve", "POST", "/items/${id}/resolve?from=${where}&t=${title}");
  scenario.requests.push_back(resolve);
  FlowSpec flow;
  flow.name = "lifecycle";
  flow.steps = {{"create", 5'000'000, {}}, {"resolve", 0, {}}};
  scenario.flows.push_back(flow);
  scenario.mix = {{"lifecycle", 1, {}}};
  return scenario;
}

TEST(Session, FlowStepsUseValuesExtractedFromEarlierAnswers) {
  auto w = compile(lifecycle());
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  http::ResponseParser parser;

  const CompiledRequest& create = s.begin_step(context);
  EXPECT_TRUE(s.first_step());
  EXPECT_EQ(create.name, "create");
  const std::string title(s.request_bytes().substr(s.request_bytes().size() - 2));
  receive(parser, create,
          "HTTP/1.1 201 Created\r\nLocation: /items/17\r\nContent-Length: 9\r\n\r\n{\"id\":17}");
  Session::StepEnd end = s.on_response(parser);
  EXPECT_EQ(end.outcome, measure::Outcome::kSuccess);
  EXPECT_FALSE(end.iteration_over);
  EXPECT_EQ(end.think_ns, 5'000'000);
  EXPECT_TRUE(s.in_iteration());

  const CompiledRequest& resolve = s.begin_step(context);
  EXPECT_EQ(resolve.name, "resolve");
  // The data value drawn for the iteration is the same in every step.
  EXPECT_EQ(
      s.request_bytes().find("POST /items/17/resolve?from=/items/17&t=" + title + " HTTP/1.1"), 0u)
      << s.request_bytes();
  receive(parser, resolve, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  end = s.on_response(parser);
  EXPECT_TRUE(end.iteration_over);
  EXPECT_TRUE(end.flow_succeeded);
  EXPECT_FALSE(s.in_iteration());
}

TEST(Session, AFailedCheckOrMissingValueEndsTheFlowAsCheckFailed) {
  auto w = compile(lifecycle());
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  http::ResponseParser parser;
  // 201 but no id in the body: the flow cannot go on.
  receive(parser, s.begin_step(context),
          "HTTP/1.1 201 Created\r\nLocation: /x\r\nContent-Length: 2\r\n\r\n{}");
  Session::StepEnd end = s.on_response(parser);
  EXPECT_EQ(end.outcome, measure::Outcome::kCheckFailed);
  EXPECT_TRUE(end.iteration_over);
  EXPECT_FALSE(end.flow_succeeded);

  // An error status keeps its own outcome (the status is the finding) and also ends the flow.
  receive(parser, s.begin_step(context), "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n");
  end = s.on_response(parser);
  EXPECT_EQ(end.outcome, measure::Outcome::kStatus503);
  EXPECT_TRUE(end.iteration_over);

  // A value with a line break would split the next request's head: not passed on.
  receive(
      parser, s.begin_step(context),
      "HTTP/1.1 201 Created\r\nLocation: /x\r\nContent-Length: 15\r\n\r\n{\"id\":\"a\\r\\nb\"}");
  EXPECT_EQ(s.on_response(parser).outcome, measure::Outcome::kCheckFailed);

  // A failure without a response ends the flow too.
  s.begin_step(context);
  end = s.on_failure(measure::Outcome::kTimeout);
  EXPECT_EQ(end.outcome, measure::Outcome::kTimeout);
  EXPECT_TRUE(end.iteration_over);
  EXPECT_FALSE(end.flow_succeeded);
}

TEST(Session, AStatusTheChecksAskForIsASuccess) {
  Scenario scenario;
  RequestSpec gone = request("gone", "GET", "/deleted");
  CheckSpec not_found;
  not_found.kind = CheckSpec::Kind::kStatusIn;
  not_found.statuses = {404};
  gone.checks.push_back(not_found);
  scenario.requests.push_back(gone);
  auto w = compile(scenario);
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  http::ResponseParser parser;
  receive(parser, s.begin_step(context), "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(s.on_response(parser).outcome, measure::Outcome::kSuccess);
  receive(parser, s.begin_step(context), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(s.on_response(parser).outcome, measure::Outcome::kCheckFailed);
}

TEST(Session, RenderingDoesNotReallocateOnceTheBufferHasGrown) {
  Scenario scenario;
  scenario.data.push_back(list_data("word", {"a", "bb", "ccc"}));
  RequestSpec r = request("search", "GET", "/search?q=${word}");
  scenario.requests.push_back(r);
  auto w = compile(scenario);
  WorkerContext context(*w, 0, 1);
  Session s;
  s.bind(*w);
  for (int i = 0; i < 50; ++i) s.begin_step(context);  // every value seen: capacity reached
  const char* storage = s.request_bytes().data();
  for (int i = 0; i < 1000; ++i) {
    s.begin_step(context);
    ASSERT_EQ(s.request_bytes().data(), storage);
  }
}

}  // namespace
}  // namespace proofload::workload
