#!/usr/bin/env bash
# How close the ladder and the search come to a capacity known by construction: the built-in
# server (one thread, pinned to CPU 1) answers a route that burns COST of CPU per request, so it
# can answer at most 1 / COST requests/s. proofload (pinned to CPU 0, one worker) runs
#   1. a ladder of open-loop rates at 20%, 40%, 60%, 80%, 100%, 120% and 150% of that capacity,
#   2. --search from 20% of it (grow x2, bisect to within 1%, confirm),
# ROUNDS times each, against the SLO p95 <= 100 ms, errors <= 1%. For each: the knee's level and
# goodput, best sustained, and the rate the search found with its steps and wall time, as a
# share of the capacity.
#
#   bench/capacity_found.sh [path/to/proofload] [COST_MS=2] [HOLD=5s] [ROUNDS=2]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
cost_ms=${2:-2}
hold=${3:-5s}
rounds=${4:-2}
source "$(dirname "$0")/lib.sh"
work=$bench_work

cat >"$work/routes.yaml" <<YAML
routes:
  - {name: heavy, path: /heavy, cpu: ${cost_ms}ms}
YAML
start_serve 1 "$proofload" --routes "$work/routes.yaml" --workers 1
url="http://127.0.0.1:$SERVE_PORT/heavy"
capacity=$(python3 -c "print(1000 / $cost_ms)")
rates=$(python3 -c "c=$capacity; print(','.join(str(round(c*f)) for f in (0.2,0.4,0.6,0.8,1.0,1.2,1.5)))")
echo "route cost ${cost_ms} ms of CPU: capacity ${capacity}/s on one core; ladder rates ${rates}"
common=(--slo 'p95<=100ms,errors<=1%' --warmup 1s --workers 1 --max-connections 500 --timeout 2s -q)

for round in $(seq "$rounds"); do
  taskset -c 0 "$proofload" ladder "$url" --rates "$rates" -d "$hold" "${common[@]}" \
    -o "$work/ladder-$round" >/dev/null 2>&1 || true
  start=$(date +%s.%N)
  taskset -c 0 "$proofload" ladder "$url" --search --start-rate "$(python3 -c "print(round($capacity*0.2))")" \
    --step-hold 3s -d "$hold" "${common[@]}" -o "$work/search-$round" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 - "$work/ladder-$round/result.json" "$work/search-$round/result.json" "$capacity" \
    "$round" "$start" "$end" <<'PY'
import json, sys
ladder, search = (json.load(open(p)) for p in sys.argv[1:3])
capacity, round_ = float(sys.argv[3]), sys.argv[4]
wall = float(sys.argv[6]) - float(sys.argv[5])
a = ladder["analysis"]
knee = a["knee"]
best = a["best_sustained"]
def share(x): return f"{x:.0f}/s ({x / capacity:.0%})"
# Rates are judged on goodput (successful requests per second of the measured span).
print(f"round {round_}: ladder knee at level {knee['level'] if knee else 'none'}"
      f" with goodput {share(knee['goodput_rps']) if knee else '-'};"
      f" best sustained {share(best['goodput_rps']) if best else 'none'}")
s = search["search"]
found = s["found_rps"]
print(f"round {round_}: search found {share(found) if found else 'none'}"
      f" in {len(s['steps'])} steps ({wall:.0f} s), confirmed: {s['confirmed']}; {s['end_reason']}")
PY
done
