#!/usr/bin/env bash
# How late open-loop requests leave, against a server that answers at once: latency counts from
# the scheduled time and service time from the first byte written, so (latency - service time)
# is the time a request waited to be sent (timer wake-up, event loop, queue). Built-in server on
# CPU 1, proofload on CPU 0, RATE requests/s for 10 s, 20 connections.
#
#   bench/schedule_lag.sh [path/to/proofload] [RATE=1000]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
rate=${2:-1000}
source "$(dirname "$0")/lib.sh"
work=$bench_work
start_serve 1 "$proofload"
port=$SERVE_PORT

taskset -c 0 "$proofload" run "http://127.0.0.1:$port/" --rate "$rate" -d 10s -c 20 --workers 1 \
  -q --out "$work/out" >/dev/null
python3 - "$work/out/result.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
l, v = s["latency_ms"], s["service_time_ms"]
print("%-14s %9s %9s %9s %9s" % ("ms", "p50", "p99", "p99.9", "mean"))
for name, d in (("latency", l), ("service time", v)):
    print("%-14s %9.3f %9.3f %9.3f %9.3f" % (name, d["p50"], d["p99"], d["p99_9"], d["mean"]))
print("%-14s %9.3f %9.3f %9.3f %9.3f" % ("difference", l["p50"] - v["p50"], l["p99"] - v["p99"],
      l["p99_9"] - v["p99_9"], l["mean"] - v["mean"]))
PY
