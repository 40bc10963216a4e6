// The `prom:URL[?match=a,b]` observer: scrapes a Prometheus text exposition endpoint (the
// built-in server's /metrics, a node exporter, a service's own metrics, cAdvisor) once per
// sample, with one HTTP/1.1 GET over a fresh connection bounded by a timeout. Each series is a
// Reading named by its key as exposed (`http_requests_total{route="lookup",code="200"}`);
// counters (and histograms' buckets, sums and counts, summaries' sums and counts) are counters,
// everything else a gauge. A sampler is used by one sampler thread only (not thread-safe).
//
// Spec: `prom:http://host[:port]/path[?query]`. http only; any host (an IP literal, or a name
// resolved once, when the sampler is made). The `match` query parameter is proofload's, not the
// endpoint's: `?match=node_cpu,node_memory_` keeps only the families whose name starts with one
// of the comma-separated prefixes (a histogram's or summary's series go with their family); it
// may be given more than once and is not sent. Other query parameters are sent as written.
//
// What one sampler may hold is bounded (prom_limits.h): a body over 16 MiB is skipped, at most
// 10,000 distinct series are kept over the run (the first seen), a series key over 2 KiB is
// skipped; the fetch has a deadline and the parse is one linear pass, so a hostile endpoint
// costs neither memory that grows nor a run that ends late.
//
// A sample is a gap (ok=false, a one-line error) when the connection is refused or fails, the
// timeout passes, the response is not HTTP, its status is not 200, its body is compressed or over
// the body limit, or it has no valid series. Otherwise it holds the series (none when `match`
// keeps none) and, when there were any:
//   "prom_bad_lines" (gauge): malformed lines skipped;
//   "prom_series_not_kept", "prom_series_too_long", "prom_scrapes_over_body_limit" (gauges):
//   what the limits left out (prom_limits.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/clock.h"
#include "net/tls.h"
#include "observe/sampler.h"

namespace proofload::observe {

// Connect, send and read together take at most this long by default.
constexpr int64_t kPromDefaultTimeoutNs = 2 * kNsPerS;

// The timeout to give make_prom_sampler for a sampling period: the default, and never more than
// 80% of the period, so that a hanging endpoint still leaves the sampler thread time for the
// other observers. A period <= 0 means none was given.
int64_t prom_timeout_ns(int64_t period_ns);

// nullptr when `spec` does not start with "prom:". Throws UsageError (one line) for a malformed
// URL, a scheme other than http, an empty or invalid `match` prefix, or a host name that cannot
// be resolved. `timeout_ns` <= 0 means kPromDefaultTimeoutNs.
// An https endpoint is verified as `trust` says (the command's --cacert, --insecure).
std::unique_ptr<Sampler> make_prom_sampler(std::string_view spec, int64_t timeout_ns,
                                           const net::TlsOptions& trust = {});

// What make_prom_sampler refuses in a "prom:" spec's form (its URL, its match list), with nothing
// resolved: --plan's check. Throws UsageError.
void check_prom_spec(std::string_view spec);

}  // namespace proofload::observe
