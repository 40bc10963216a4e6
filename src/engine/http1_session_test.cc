// HTTP/1.1's session: the request written in pieces, and each way a response read back ends.
#include "engine/http1_session.h"

#include <gtest/gtest.h>

#include <string>

namespace proofload::engine {
namespace {

constexpr std::string_view kGet = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";

ReadStep receive_all(Http1Session& session, std::string_view bytes) {
  return session.receive(bytes.data(), bytes.size(), 0);
}

// A request submitted and written whole, its response still to come.
void send_whole(Http1Session& session, std::string_view request,
                const http::ResponseCapture& capture = {}) {
  session.submit(request, false, capture);
  session.wrote(request.size());
}

TEST(Http1Session, TheRequestIsWrittenInPiecesAndOnlyItsRestIsOffered) {
  Http1Session session;
  session.submit(kGet, false, {});
  EXPECT_EQ(session.output(), kGet);
  EXPECT_FALSE(session.request_written());
  session.wrote(4);
  EXPECT_EQ(session.output(), kGet.substr(4));
  session.wrote(kGet.size() - 4);
  EXPECT_TRUE(session.output().empty());
  EXPECT_TRUE(session.request_written());
}

TEST(Http1Session, AResponseInTwoReadsCompletesAndTheNextRequestStartsAfresh) {
  Http1Session session;
  http::ResponseCapture capture;
  capture.headers = true;
  capture.max_body_bytes = 16;
  send_whole(session, kGet, capture);
  EXPECT_EQ(receive_all(session, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhe"),
            ReadStep::kNeedMore);
  EXPECT_EQ(receive_all(session, "llo"), ReadStep::kCompleteReusable);
  EXPECT_EQ(session.response().status, 200);
  EXPECT_NE(session.response().headers.find("X-A: 1"), std::string_view::npos);
  EXPECT_EQ(session.response().body, "hello");

  // Keep-alive: the next request is whole again, and so is its response.
  session.submit(kGet, false, {});
  EXPECT_EQ(session.output(), kGet);
  session.wrote(kGet.size());
  EXPECT_EQ(receive_all(session, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            ReadStep::kCompleteReusable);
  EXPECT_EQ(session.response().status, 404);
}

// Time to first byte counts to the first read that brought bytes of this request's response.
TEST(Http1Session, TheFirstByteIsTheFirstReadOfEachResponse) {
  Http1Session session;
  send_whole(session, kGet);
  EXPECT_EQ(session.first_byte_ns(), -1);
  const std::string_view head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
  EXPECT_EQ(session.receive(head.data(), head.size(), 100), ReadStep::kNeedMore);
  EXPECT_EQ(session.receive("ok", 2, 250), ReadStep::kCompleteReusable);
  EXPECT_EQ(session.first_byte_ns(), 100);
  send_whole(session, kGet);
  EXPECT_EQ(session.first_byte_ns(), -1) << "the next request's response has not begun";
  const std::string whole = std::string(head) + "ok";
  EXPECT_EQ(session.receive(whole.data(), whole.size(), 900), ReadStep::kCompleteReusable);
  EXPECT_EQ(session.first_byte_ns(), 900);
}

TEST(Http1Session, AnAnswerBeforeTheWholeRequestWasWrittenEndsTheConnection) {
  Http1Session session;
  session.submit(kGet, false, {});
  session.wrote(3);
  EXPECT_EQ(receive_all(session, "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n"),
            ReadStep::kCompleteNotReusable);
  EXPECT_EQ(session.response().status, 413);
}

TEST(Http1Session, BytesBeyondTheResponseOrNoHttpAtAllAreProtocolErrors) {
  Http1Session session;
  send_whole(session, kGet);
  EXPECT_EQ(receive_all(session, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nextra"),
            ReadStep::kProtocolError);
  send_whole(session, kGet);
  EXPECT_EQ(receive_all(session, "SSH-2.0-OpenSSH\r\n"), ReadStep::kProtocolError);
}

TEST(Http1Session, AHeadResponsesLengthCarriesNoBody) {
  Http1Session session;
  session.submit("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", true, {});
  session.wrote(session.output().size());
  EXPECT_EQ(receive_all(session, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"),
            ReadStep::kCompleteReusable);
}

TEST(Http1Session, TheServersCloseEndsABodyDelimitedByItAndResetsAnyOther) {
  Http1Session close_delimited;
  send_whole(close_delimited, kGet);
  EXPECT_EQ(receive_all(close_delimited, "HTTP/1.1 200 OK\r\n\r\nbody until the close"),
            ReadStep::kNeedMore);
  EXPECT_EQ(close_delimited.receive_close(false), ReadStep::kCompleteNotReusable);

  // Over TLS, a bare FIN without close_notify says nothing about where such a body ends.
  Http1Session truncated;
  send_whole(truncated, kGet);
  EXPECT_EQ(receive_all(truncated, "HTTP/1.1 200 OK\r\n\r\nbody"), ReadStep::kNeedMore);
  EXPECT_EQ(truncated.receive_close(true), ReadStep::kTruncated);

  // A body with a length, cut short by the close: a reset.
  Http1Session cut;
  send_whole(cut, kGet);
  EXPECT_EQ(receive_all(cut, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
            ReadStep::kNeedMore);
  EXPECT_EQ(cut.receive_close(false), ReadStep::kReset);
}

}  // namespace
}  // namespace proofload::engine
