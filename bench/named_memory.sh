#!/usr/bin/env bash
# Peak memory of a run against the number of named requests in its scenario: each named request
# keeps its own latency histograms in every worker, allocated only as far as its latencies reach.
# N requests of one route each, closed loop, 8 connections, two workers, 3 s, against the
# built-in server; peak RSS from /usr/bin/time.
#
#   bench/named_memory.sh [path/to/proofload] [COUNTS="1 100 1000"]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
counts=${2:-"1 100 1000"}
source "$(dirname "$0")/lib.sh"
start_serve - "$proofload"
printf '%-16s %14s\n' "named requests" "peak RSS MiB"
for n in $counts; do
  file="$bench_work/named-$n.yaml"
  { echo "requests:"; for i in $(seq "$n"); do echo "  r$i: {path: /hello}"; done; } >"$file"
  kb=$(/usr/bin/time -f "%M" "$proofload" run "$file" "http://127.0.0.1:$SERVE_PORT" -c 8 \
         --workers 2 -d 3s -q -o "$bench_work/out-$n" 2>&1 >/dev/null | tail -1)
  printf '%-16s %14.1f\n' "$n" "$(python3 -c "print($kb / 1024)")"
done
