#!/usr/bin/env bash
# What a scenario costs the generator, against a static request at the same load, in one run:
# the built-in server (pinned to CPU 1) answers three small routes; proofload (pinned to CPU 0,
# one worker) alternates (A B A B ...) between a static request and a scenario whose weighted mix
# of three requests (4:3:3) fills two template variables per request (an integer range and a
# random word). Both run open loop at RATE requests/s for DURATION s with 64 connections. For
# each run: generator CPU (user + system, from /usr/bin/time), responses, CPU-s per million
# requests; then the ratio scenario/static of the medians.
#
#   bench/scenario_cost.sh [path/to/proofload] [RATE=20000] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
rate=${2:-20000}
duration=${3:-10}
rounds=${4:-3}
source "$(dirname "$0")/lib.sh"
work=$bench_work

cat >"$work/routes.yaml" <<'YAML'
routes:
  - {name: lookup, path: "/sic/{id}", body: "lookup"}
  - {name: similarity, path: /similar, body: "similar"}
  - {name: hybrid, path: /hybrid, body: "hybrid"}
YAML
start_serve 1 "$proofload" --routes "$work/routes.yaml"
base="http://127.0.0.1:$SERVE_PORT"

cat >"$work/scenario.yaml" <<YAML
target: $base
data:
  id: {int: {min: 1, max: 99999}}
  word: {word: {}}
requests:
  lookup: {path: "/sic/\${id}?q=\${word}"}
  similarity: {path: "/similar?q=\${word}&n=\${id}"}
  hybrid: {path: "/hybrid?q=\${word}&id=\${id}"}
mix: {lookup: 4, similarity: 3, hybrid: 3}
YAML

# Runs one generator under /usr/bin/time; prints "user sys responses".
run_one() {
  rm -rf "$work/out"
  /usr/bin/time -f "%U %S" -o "$work/time" taskset -c 0 \
    "$proofload" run "$@" --rate "$rate" -c 64 --workers 1 -d "${duration}s" -q --out "$work/out" \
    >/dev/null
  responses=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requests"])' \
    "$work/out/result.json")
  echo "$(cat "$work/time") $responses"
}
run_static() { run_one "$base/sic/62012?q=word"; }
run_scenario() { run_one "$work/scenario.yaml"; }

printf '%-10s %5s %12s %10s %10s %14s\n' kind round responses user_s sys_s cpu_s_per_1M
declare -a static_cost scenario_cost
for round in $(seq "$rounds"); do
  for kind in static scenario; do
    read -r user sys responses < <(run_$kind)
    cost=$(awk -v u="$user" -v s="$sys" -v n="$responses" 'BEGIN {printf "%.2f", (u+s)/n*1e6}')
    printf '%-10s %5s %12s %10s %10s %14s\n' "$kind" "$round" "$responses" "$user" "$sys" "$cost"
    if [ "$kind" = static ]; then static_cost+=("$cost"); else scenario_cost+=("$cost"); fi
  done
done
sm=$(median "${static_cost[@]}")
cm=$(median "${scenario_cost[@]}")
echo
echo "median CPU-s per million requests at $rate req/s: static $sm, scenario $cm"
awk -v c="$cm" -v s="$sm" 'BEGIN {printf "ratio scenario/static: %.2f\n", c/s}'
