// Path templates and the small lookups of the route model (see route_config.h). Stateless;
// throws UsageError only.
#include "serve/routes/route_config.h"

#include <algorithm>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// RFC 3986 pchar without pct-encoding: unreserved / sub-delims / ":" / "@".
bool is_plain_pchar(char c) {
  if (is_alpha(c) || is_digit(c)) return true;
  constexpr std::string_view kOthers = "-._~!$&'()*+,;=:@";
  return kOthers.find(c) != std::string_view::npos;
}

[[noreturn]] void bad_path(std::string_view path, const std::string& why) {
  throw UsageError("bad path template '" + std::string(path) + "': " + why);
}

bool is_parameter_name(std::string_view name) {
  if (name.empty() || !(is_alpha(name.front()) || name.front() == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

void check_literal(std::string_view path, std::string_view segment) {
  if (segment == "." || segment == "..") bad_path(path, "'.' and '..' segments are not allowed");
  for (size_t i = 0; i < segment.size(); ++i) {
    char c = segment[i];
    if (c == '{' || c == '}') {
      bad_path(path, "a parameter must be a whole segment, like /items/{id}");
    }
    if (c == '%') {
      if (i + 2 >= segment.size() || !is_hex(segment[i + 1]) || !is_hex(segment[i + 2])) {
        bad_path(path, "'%' must start an escape like %20");
      }
      i += 2;
      continue;
    }
    if (!is_plain_pchar(c)) {
      std::string shown = (c >= ' ' && c < 0x7f) ? "'" + std::string(1, c) + "'"
                                                 : std::string("a control or non-ASCII byte");
      bad_path(path, shown + " is not allowed in a path (escape it as %XX)");
    }
  }
}

}  // namespace

std::vector<PathSegment> parse_path_template(std::string_view path) {
  if (path.empty() || path.front() != '/') bad_path(path, "it must start with '/'");
  if (path.find('?') != std::string_view::npos) {
    bad_path(path,
             "no query string here; a route matches any query string (with 'cache' the "
             "query string is the cache key)");
  }
  if (path.find('#') != std::string_view::npos) bad_path(path, "no '#' fragment in a route");
  std::vector<PathSegment> segments;
  if (path == "/") return segments;
  std::string_view rest = path.substr(1);
  while (true) {
    size_t slash = rest.find('/');
    std::string_view segment = rest.substr(0, slash);
    if (segment.empty()) bad_path(path, "empty segment (a '//' or a trailing '/')");
    if (segment.front() == '{' && segment.back() == '}' && segment.size() >= 2) {
      std::string_view name = segment.substr(1, segment.size() - 2);
      if (!is_parameter_name(name)) {
        bad_path(path, "parameter name '" + std::string(name) +
                           "' must be letters, digits and '_', not starting with a digit");
      }
      for (const PathSegment& seen : segments) {
        if (seen.is_parameter && seen.text == name) {
          bad_path(path, "parameter {" + std::string(name) + "} appears twice");
        }
      }
      segments.push_back({std::string(name), true});
      size_t parameters = std::count_if(segments.begin(), segments.end(),
                                        [](const PathSegment& s) { return s.is_parameter; });
      if (parameters > kMaxPathParameters) {
        bad_path(path, "more than " + std::to_string(kMaxPathParameters) + " parameters");
      }
    } else {
      check_literal(path, segment);
      segments.push_back({std::string(segment), false});
    }
    if (segments.size() > kMaxPathSegments) {
      bad_path(path, "more than " + std::to_string(kMaxPathSegments) + " segments");
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return segments;
}

std::string path_shape(std::string_view path) {
  std::string shape;
  for (const PathSegment& segment : parse_path_template(path)) {
    shape += '/';
    shape += segment.is_parameter ? "{}" : segment.text;
  }
  return shape.empty() ? "/" : shape;
}

bool is_builtin_handler(std::string_view name) {
  return std::find(kBuiltinHandlers.begin(), kBuiltinHandlers.end(), name) !=
         kBuiltinHandlers.end();
}

}  // namespace proofload::serve
