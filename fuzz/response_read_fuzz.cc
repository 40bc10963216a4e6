// A hostile server's bytes through the engine's HTTP/1.1 session (engine/http1_session.h: the
// parser and the read step), taken as the worker takes them: in reads whose sizes the input
// chooses, until the response is complete or the input ends (then the peer closes). A complete
// response then goes through the scenario's checks and extraction, as Worker::complete_request
// does: statuses, headers, JSON pointers, RE2 patterns over the kept body. Then the session takes
// a second request, as a keep-alive connection does. Every body piece also goes, as it is parsed,
// through a stream's tracker (the event-stream parser, content and token pointers, a fixture), as
// a streamed request's body will: whatever the server sends, it must stay bounded and never crash.
//
// Input: byte 0 picks the request (bit 0: the HEAD one) and the read sizes (bits 1-7); the rest
// is what the server sends.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "engine/http1_session.h"
#include "http/response_parser.h"
#include "http/url.h"
#include "workload/scenario_yaml.h"
#include "workload/secrets.h"
#include "workload/session.h"
#include "workload/stream_tracker.h"
#include "workload/workload.h"

namespace {

using proofload::engine::ReadStep;

constexpr std::string_view kScenario = R"(requests:
  get:
    path: /items/1
    checks:
      - status: 2xx
      - body_contains: '"id"'
      - body_matches: '(a+)+$'
      - json: {path: /items/0/id, equals: 42}
    extract:
      id: {json: /id}
      tag: {regex: 'tag=(\w+)', group: 1}
      where: {header: Location}
  head: {method: HEAD, path: /}
mix: {get: 3, head: 1}
)";

struct Harness {
  Harness() {
    proofload::workload::Scenario scenario =
        proofload::workload::parse_scenario_yaml(kScenario, "fuzz.yaml", "");
    proofload::workload::SecretStore secrets;
    workload = proofload::workload::Workload::compile(
        scenario, proofload::http::parse_url("http://127.0.0.1:1/"), secrets, 1);
  }
  std::shared_ptr<const proofload::workload::Workload> workload;
  proofload::workload::StreamRules stream_rules = [] {
    proofload::workload::StreamRules rules;
    rules.content = proofload::workload::JsonPointer::parse("/choices/0/delta/content");
    rules.tokens = proofload::workload::JsonPointer::parse("/usage/completion_tokens");
    rules.fixture = std::make_shared<const std::string>("data: {\"a\":1}\n\ndata: [DONE]\n\n");
    return rules;
  }();
  // The same read as a chunked stream: each chunk an event, its data read for content.
  proofload::workload::StreamRules chunked_rules = [] {
    proofload::workload::StreamRules rules;
    rules.kind = proofload::workload::StreamKind::kChunked;
    rules.terminator.clear();
    rules.content = proofload::workload::JsonPointer::parse("/choices/0/delta/content");
    return rules;
  }();
};

// The body's pieces into a stream's tracker, each at a later time.
struct StreamBody : proofload::http::BodySink {
  StreamBody() : tracker(proofload::http::SseLimits{4096, 4096}) {}
  void on_body_piece(std::string_view piece) override { tracker.feed(piece, ++now_ns); }
  void on_chunk_end() override { tracker.end_chunk(); }
  proofload::workload::StreamTracker tracker;
  int64_t now_ns = 0;
};

// Reads one response from `bytes` (advancing it); the read step's last verdict.
ReadStep read_one(proofload::engine::Http1Session& http1, std::string_view& bytes,
                  uint8_t read_sizes) {
  size_t read = 0;
  while (!bytes.empty()) {
    // Sizes 1 to 4096 bytes, varying read by read: splits land inside every token.
    const size_t size = std::min(bytes.size(), 1 + ((read_sizes * 131u + read * 977u) % 4096u));
    ++read;
    const ReadStep step = http1.receive(bytes.data(), size, static_cast<int64_t>(read));
    bytes.remove_prefix(size);
    if (step != ReadStep::kNeedMore) return step;
  }
  return http1.receive_close(false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness harness;
  if (size == 0) return 0;
  const uint8_t control = data[0];
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);

  proofload::workload::WorkerContext context(*harness.workload, 0, 1);
  proofload::workload::Session session;
  session.bind(*harness.workload);
  proofload::engine::Http1Session http1;  // as the Worker reads a connection's responses
  StreamBody stream;
  for (int response = 0; response < 2; ++response) {
    // The mix draws the request; the input's bit 0 turns a GET into the HEAD and back.
    const proofload::workload::CompiledRequest* request = &session.begin_step(context);
    if ((control & 1) != 0 && !request->is_head) {
      session.abandon();
      request = &session.begin_step(context);
    }
    proofload::http::ResponseCapture capture = request->capture;
    capture.body_sink = &stream;
    // The input's bit 7 reads the body as a chunked stream instead of server-sent events.
    stream.tracker.start((control & 0x80) != 0 ? harness.chunked_rules : harness.stream_rules, 0,
                         nullptr);
    http1.submit(session.request_bytes(), request->is_head, capture);
    http1.wrote(http1.output().size());
    const ReadStep step = read_one(http1, bytes, control >> 1);
    stream.tracker.finish();
    if (step == ReadStep::kCompleteReusable || step == ReadStep::kCompleteNotReusable) {
      // A whole response has a first byte, dated by the read that brought it (TTFB is recorded
      // from it).
      if (http1.first_byte_ns() < 1) std::abort();
      session.on_response(http1.response());
    } else {
      session.on_failure(proofload::measure::Outcome::kProtocolError);
    }
    if (step != ReadStep::kCompleteReusable) break;
  }
  return 0;
}
