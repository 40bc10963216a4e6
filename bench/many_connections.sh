#!/usr/bin/env bash
# Many connections on one core: the built-in server on CPU 1; proofload on CPU 0, one worker,
# closed loop with CONNECTIONS connections for DURATION s, over io_uring then epoll, ROUNDS times
# (A B A B), started with a soft file-descriptor limit of 1,024 so that proofload raises it
# itself (as far as the hard limit allows; past it, it refuses with one line). For each run:
# requests/s, connections opened, errors, CPU per request and peak RSS.
#
#   bench/many_connections.sh [path/to/proofload] [CONNECTIONS=10000] [DURATION=5] [ROUNDS=2]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
connections=${2:-10000}
duration=${3:-5}
rounds=${4:-2}
source "$(dirname "$0")/lib.sh"
work=$bench_work
hard=$(ulimit -Hn)
start_serve 1 "$proofload"
port=$SERVE_PORT

printf '%-7s %5s %11s %9s %7s %14s %9s\n' io round requests/s connects errors cpu_s_per_1M rss_MiB
for round in $(seq "$rounds"); do
  for io in uring epoll; do
    rm -rf "$work/out"
    /usr/bin/time -f "%U %S %M" -o "$work/time" prlimit --nofile="1024:$hard" taskset -c 0 \
      "$proofload" run "http://127.0.0.1:$port/" -c "$connections" --workers 1 -d "${duration}s" \
      --io "$io" -q --out "$work/out" >/dev/null
    python3 - "$work/out/result.json" "$work/time" "$io" "$round" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
user, system, rss_kb = open(sys.argv[2]).read().split()
cost = (float(user) + float(system)) / s["requests"] * 1e6
print("%-7s %5s %11.0f %9d %7d %14.2f %9.1f" % (sys.argv[3], sys.argv[4], s["throughput_rps"],
      s["connects"], s["errors"], cost, int(rss_kb) / 1024))
PY
  done
done
