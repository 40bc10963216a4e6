#!/usr/bin/env bash
# How trustworthy a comparison's verdicts are on this machine: a server against its twin should be
# `level`, and a known slowdown should be found. Two built-in servers (both pinned to CPU 1) answer
# three routes: /same at 2 ms on both, /ten at 2 ms on A and 2.2 ms on B (B 10% slower), /twenty
# at 2 ms and 2.4 ms (20% slower). `proofload compare` (pinned to CPU 0) runs the matrix ROUNDS
# times, each cell REPEAT times a side for DURATION with 2 connections, metric p50, the default
# minimum effect (5%). Prints, per check, how many rounds gave each verdict: the false findings
# (/same not level), and how often the 10% and 20% slowdowns were found.
#
#   bench/compare_noise.sh [path/to/proofload] [ROUNDS=5] [DURATION=1s] [REPEAT=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
rounds=${2:-5}
duration=${3:-1s}
repeat=${4:-3}
source "$(dirname "$0")/lib.sh"
work=$bench_work

routes() {  # routes FILE TEN TWENTY
  cat >"$1" <<YAML
routes:
  - {path: /same, body: "ok\n", delay: 2ms}
  - {path: /ten, body: "ok\n", delay: $2}
  - {path: /twenty, body: "ok\n", delay: $3}
YAML
}
routes "$work/a.yaml" 2ms 2ms
routes "$work/b.yaml" 2200us 2400us
start_serve 1 "$proofload" --routes "$work/a.yaml"
a="http://127.0.0.1:$SERVE_PORT"
start_serve 1 "$proofload" --routes "$work/b.yaml"
b="http://127.0.0.1:$SERVE_PORT"
cat >"$work/compare.yaml" <<YAML
checks:
  same: {path: /same}
  ten: {path: /ten}
  twenty: {path: /twenty}
metric: p50
run: {connections: 2, duration: $duration}
repeat: $repeat
YAML

for round in $(seq "$rounds"); do
  rm -rf "$work/out"
  taskset -c 0 "$proofload" compare "$work/compare.yaml" --a "$a" --b "$b" -q -o "$work/out" \
    >/dev/null 2>&1 || [ $? -eq 99 ]  # B slower on a check is this benchmark's expectation
  python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["compare"]["checks"]:
    print(c["name"], c["verdict"].replace(" ", "_"), "%.4f" % (c["ratio"] or 0), "%.4f" % c["noise"])' \
    "$work/out/result.json" >>"$work/verdicts"
done

echo "$rounds rounds; each cell $repeat times a side for $duration; p50; minimum effect 5%"
python3 - "$work/verdicts" <<'PY'
import collections, sys
verdicts = collections.defaultdict(collections.Counter)
ratios = collections.defaultdict(list)
noises = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, verdict, ratio, noise = line.split()
    verdicts[name][verdict] += 1
    ratios[name].append(float(ratio))
    noises[name].append(float(noise))
truth = {"same": "B as fast (2 ms)", "ten": "B 10% slower", "twenty": "B 20% slower"}
for name in ("same", "ten", "twenty"):
    counts = ", ".join(f"{v.replace('_', ' ')} {n}" for v, n in sorted(verdicts[name].items()))
    r = sorted(ratios[name])
    print(f"{name:7} {truth[name]:17} verdicts: {counts}; B/A {r[0]:.3f} to {r[-1]:.3f}; "
          f"noise {min(noises[name]):.1%} to {max(noises[name]):.1%}")
PY
