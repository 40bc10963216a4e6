// What one `prom:` observer may hold, named after the Prometheus scrape settings that do the same
// (body_size_limit, sample_limit, label_value_length_limit), so that an endpoint outside our
// control (a hostile or broken one) costs a bounded amount of memory, disk and time. Plain
// constants: the sampler enforces them, the reports word what they dropped.
#pragma once

#include <cstddef>

namespace proofload::observe {

// body_size_limit: a response body past this is not read on and the scrape is skipped (a gap),
// as Prometheus fails it. node_exporter serves ~0.1-0.5 MiB, a mid-size cluster's
// kube-state-metrics a few MiB; ?match= may keep a few families of a larger page, so the bound is
// generous: it is one buffer reused from scrape to scrape, read under the scrape's deadline and
// parsed in one linear pass, so it costs time per scrape, never memory that grows.
constexpr size_t kPromBodySizeLimitBytes = size_t{16} << 20;

// sample_limit, over the run: the first this many distinct series (after ?match=) are kept;
// series first seen once that many are kept are not, in every later scrape, and each scrape
// counts them. node_exporter exposes ~1-3k series, a small cluster's kube-state-metrics up to
// ~10k; every kept series is a figure or two in every window of result.json and of the
// dashboard's events (~150 bytes each), so 10,000 series cost ~1.5 MB a window at most.
// Prometheus fails a scrape over its sample_limit; keeping the first ones keeps the figures of a
// run continuous while an endpoint churns new labels every scrape.
constexpr size_t kPromSeriesLimit = 10'000;

// label_value_length_limit, for the whole series key (`name{label="value",...}` as exposed): a
// series whose key passes this is skipped in each scrape and counted. Real keys are under a few
// hundred bytes (cAdvisor's longest, with a container's id, image and labels, under 2 KiB);
// the bound keeps 10,000 kept keys under 20 MiB however hostile the endpoint.
constexpr size_t kPromSeriesKeyLimitBytes = 2048;

// The readings (gauges) a sample carries when the limits left something out; the run's totals
// of each are `<name>_peak`, which the reports word.
// Series in the scrape not kept because kPromSeriesLimit series were already kept:
constexpr const char* kPromSeriesNotKept = "prom_series_not_kept";
// Series in the scrape skipped for a key over kPromSeriesKeyLimitBytes:
constexpr const char* kPromSeriesTooLong = "prom_series_too_long";
// Scrapes skipped (gaps) so far for a body over kPromBodySizeLimitBytes:
constexpr const char* kPromScrapesOverBodyLimit = "prom_scrapes_over_body_limit";

}  // namespace proofload::observe
