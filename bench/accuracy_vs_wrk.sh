#!/usr/bin/env bash
# Latency accuracy on a known stall, proofload beside wrk. The built-in server answers in 1 ms
# but freezes for 1 s every 5 s (first at 2 s); 1,000 requests/s arrive for 15 s, so 20% arrive
# during a stall and wait out the rest of it. Truth by construction:
#   p50 1 ms, p90 501 ms, p99 951 ms, p99.9 996 ms, mean 101 ms.
# Each generator gets a freshly started server (so the stalls fall at the same times), pinned
# apart: server on CPU 1, generator on CPU 0. wrk is closed loop (it cannot hold a rate); wrk2,
# which can, is not packaged by Debian and is not measured here.
#
#   bench/accuracy_vs_wrk.sh [path/to/proofload]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
source "$(dirname "$0")/lib.sh"
work=$bench_work
stall_flags=(--delay 1ms --stall 1s --stall-every 5s --stall-first 2s)

printf '%-34s %9s %9s %9s %9s %9s\n' generator p50_ms p90_ms p99_ms p99.9_ms mean_ms
printf '%-34s %9s %9s %9s %9s %9s\n' "truth (by construction)" 1 501 951 996 101

start_serve 1 "$proofload" "${stall_flags[@]}"
port=$SERVE_PORT
taskset -c 0 "$proofload" run "http://127.0.0.1:$port/" --rate 1000 -d 15s -c 100 --workers 1 \
  -q --out "$work/pl" >/dev/null
stop_serve
python3 - "$work/pl/result.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["summary"]["latency_ms"]
print("%-34s %9.1f %9.1f %9.1f %9.1f %9.1f" % ("proofload (open loop 1000/s, c100)",
      l["p50"], l["p90"], l["p99"], l["p99_9"], l["mean"]))
PY

start_serve 1 "$proofload" "${stall_flags[@]}"
port=$SERVE_PORT
taskset -c 0 wrk -t1 -c100 -d15s --latency "http://127.0.0.1:$port/" >"$work/wrk.out"
stop_serve
python3 - "$work/wrk.out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(v, unit):
    return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[unit]
pct = {p: ms(v, u) for p, v, u in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)}
avg = re.search(r"Latency\s+([\d.]+)(us|ms|s|m)", text)
print("%-34s %9.1f %9.1f %9.1f %9s %9.1f" % ("wrk (closed loop, c100)", pct["50"], pct["90"],
      pct["99"], "-", ms(*avg.groups())))
PY
