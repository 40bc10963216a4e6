// Tests for -H parsing and the exact request bytes the engine writes.
#include "http/request.h"

#include <gtest/gtest.h>

#include <string>

#include "common/usage_error.h"

namespace proofload::http {
namespace {

const std::string kUserAgent = "User-Agent: proofload/" PROOFLOAD_VERSION "\r\n";

RequestSpec spec_for(const std::string& method, const std::string& url) {
  RequestSpec spec;
  spec.method = method;
  spec.url = parse_url(url);
  return spec;
}

TEST(ParseHeaderFlag, SplitsAtFirstColonAndTrimsValue) {
  EXPECT_EQ(parse_header_flag("Accept: application/json"),
            (std::pair<std::string, std::string>{"Accept", "application/json"}));
  EXPECT_EQ(parse_header_flag("X-Time:  12:30:00 \t"),
            (std::pair<std::string, std::string>{"X-Time", "12:30:00"}));
  EXPECT_EQ(parse_header_flag("X-Empty:"), (std::pair<std::string, std::string>{"X-Empty", ""}));
}

TEST(ParseHeaderFlag, RejectsMalformedHeaders) {
  for (const char* bad :
       {"NoColon", ": value", "Bad Name: v", "Name : v", "A: b\r\nC: d", "A: b\nc", "A\r: b"}) {
    EXPECT_THROW(parse_header_flag(bad), UsageError) << bad;
  }
  EXPECT_THROW(parse_header_flag(std::string_view("A: b\0c", 6)), UsageError);
}

TEST(BuildRequest, GetWithHeadersExactBytes) {
  RequestSpec spec = spec_for("GET", "http://127.0.0.1:8080/items?page=2");
  spec.headers = {{"Accept", "application/json"}, {"X-Trace", "abc"}};
  EXPECT_EQ(build_request(spec),
            "GET /items?page=2 HTTP/1.1\r\n"
            "Host: 127.0.0.1:8080\r\n" +
                kUserAgent +
                "Accept: application/json\r\n"
                "X-Trace: abc\r\n"
                "\r\n");
}

TEST(BuildRequest, PostWithBodyExactBytes) {
  RequestSpec spec = spec_for("POST", "http://localhost/submit");
  spec.headers = {{"Content-Type", "application/json"}};
  spec.body = R"({"a":1})";
  EXPECT_EQ(build_request(spec),
            "POST /submit HTTP/1.1\r\n"
            "Host: localhost\r\n" +
                kUserAgent +
                "Content-Length: 7\r\n"
                "Content-Type: application/json\r\n"
                "\r\n"
                R"({"a":1})");
}

TEST(BuildRequest, PostWithoutBodySendsZeroLength) {
  // Servers answer 411 Length Required to a POST without a length.
  EXPECT_EQ(build_request(spec_for("POST", "http://h/")),
            "POST / HTTP/1.1\r\nHost: h\r\n" + kUserAgent + "Content-Length: 0\r\n\r\n");
  EXPECT_EQ(build_request(spec_for("GET", "http://h/")),
            "GET / HTTP/1.1\r\nHost: h\r\n" + kUserAgent + "\r\n");
}

TEST(BuildRequest, UserHostReplacesUrlHostAndStaysFirst) {
  RequestSpec spec = spec_for("GET", "http://10.0.0.1:8080/");
  spec.headers = {{"Accept", "*/*"}, {"host", "api.example.com"}};
  EXPECT_EQ(build_request(spec),
            "GET / HTTP/1.1\r\n"
            "Host: api.example.com\r\n" +
                kUserAgent +
                "Accept: */*\r\n"
                "\r\n");
}

TEST(BuildRequest, UserAgentAndMatchingContentLengthAreNotDuplicated) {
  RequestSpec spec = spec_for("PUT", "http://h/k");
  spec.headers = {{"User-Agent", "custom/1"}, {"Content-Length", "2"}};
  spec.body = "hi";
  EXPECT_EQ(build_request(spec),
            "PUT /k HTTP/1.1\r\n"
            "Host: h\r\n"
            "User-Agent: custom/1\r\n"
            "Content-Length: 2\r\n"
            "\r\n"
            "hi");
}

TEST(BuildRequest, RejectsWhatWouldCorruptTheConnection) {
  RequestSpec bad_method = spec_for("GE T", "http://h/");
  EXPECT_THROW(build_request(bad_method), UsageError);
  RequestSpec empty_method = spec_for("", "http://h/");
  EXPECT_THROW(build_request(empty_method), UsageError);

  RequestSpec wrong_length = spec_for("POST", "http://h/");
  wrong_length.body = "abc";
  wrong_length.headers = {{"Content-Length", "10"}};
  EXPECT_THROW(build_request(wrong_length), UsageError);

  RequestSpec chunked = spec_for("POST", "http://h/");
  chunked.headers = {{"Transfer-Encoding", "chunked"}};
  EXPECT_THROW(build_request(chunked), UsageError);

  RequestSpec two_hosts = spec_for("GET", "http://h/");
  two_hosts.headers = {{"Host", "a"}, {"Host", "b"}};
  EXPECT_THROW(build_request(two_hosts), UsageError);

  // Headers may come from scenario files, not only -H, so build_request checks them too.
  RequestSpec injected = spec_for("GET", "http://h/");
  injected.headers = {{"X-A", "1\r\nX-Evil: 2"}};
  EXPECT_THROW(build_request(injected), UsageError);
}

TEST(BuildRequest, CustomMethodTokenIsSentAsIs) {
  EXPECT_EQ(build_request(spec_for("PURGE", "http://h/c")),
            "PURGE /c HTTP/1.1\r\nHost: h\r\n" + kUserAgent + "\r\n");
}

}  // namespace
}  // namespace proofload::http
