// Tests for parse_url: what users type after `proofload run`, and the one-line errors they see.
#include "http/url.h"

#include <gtest/gtest.h>

#include <string>

#include "common/usage_error.h"

namespace proofload::http {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_url(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParseUrl, HostOnlyGetsDefaultPortAndRootPath) {
  const Url url = parse_url("http://example.com");
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.host, "example.com");
  EXPECT_EQ(url.port, 80);
  EXPECT_EQ(url.path_and_query, "/");
  EXPECT_EQ(url.host_header, "example.com");
}

TEST(ParseUrl, PortPathAndQuery) {
  const Url url = parse_url("http://127.0.0.1:8080/api/items?id=7&x=%20y");
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.path_and_query, "/api/items?id=7&x=%20y");
  EXPECT_EQ(url.host_header, "127.0.0.1:8080");
}

TEST(ParseUrl, ExplicitDefaultPortIsLeftOutOfHostHeader) {
  const Url url = parse_url("http://localhost:80/x");
  EXPECT_EQ(url.port, 80);
  EXPECT_EQ(url.host_header, "localhost");
}

TEST(ParseUrl, SchemeIsCaseInsensitiveHostKeptAsWritten) {
  const Url url = parse_url("HTTP://Example.COM/Path");
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.host, "Example.COM");
  EXPECT_EQ(url.path_and_query, "/Path");
}

TEST(ParseUrl, QueryWithoutPathGetsSlash) {
  EXPECT_EQ(parse_url("http://h?q=1").path_and_query, "/?q=1");
}

TEST(ParseUrl, FragmentIsNeverSent) {
  EXPECT_EQ(parse_url("http://h/a?b=1#frag").path_and_query, "/a?b=1");
  EXPECT_EQ(parse_url("http://h#frag").path_and_query, "/");
}

TEST(ParseUrl, Ipv6LiteralWithoutBrackets) {
  const Url url = parse_url("http://[::1]:9000/x");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 9000);
  EXPECT_EQ(url.host_header, "[::1]:9000");
  EXPECT_EQ(parse_url("http://[2001:db8::1]").host_header, "[2001:db8::1]");
}

TEST(ParseUrl, PortLimits) {
  EXPECT_EQ(parse_url("http://h:1").port, 1);
  EXPECT_EQ(parse_url("http://h:65535").port, 65535);
}

TEST(ParseUrl, HttpsDefaultsToPort443AndLeavesItOutOfHost) {
  Url url = parse_url("HTTPS://example.com/a");
  EXPECT_EQ(url.scheme, "https");
  EXPECT_TRUE(url.tls());
  EXPECT_EQ(url.port, 443);
  EXPECT_EQ(url.host_header, "example.com");
  EXPECT_EQ(parse_url("https://example.com:80/").host_header, "example.com:80");
  EXPECT_EQ(parse_url("https://example.com:8443/").port, 8443);
  EXPECT_FALSE(parse_url("http://example.com/").tls());
}

TEST(ParseUrl, RejectsBadInputWithOneLineNamingTheProblem) {
  struct Case {
    const char* url;
    const char* expected;
  };
  const Case cases[] = {
      {"", "empty"},
      {"example.com/x", "missing scheme"},
      {"ftp://h/", "unsupported scheme 'ftp'"},
      {"http://", "missing host"},
      {"http:///path", "missing host"},
      {"http://:8080/", "missing host"},
      {"http://h:99999/", "port 99999 out of range"},
      {"http://h:0/", "port 0 out of range"},
      {"http://h:123456789012345678901234567890/", "out of range"},
      {"http://h:80a/", "invalid port '80a'"},
      {"http://h:/", "empty port"},
      {"http://user:pw@h/", "credentials"},
      {"http://[::1/", "missing ']'"},
      {"http://[::1]x/", "after ']'"},
      {"http://[zz]/", "invalid IPv6"},
      {"http://h o/", "invalid host"},
      {"http://h/a b", "space or control character"},
      {"http://h/a\r\nX: y", "space or control character"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.url);
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << "url '" << c.url << "' gave: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace proofload::http
