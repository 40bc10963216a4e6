#!/usr/bin/env bash
# Heap allocations per run, for two request counts, closed and open loop (valgrind memcheck):
# if the totals do not grow with the number of requests, the steady state allocates nothing
# per request.
#
#   bench/allocations.sh [path/to/proofload]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
command -v valgrind >/dev/null || { echo "needs valgrind"; exit 1; }
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$proofload" serve --port 0 >"$work/serve.out" &
server_pid=$!
for _ in $(seq 100); do grep -q '^listening' "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
url="http://127.0.0.1:$(grep -m1 -o '[0-9]*$' "$work/serve.out")/"

printf '%-28s %10s %12s\n' run requests heap_allocs
for mode in "closed loop:-c 4" "open loop 5000/s:--rate 5000 -c 4"; do
  for n in 2000 20000; do
    allocs=$(valgrind "$proofload" run "$url" ${mode#*:} -n "$n" --workers 1 -q 2>&1 >/dev/null |
      awk '/total heap usage/ {gsub(",", "", $5); print $5}')
    printf '%-28s %10s %12s\n' "${mode%%:*}" "$n" "$allocs"
  done
done
