#!/usr/bin/env bash
# What a probe costs the generator per request, against a plain run at the same load, in one run:
# the built-in server (pinned to CPU 1) answers a rate-limited route (100/s per address, so nearly
# every answer is a 429 with Retry-After and RateLimit headers, as a probe sees them); proofload
# (pinned to CPU 0) alternates (A B C A B C ...) between
#   plain:   `run` with 2 workers, no source addresses;
#   sources: `run --sources 2` (each worker bound to its address, per-source counts per window);
#   probe:   `probe --sources 2` (the same, and every answer's rate-limit headers noted, the
#            per-second CSVs streamed),
# each open loop at RATE requests/s in all for DURATION s with 2 connections per worker. For each
# run: generator CPU (user + system, from /usr/bin/time), responses, CPU-s per million; then each
# kind's median against plain's.
#
#   bench/probe_cost.sh [path/to/proofload] [RATE=20000] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
rate=${2:-20000}
duration=${3:-10}
rounds=${4:-3}
source "$(dirname "$0")/lib.sh"
work=$bench_work

cat >"$work/routes.yaml" <<'YAML'
routes:
  - {path: /limited, body: "ok\n", limit: {rate: 100, burst: 100}}
YAML
start_serve 1 "$proofload" --routes "$work/routes.yaml"
url="http://127.0.0.1:$SERVE_PORT/limited"
half=$(awk -v r="$rate" 'BEGIN {print r / 2}')

# Runs one generator under /usr/bin/time; prints "user sys responses".
timed() {
  local result=$1
  shift
  rm -rf "$work/out"
  /usr/bin/time -f "%U %S" -o "$work/time" taskset -c 0 "$proofload" "$@" -q --out "$work/out" \
    >/dev/null 2>"$work/stderr" || [ $? -eq 99 ]  # a probe's verdict is not this benchmark's business
  responses=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requests"])' \
    "$work/out/$result")
  echo "$(cat "$work/time") $responses"
}
run_plain() { timed result.json run "$url" --rate "$rate" -c 4 --workers 2 -d "${duration}s"; }
run_sources() { timed result.json run "$url" --rate "$rate" -c 4 --sources 2 -d "${duration}s"; }
run_probe() {
  timed run/result.json probe "$url" --sources 2 -c 2 --rate-per-source "$half" \
    -d "${duration}s" --settle 1s
}

printf '%-8s %5s %12s %10s %10s %14s\n' kind round responses user_s sys_s cpu_s_per_1M
declare -A costs
for round in $(seq "$rounds"); do
  for kind in plain sources probe; do
    read -r user sys responses < <(run_$kind)
    cost=$(awk -v u="$user" -v s="$sys" -v n="$responses" 'BEGIN {printf "%.2f", (u+s)/n*1e6}')
    printf '%-8s %5s %12s %10s %10s %14s\n' "$kind" "$round" "$responses" "$user" "$sys" "$cost"
    costs[$kind]+="$cost "
  done
done
echo
plain=$(median ${costs[plain]})
for kind in plain sources probe; do
  m=$(median ${costs[$kind]})
  awk -v k="$kind" -v m="$m" -v p="$plain" -v r="$rate" \
    'BEGIN {printf "%-8s median %.2f CPU-s per million requests at %d/s: %.2f x plain\n", k, m, r, m/p}'
done
