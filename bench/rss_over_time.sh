#!/usr/bin/env bash
# The generator's memory over a long run: proofload, 64 connections, closed loop, against the
# built-in server (pinned apart), for DURATION seconds; VmRSS sampled every 10 s from /proc.
# Flat means the recorder keeps no per-request or per-window state that grows with time.
#
#   bench/rss_over_time.sh [path/to/proofload] [DURATION=300]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-300}
source "$(dirname "$0")/lib.sh"
work=$bench_work
start_serve 1 "$proofload"
port=$SERVE_PORT

taskset -c 0 "$proofload" run "http://127.0.0.1:$port/" -c 64 --workers 1 -d "${duration}s" -q \
  --out "$work/out" >/dev/null &
pid=$!
echo "elapsed_s rss_MiB"
elapsed=0
while kill -0 "$pid" 2>/dev/null; do
  rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss_kb" ] && awk -v t="$elapsed" -v k="$rss_kb" 'BEGIN {printf "%9d %7.1f\n", t, k/1024}'
  sleep 10
  elapsed=$((elapsed + 10))
done
wait "$pid"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print("requests %d, windows recorded" % s["requests"])' "$work/out/result.json"
