// Test-only cross-check: reads an HdrHistogram interval log with hdr-histogram-js (a port of
// the reference Java implementation) and prints, per interval, what that implementation sees.
// Usage: node check.js FILE  ->  JSON array on stdout; exit 1 with a message on any error.
"use strict";
const fs = require("fs");
const hdr = require("hdr-histogram-js");

function main() {
  if (process.argv.length !== 3) {
    throw new Error("usage: node check.js FILE");
  }
  const content = fs.readFileSync(process.argv[2], "utf8");
  // 64-bit buckets: counts stay exact up to 2^53 (the default 32-bit ones would wrap).
  const reader = new hdr.HistogramLogReader(content, 64);
  const intervals = [];
  for (let h = reader.nextIntervalHistogram(); h !== null; h = reader.nextIntervalHistogram()) {
    intervals.push({
      tag: h.tag === "NO TAG" ? "" : h.tag, // the package's NO_TAG
      start_ms: h.startTimeStampMsec,
      end_ms: h.endTimeStampMsec,
      lowest: h.lowestDiscernibleValue,
      highest: h.highestTrackableValue,
      figures: h.numberOfSignificantValueDigits,
      total: h.totalCount,
      min: h.totalCount === 0 ? 0 : h.minNonZeroValue,
      p50: h.getValueAtPercentile(50),
      p90: h.getValueAtPercentile(90),
      p99: h.getValueAtPercentile(99),
      p999: h.getValueAtPercentile(99.9),
      max: h.maxValue,
      mean: h.mean,
    });
    h.destroy();
  }
  process.stdout.write(JSON.stringify(intervals) + "\n");
}

try {
  main();
} catch (e) {
  process.stderr.write("check.js: " + (e && e.message ? e.message : String(e)) + "\n");
  process.exit(1);
}
