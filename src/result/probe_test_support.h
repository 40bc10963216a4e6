// Probe results as a finished probe records them, for the result file's and the report's tests:
// one where two sources share an allowance (a third failed; a header lifted the limit, another
// did not) and one where three have their own. Built from analyze/probe_test_support.h's
// simulated sources and judged with their words, as the probe does. Test-only; pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/probe_analysis.h"
#include "analyze/probe_test_support.h"
#include "result/probe_expectation.h"
#include "result/probe_result.h"
#include "words/probe_words.h"

namespace proofload::result::testing_support {

inline ProbeResult probe_result(std::vector<analyze::ProbeSourceSeries> series,
                                std::optional<std::string> expect) {
  using namespace analyze::testing_support;
  ProbeResult r;
  r.status = "complete";
  r.proofload_version = "0.1.0";
  r.command_line = "proofload probe http://127.0.0.1:8080/api --sources 3 --duration 60s";
  r.started_at = "2024-05-01T12:00:00.000Z";
  r.finished_at = "2024-05-01T12:01:00.250Z";
  r.source.target = "http://127.0.0.1:8080/api";
  r.source.protocol = "http/1.1";
  for (const analyze::ProbeSourceSeries& s : series) r.settings.sources.push_back(s.address);
  r.settings.connections_per_source = 4;
  r.settings.duration_s = kProbeDurationS;
  r.settings.settle_s = kProbeSettleS;
  r.settings.expect = expect;
  r.measured_s = kProbeDurationS;
  r.series = std::move(series);
  std::optional<analyze::ProbeExpectation> expectation;
  if (expect) expectation = parse_probe_expectation(*expect, r.settings.tolerance);
  r.analysis = words::described_probe(r.series, r.settings.duration_s, r.settings.settle_s,
                                      expectation, r.settings.tolerance);
  return r;
}

// 127.0.0.2 and 127.0.0.3 share one bucket; 127.0.0.4 could not connect; with
// `X-Internal: yes` the limit is lifted, with `Origin: https://example.test` it holds.
inline ProbeResult shared_probe() {
  Rng rng = make_rng(21, 0);
  std::vector<analyze::ProbeSourceSeries> series = analyze::testing_support::sharing(2, rng);
  series.push_back(analyze::testing_support::probe_source(2));
  series.back().failure = "connect to 127.0.0.1:8080 from 127.0.0.4: connection refused";
  series[0].headers = {{"X-RateLimit-Remaining", "599", "0"}, {"Retry-After", "1", "1"}};
  series[1].headers = {{"X-RateLimit-Remaining", "598", "0"}};
  ProbeResult r = probe_result(std::move(series), "100/s,burst=600");
  r.settings.variants = {"X-Internal: yes", "Origin: https://example.test"};
  r.settings.variant_duration_s = 5;
  r.variants.push_back(
      words::described_variant({"X-Internal: yes", "127.0.0.2", 5, 3120, 0, 0}, 100, 600));
  r.variants.push_back(words::described_variant(
      {"Origin: https://example.test", "127.0.0.2", 5, 412, 2708, 0}, 100, 600));
  Event precheck;
  precheck.kind = "precheck";
  precheck.name = "precheck";
  precheck.command = "curl -fsS http://127.0.0.1:8080/health";
  precheck.ok = true;
  precheck.exit_code = 0;
  precheck.duration_s = 0.05;
  r.events.push_back(precheck);
  return r;
}

// Three sources, each with its own allowance; 127.0.0.3's first 429 came after 30 (instances
// splitting its allowance). No --expect, no variants.
inline ProbeResult separate_probe() {
  Rng rng = make_rng(22, 0);
  using analyze::testing_support::own_allowance;
  return probe_result({own_allowance(0, rng), own_allowance(1, rng, 30), own_allowance(2, rng)},
                      std::nullopt);
}

}  // namespace proofload::result::testing_support
