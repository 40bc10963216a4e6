#!/usr/bin/env bash
# How late open-loop requests leave, against the built-in server: result.json's send lag is each
# request's first byte written minus its scheduled start (a timer's wake-up, a turn of the loop,
# a wait for a connection), and the achieved rate is set against the target. Built-in server on
# CPU 1; proofload on CPU 0, one worker, a pool of 1,000 connections opened before the start
# (enough that the moments the server stalls do not leave arrivals waiting for a connection),
# RATE requests/s for DURATION seconds, over io_uring then epoll, ROUNDS times (A B A B).
#
#   bench/schedule_lag.sh [path/to/proofload] [RATE=100000] [DURATION=10] [ROUNDS=2]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
rate=${2:-100000}
duration=${3:-10}
rounds=${4:-2}
source "$(dirname "$0")/lib.sh"
work=$bench_work
start_serve 1 "$proofload"
port=$SERVE_PORT

printf '%-9s %5s %10s %9s %9s %9s %9s %9s\n' io round rps off% lag_p50 lag_p99 lag_p99.9 lag_max
for round in $(seq "$rounds"); do
  for io in uring epoll; do
    rm -rf "$work/out"
    taskset -c 0 "$proofload" run "http://127.0.0.1:$port/" --rate "$rate" -d "${duration}s" \
      -c 1000 --workers 1 --io "$io" -q --out "$work/out" >/dev/null
    python3 - "$work/out/result.json" "$io" "$round" "$rate" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
io, rnd, rate = sys.argv[2], sys.argv[3], float(sys.argv[4])
lag, rps = s["send_lag_ms"], s["throughput_rps"]
us = lambda ms: "%.0f us" % (ms * 1000)
print("%-9s %5s %10.0f %+8.2f%% %9s %9s %9s %9s" % (io, rnd, rps, 100 * (rps - rate) / rate,
      us(lag["p50"]), us(lag["p99"]), us(lag["p99_9"]), us(lag["max"])))
PY
  done
done
