#!/usr/bin/env bash
# Heap allocations per run, for two request counts, closed and open loop (valgrind memcheck):
# if the totals do not grow with the number of requests, the steady state allocates nothing
# per request.
#
#   bench/allocations.sh [path/to/proofload]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
command -v valgrind >/dev/null || { echo "needs valgrind"; exit 1; }
source "$(dirname "$0")/lib.sh"
start_serve - "$proofload"
url="http://127.0.0.1:$SERVE_PORT/"

printf '%-28s %10s %12s\n' run requests heap_allocs
for mode in "closed loop:-c 4" "open loop 5000/s:--rate 5000 -c 4"; do
  for n in 2000 20000; do
    allocs=$(valgrind "$proofload" run "$url" ${mode#*:} -n "$n" --workers 1 -q 2>&1 >/dev/null |
      awk '/total heap usage/ {gsub(",", "", $5); print $5}')
    printf '%-28s %10s %12s\n' "${mode%%:*}" "$n" "$allocs"
  done
done
