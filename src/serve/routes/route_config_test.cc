// Tests of path templates: the shapes a routes file may use, and the one-line reasons others
// are refused.
#include "serve/routes/route_config.h"

#include <gtest/gtest.h>

#include <string>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

std::string route_config_error_of(std::string_view path) {
  try {
    parse_path_template(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(PathTemplate, SplitsLiteralsAndParameters) {
  std::vector<PathSegment> expected = {{"items", false}, {"id", true}, {"assign", false}};
  EXPECT_EQ(parse_path_template("/items/{id}/assign"), expected);
  EXPECT_TRUE(parse_path_template("/").empty());
  std::vector<PathSegment> escaped = {{"a%20b", false}, {"x:y@z", false}, {"_v2", true}};
  EXPECT_EQ(parse_path_template("/a%20b/x:y@z/{_v2}"), escaped);
}

TEST(PathTemplate, RefusesBadTemplatesWithTheReason) {
  EXPECT_EQ(route_config_error_of("items"), "bad path template 'items': it must start with '/'");
  EXPECT_EQ(route_config_error_of(""), "bad path template '': it must start with '/'");
  EXPECT_EQ(route_config_error_of("/items/"),
            "bad path template '/items/': empty segment (a '//' or a trailing '/')");
  EXPECT_EQ(route_config_error_of("/a//b"),
            "bad path template '/a//b': empty segment (a '//' or a trailing '/')");
  EXPECT_EQ(route_config_error_of("/items/x{id}"),
            "bad path template '/items/x{id}': a parameter must be a whole segment, like "
            "/items/{id}");
  EXPECT_EQ(route_config_error_of("/items/{id"),
            "bad path template '/items/{id': a parameter must be a whole segment, like "
            "/items/{id}");
  EXPECT_EQ(route_config_error_of("/items/{1d}"),
            "bad path template '/items/{1d}': parameter name '1d' must be letters, digits and "
            "'_', not starting with a digit");
  EXPECT_EQ(route_config_error_of("/items/{}"),
            "bad path template '/items/{}': parameter name '' must be letters, digits and '_', "
            "not starting with a digit");
  EXPECT_EQ(route_config_error_of("/{id}/x/{id}"),
            "bad path template '/{id}/x/{id}': parameter {id} appears twice");
  EXPECT_EQ(route_config_error_of("/sic/description?q="),
            "bad path template '/sic/description?q=': no query string here; a route matches any "
            "query string (with 'cache' the query string is the cache key)");
  EXPECT_EQ(route_config_error_of("/a#b"), "bad path template '/a#b': no '#' fragment in a route");
  EXPECT_EQ(route_config_error_of("/a/../b"),
            "bad path template '/a/../b': '.' and '..' segments are not allowed");
  EXPECT_EQ(route_config_error_of("/a b"),
            "bad path template '/a b': ' ' is not allowed in a path (escape it as %XX)");
  EXPECT_EQ(route_config_error_of("/a\tb"),
            "bad path template '/a\tb': a control or non-ASCII byte is not allowed in a path "
            "(escape it as %XX)");
  EXPECT_EQ(route_config_error_of("/a\"b"),
            "bad path template '/a\"b': '\"' is not allowed in a path (escape it as %XX)");
  EXPECT_EQ(route_config_error_of("/{a}/{b}/{c}/{d}/{e}"),
            "bad path template '/{a}/{b}/{c}/{d}/{e}': more than 4 parameters");
  EXPECT_EQ(route_config_error_of("/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17"),
            "bad path template '/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17': more than 16 "
            "segments");
  EXPECT_EQ(route_config_error_of("/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16"), "");
  EXPECT_EQ(route_config_error_of("/a%2"),
            "bad path template '/a%2': '%' must start an escape like %20");
  EXPECT_EQ(route_config_error_of("/a%zz"),
            "bad path template '/a%zz': '%' must start an escape like %20");
}

TEST(PathTemplate, ShapeIgnoresParameterNames) {
  EXPECT_EQ(path_shape("/items/{id}/assign"), "/items/{}/assign");
  EXPECT_EQ(path_shape("/items/{key}/assign"), path_shape("/items/{id}/assign"));
  EXPECT_EQ(path_shape("/"), "/");
}

TEST(BuiltinHandlers, KnowsEveryHandlerTheServerImplements) {
  for (std::string_view name :
       {"lifecycle.create", "lifecycle.assign", "lifecycle.resolve", "lifecycle.get",
        "lifecycle.search", "admin.backlog", "admin.ready", "admin.reset", "health", "metrics"}) {
    EXPECT_TRUE(is_builtin_handler(name)) << name;
  }
  EXPECT_FALSE(is_builtin_handler("lifecycle"));
  EXPECT_FALSE(is_builtin_handler(""));
}

}  // namespace
}  // namespace proofload::serve
