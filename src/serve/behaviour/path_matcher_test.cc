// PathMatcher: routes by method and path, literal over parameter, captured parameters and
// query as views into the target, 404 vs 405, and templates refused at start-up.
#include "serve/behaviour/path_matcher.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

const std::vector<RouteTemplate> kRoutes = {
    {"GET", "/items/{id}"},                 // 0
    {"GET", "/items/search"},               // 1
    {"POST", "/items/{id}/assign"},         // 2
    {"GET", "/sic/description"},            // 3
    {"*", "/health"},                       // 4
    {"POST", "/items"},                     // 5
    {"GET", "/a/{b}/c/{d}/e/{f}/{g}"},      // 6
    {"GET", "/"},                           // 7
    {"DELETE", "/items/{id}"},              // 8
    {"GET", "/users/{user}/items/{item}"},  // 9
    {"GET", "/users/me/items/{item}"},      // 10
};

PathMatch match(std::string_view method, std::string_view target) {
  static const PathMatcher matcher(kRoutes);
  return matcher.match(method, target);
}

TEST(PathMatcherTest, FindsRouteAndCapturesParameters) {
  std::string target = "/items/42/assign";
  PathMatch m = match("POST", target);
  ASSERT_EQ(m.status, PathMatch::Status::kFound);
  EXPECT_EQ(m.route, 2);
  ASSERT_EQ(m.param_count, 1);
  EXPECT_EQ(m.params[0], "42");
  // A view into the caller's target, not a copy.
  EXPECT_EQ(m.params[0].data(), target.data() + 7);
  EXPECT_EQ(match("GET", "/sic/description").route, 3);
  EXPECT_EQ(match("GET", "/").route, 7);
}

TEST(PathMatcherTest, UpToFourParametersInTemplateOrder) {
  PathMatch m = match("GET", "/a/1/c/2/e/3/4");
  ASSERT_EQ(m.status, PathMatch::Status::kFound);
  EXPECT_EQ(m.route, 6);
  ASSERT_EQ(m.param_count, 4);
  EXPECT_EQ(m.params[0], "1");
  EXPECT_EQ(m.params[1], "2");
  EXPECT_EQ(m.params[2], "3");
  EXPECT_EQ(m.params[3], "4");
  PathMatcher matcher(kRoutes);
  ASSERT_EQ(matcher.param_names(6).size(), 4u);
  EXPECT_EQ(matcher.param_names(6)[3], "g");
  EXPECT_EQ(matcher.param_names(2)[0], "id");
}

TEST(PathMatcherTest, QueryIsSplitOffAndReturned) {
  std::string target = "/items/search?q=acme&page=2";
  PathMatch m = match("GET", target);
  EXPECT_EQ(m.route, 1);
  EXPECT_EQ(m.path, "/items/search");
  EXPECT_EQ(m.query, "q=acme&page=2");
  EXPECT_EQ(m.query.data(), target.data() + 14);
  PathMatch no_query = match("GET", "/items/search");
  EXPECT_TRUE(no_query.query.empty());
  PathMatch empty_query = match("GET", "/items/7?");
  EXPECT_EQ(empty_query.route, 0);
  EXPECT_EQ(empty_query.params[0], "7");
  EXPECT_TRUE(empty_query.query.empty());
}

TEST(PathMatcherTest, LiteralSegmentBeatsParameterWhateverTheOrderGiven) {
  EXPECT_EQ(match("GET", "/items/search").route, 1);
  EXPECT_EQ(match("GET", "/items/searc").route, 0);
  EXPECT_EQ(match("GET", "/users/me/items/9").route, 10);
  EXPECT_EQ(match("GET", "/users/you/items/9").route, 9);
  // Given in the other order, the same winner.
  std::vector<RouteTemplate> reversed = {{"GET", "/items/search"}, {"GET", "/items/{id}"}};
  EXPECT_EQ(PathMatcher(reversed).match("GET", "/items/search").route, 0);
  EXPECT_EQ(PathMatcher(reversed).match("GET", "/items/x").route, 1);
}

TEST(PathMatcherTest, MethodNotAllowedIsDistinctFromNotFound) {
  EXPECT_EQ(match("PUT", "/items/3").status, PathMatch::Status::kMethodNotAllowed);
  EXPECT_EQ(match("POST", "/sic/description").status, PathMatch::Status::kMethodNotAllowed);
  EXPECT_EQ(match("GET", "/nothing/here").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("GET", "/items/3/assign").status, PathMatch::Status::kMethodNotAllowed);
  EXPECT_EQ(match("GET", "/items/3/assign").route, -1);
  // A method that only a parameter route has still finds it behind a literal route.
  EXPECT_EQ(match("DELETE", "/items/search").route, 8);
}

TEST(PathMatcherTest, StarMatchesAnyMethodAndHeadUsesGet) {
  EXPECT_EQ(match("GET", "/health").route, 4);
  EXPECT_EQ(match("POST", "/health").route, 4);
  EXPECT_EQ(match("BREW", "/health").route, 4);
  EXPECT_EQ(match("HEAD", "/items/5").route, 0);
  std::vector<RouteTemplate> both = {{"*", "/x"}, {"POST", "/x"}};
  EXPECT_EQ(PathMatcher(both).match("POST", "/x").route, 1);  // exact method first
  EXPECT_EQ(PathMatcher(both).match("GET", "/x").route, 0);
}

TEST(PathMatcherTest, SegmentsMustMatchExactly) {
  EXPECT_EQ(match("GET", "/items/").status, PathMatch::Status::kNotFound);  // empty {id}
  EXPECT_EQ(match("GET", "/items/5/").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("POST", "/items/").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("GET", "/Items/5").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("GET", "*").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("GET", "").status, PathMatch::Status::kNotFound);
  EXPECT_EQ(match("GET", "/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17").status,
            PathMatch::Status::kNotFound);
}

TEST(PathMatcherTest, AbsoluteFormUsesItsPath) {
  PathMatch m = match("GET", "http://127.0.0.1:8080/items/9?x=1");
  EXPECT_EQ(m.route, 0);
  EXPECT_EQ(m.params[0], "9");
  EXPECT_EQ(m.query, "x=1");
  EXPECT_EQ(match("GET", "http://localhost").route, 7);
}

TEST(PathMatcherTest, BadTemplatesAreUsageErrors) {
  auto compile = [](std::string method, std::string path) {
    std::vector<RouteTemplate> routes = {{std::move(method), std::move(path)}};
    PathMatcher matcher(routes);
  };
  EXPECT_THROW(compile("GET", "items"), UsageError);
  EXPECT_THROW(compile("GET", "/items/x{id}"), UsageError);
  EXPECT_THROW(compile("GET", "/items/{}"), UsageError);
  EXPECT_THROW(compile("GET", "/items/{1d}"), UsageError);
  EXPECT_THROW(compile("GET", "/items/{id"), UsageError);
  EXPECT_THROW(compile("GET", "/{a}/{a}"), UsageError);
  EXPECT_THROW(compile("GET", "/{a}/{b}/{c}/{d}/{e}"), UsageError);
  EXPECT_THROW(compile("GET", "/items?q=1"), UsageError);
  EXPECT_THROW(compile("get", "/items"), UsageError);
  EXPECT_THROW(compile("", "/items"), UsageError);
  std::vector<RouteTemplate> duplicate = {{"GET", "/a/{x}"}, {"GET", "/a/{y}"}};
  try {
    PathMatcher matcher(duplicate);
    FAIL() << "duplicate accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "route 'GET /a/{y}' duplicates 'GET /a/{x}'");
  }
  std::vector<RouteTemplate> distinct = {{"GET", "/a/{x}"}, {"POST", "/a/{y}"}, {"*", "/a/{z}"}};
  EXPECT_NO_THROW(PathMatcher matcher(distinct));
}

}  // namespace
}  // namespace proofload::serve
