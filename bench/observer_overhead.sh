#!/usr/bin/env bash
# What observing costs the generator: `proofload observe` with four observers besides itself (a
# process, its cgroup, a Prometheus endpoint, the host) sampled every 100 ms for DURATION s,
# against the built-in server with the demo profile (its /metrics), pinned to CPU 1. Prints the
# observer's CPU time (user + system, from /usr/bin/time) as a share of one core.
#
#   bench/observer_overhead.sh [path/to/proofload] [DURATION=30]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-30}
source "$(dirname "$0")/lib.sh"
start_serve 1 "$proofload" --profile demo
cgroup=/sys/fs/cgroup/cpu
[ -d "$cgroup" ] || cgroup=/sys/fs/cgroup
/usr/bin/time -f "%U %S" -o "$bench_work/time" taskset -c 0 "$proofload" observe \
  "pid:$SERVE_PID" "cgroup:$cgroup" "prom:http://127.0.0.1:$SERVE_PORT/metrics" host \
  --observe-every 100ms -d "${duration}s" -o "$bench_work/out" >/dev/null
read -r user sys <"$bench_work/time"
samples=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(o["samples"] for o in r["observed"].values()))' "$bench_work/out/result.json")
echo "observers: self, pid, cgroup, prom, host every 100 ms for ${duration} s: $samples samples"
awk -v u="$user" -v s="$sys" -v d="$duration" \
  'BEGIN {printf "CPU %.2f s user + %.2f s system = %.2f%% of one core\n", u, s, 100*(u+s)/d}'
