// PathMatcher: templates sorted once by precedence (literal before parameter, segment by
// segment; exact method before "*"), so the first template that matches is the best one.
// A linear scan: route tables here hold tens of routes, and a miss is a length compare.
#include "serve/behaviour/path_matcher.h"

#include <algorithm>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

bool is_name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

// Splits "/a/b/c" into {"a", "b", "c"}; false when there are more than kMaxSegments.
bool split_path(std::string_view path, std::array<std::string_view, kMaxSegments>& segments,
                size_t& count) {
  count = 0;
  size_t begin = 1;  // after the leading '/'
  while (true) {
    size_t end = path.find('/', begin);
    if (count == kMaxSegments) return false;
    segments[count++] = path.substr(begin, end == std::string_view::npos ? end : end - begin);
    if (end == std::string_view::npos) return true;
    begin = end + 1;
  }
}

bool method_matches(std::string_view route_method, std::string_view method) {
  return route_method == "*" || route_method == method ||
         (method == "HEAD" && route_method == "GET");
}

}  // namespace

PathMatcher::PathMatcher(std::span<const RouteTemplate> routes) {
  for (size_t route = 0; route < routes.size(); ++route) {
    const RouteTemplate& t = routes[route];
    std::string where = "route '" + t.method + " " + t.path + "': ";
    bool method_ok = t.method == "*" || !t.method.empty();
    for (char c : t.method) method_ok = method_ok && ((c >= 'A' && c <= 'Z') || t.method == "*");
    if (!method_ok) throw UsageError(where + "method must be upper-case letters or *");
    if (t.path.empty() || t.path[0] != '/') throw UsageError(where + "path must start with /");
    if (t.path.find_first_of("?# \t\r\n") != std::string::npos) {
      throw UsageError(where + "path must not contain '?', '#' or white space");
    }
    std::array<std::string_view, kMaxSegments> parts;
    size_t part_count = 0;
    if (!split_path(t.path, parts, part_count)) {
      throw UsageError(where + "more than " + std::to_string(kMaxSegments) + " segments");
    }
    Compiled compiled{{}, t.method, static_cast<int>(route)};
    std::vector<std::string> names;
    for (size_t i = 0; i < part_count; ++i) {
      std::string_view part = parts[i];
      bool has_brace = part.find_first_of("{}") != std::string_view::npos;
      if (!has_brace) {
        compiled.segments.push_back(Segment{std::string(part), false});
        continue;
      }
      std::string_view name = part.size() >= 2 ? part.substr(1, part.size() - 2) : "";
      bool name_ok = part.front() == '{' && part.back() == '}' && !name.empty();
      for (size_t c = 0; name_ok && c < name.size(); ++c) name_ok = is_name_char(name[c], c == 0);
      if (!name_ok) {
        throw UsageError(where + "segment '" + std::string(part) +
                         "' must be plain text or a whole {name} (letters, digits, _)");
      }
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        throw UsageError(where + "parameter {" + std::string(name) + "} appears twice");
      }
      if (names.size() == kMaxParams) {
        throw UsageError(where + "more than " + std::to_string(kMaxParams) + " parameters");
      }
      names.emplace_back(name);
      compiled.segments.push_back(Segment{std::string(), true});
    }
    compiled_.push_back(std::move(compiled));
    names_.push_back(std::move(names));
  }

  // Precedence: segment kinds compared position by position (literal first), then an exact
  // method before "*", then the order given. Two matching paths have the same number of
  // segments, so the first difference in kinds decides between them.
  std::stable_sort(compiled_.begin(), compiled_.end(), [](const Compiled& a, const Compiled& b) {
    size_t n = std::min(a.segments.size(), b.segments.size());
    for (size_t i = 0; i < n; ++i) {
      if (a.segments[i].is_param != b.segments[i].is_param) return !a.segments[i].is_param;
    }
    if (a.segments.size() != b.segments.size()) return a.segments.size() < b.segments.size();
    return a.method != "*" && b.method == "*";
  });

  for (size_t i = 0; i < compiled_.size(); ++i) {
    for (size_t j = i + 1; j < compiled_.size(); ++j) {
      const Compiled& a = compiled_[i];
      const Compiled& b = compiled_[j];
      if (a.method != b.method || a.segments.size() != b.segments.size()) continue;
      bool same_shape = true;
      for (size_t s = 0; same_shape && s < a.segments.size(); ++s) {
        same_shape = a.segments[s].is_param == b.segments[s].is_param &&
                     a.segments[s].literal == b.segments[s].literal;
      }
      if (same_shape) {
        const RouteTemplate& first = routes[std::min(a.route, b.route)];
        const RouteTemplate& second = routes[std::max(a.route, b.route)];
        throw UsageError("route '" + second.method + " " + second.path + "' duplicates '" +
                         first.method + " " + first.path + "'");
      }
    }
  }
}

PathMatch PathMatcher::match(std::string_view method, std::string_view target) const {
  PathMatch result;
  if (target.starts_with("http://") || target.starts_with("https://")) {
    size_t path_begin = target.find_first_of("/?", target.find("//") + 2);
    if (path_begin == std::string_view::npos) {
      target = "/";  // "http://host" asks for "/"
    } else if (target[path_begin] == '/') {
      target = target.substr(path_begin);
    } else {
      return result;  // "http://host?q": rare enough to answer 404 rather than copy
    }
  }
  size_t question = target.find('?');
  result.path = target.substr(0, question);
  if (question != std::string_view::npos) result.query = target.substr(question + 1);
  if (result.path.empty() || result.path[0] != '/') return result;

  std::array<std::string_view, kMaxSegments> segments;
  size_t count = 0;
  if (!split_path(result.path, segments, count)) return result;

  bool path_matched = false;
  for (const Compiled& route : compiled_) {
    if (route.segments.size() != count) continue;
    bool matches = true;
    for (size_t i = 0; matches && i < count; ++i) {
      const Segment& segment = route.segments[i];
      matches = segment.is_param ? !segments[i].empty() : segment.literal == segments[i];
    }
    if (!matches) continue;
    if (!method_matches(route.method, method)) {
      path_matched = true;
      continue;
    }
    result.status = PathMatch::Status::kFound;
    result.route = route.route;
    for (size_t i = 0; i < count; ++i) {
      if (route.segments[i].is_param) result.params[result.param_count++] = segments[i];
    }
    return result;
  }
  result.status =
      path_matched ? PathMatch::Status::kMethodNotAllowed : PathMatch::Status::kNotFound;
  return result;
}

}  // namespace proofload::serve
