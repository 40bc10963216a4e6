#!/usr/bin/env bash
# A soak's memory over time, compressed: 1 s windows at RATE requests/s against the built-in
# server (pinned apart) for HOLD seconds, with a canary every second and an external mark every
# minute, so every part a day-long soak keeps grows as fast as it can. VmRSS sampled every 10 s;
# the slope is fitted (least squares) over the second half, after start-up has settled. Flat
# means nothing per request or per second is kept: only a summary row per window (a few hundred
# bytes) and each canary's answer.
#
#   bench/soak_memory.sh [path/to/proofload] [HOLD=600] [RATE=20000]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
hold=${2:-600}
rate=${3:-20000}
source "$(dirname "$0")/lib.sh"
work=$bench_work
start_serve 1 "$proofload"
port=$SERVE_PORT
cat >"$work/soak.yaml" <<YAML
requests:
  root: {path: /}
canaries:
  health: {path: /health, checks: [{status: 200}]}
YAML

taskset -c 0 "$proofload" soak "$work/soak.yaml" "http://127.0.0.1:$port" --rate "$rate" \
  -d "${hold}s" --window 1s --canary-every 1s --workers 1 -c 64 -q --out "$work/out" \
  >/dev/null 2>"$work/soak.err" &
pid=$!
echo "elapsed_s rss_MiB" | tee "$work/rss.txt"
elapsed=0
while kill -0 "$pid" 2>/dev/null; do
  rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss_kb" ] && awk -v t="$elapsed" -v k="$rss_kb" 'BEGIN {printf "%9d %7.1f\n", t, k/1024}' |
    tee -a "$work/rss.txt"
  if [ $((elapsed % 60)) -eq 30 ] && [ -f "$work/out/soak-plan.json" ]; then
    "$proofload" mark "$work/out" "mark at ${elapsed}s" >/dev/null
  fi
  sleep 10
  elapsed=$((elapsed + 10))
done
wait "$pid" || true  # 99 when a window missed the bar: the memory is what is measured here
python3 - "$work/rss.txt" "$work/out/result.json" "$hold" <<'PY'
import json, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]).read().split("\n")[1:] if l.strip()]
half = [r for r in rows if r[0] >= float(sys.argv[3]) / 2]
n = len(half)
mt = sum(t for t, _ in half) / n
mr = sum(r for _, r in half) / n
slope = sum((t - mt) * (r - mr) for t, r in half) / sum((t - mt) ** 2 for t, _ in half)
soak = json.load(open(sys.argv[2]))["soak"]
print("requests %d in %d windows, %d canaries, %d marks" % (
    soak["summary"]["requests"], len(soak["windows"]), soak["canaries"]["total"], len(soak["marks"])))
print("RSS %.1f MiB at the middle, %.1f MiB at the end; slope over the second half %.3f MiB/hour" % (
    half[0][1], rows[-1][1], slope * 3600))
PY
