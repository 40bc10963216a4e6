#!/usr/bin/env bash
# Generator cost, side by side with wrk, in one run: nginx (one worker, pinned to CPU 1) serves
# a small file on 127.0.0.1; proofload and wrk alternate on CPU 0 (A B A B ...), 64 connections,
# one worker/thread, DURATION each, ROUNDS times each. For each run: the generator's CPU time
# (user + system, from /usr/bin/time), requests completed, CPU-seconds per million requests and
# peak RSS. Prints a table and the ratio proofload/wrk of CPU per request (median of rounds).
#
#   bench/compare_wrk.sh [path/to/proofload] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-10}
rounds=${3:-3}
port=${PORT:-18080}
work=$(mktemp -d)
nginx_pid=""
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

command -v nginx >/dev/null || { echo "needs nginx (scripts/bootstrap installs nginx-light)"; exit 1; }
command -v wrk >/dev/null || { echo "needs wrk (scripts/bootstrap installs it)"; exit 1; }

mkdir -p "$work/html" "$work/logs"
printf 'hello from nginx, a small static file\n' >"$work/html/index.html"
run_as=""
[ "$(id -u)" -eq 0 ] && run_as="user root;"
cat >"$work/nginx.conf" <<CONF
$run_as
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:$port;
    root $work/html;
    location / { }
  }
}
CONF
taskset -c 1 nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
for _ in $(seq 100); do
  (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.05
done
url="http://127.0.0.1:$port/index.html"

# Runs one generator under /usr/bin/time; prints "user sys maxrss_kb requests".
run_wrk() {
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c 0 \
    wrk -t1 -c64 -d"${duration}s" "$url" >"$work/wrk.out"
  requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
  echo "$(cat "$work/time") $requests"
}
run_proofload() {
  rm -rf "$work/pl"
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c 0 \
    "$proofload" run "$url" -c 64 --workers 1 -d "${duration}s" -q --out "$work/pl" >/dev/null
  requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requests"])' \
    "$work/pl/result.json")
  echo "$(cat "$work/time") $requests"
}

printf '%-10s %5s %12s %10s %10s %14s %9s %10s\n' tool round requests user_s sys_s \
  cpu_s_per_1M kernel% rss_MiB
declare -a wrk_cost pl_cost
for round in $(seq "$rounds"); do
  for tool in proofload wrk; do
    read -r user sys rss requests < <(run_$tool)
    cost=$(awk -v u="$user" -v s="$sys" -v n="$requests" 'BEGIN {printf "%.2f", (u+s)/n*1e6}')
    kernel=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", 100*s/(u+s)}')
    printf '%-10s %5s %12s %10s %10s %14s %9s %10.1f\n' "$tool" "$round" "$requests" "$user" \
      "$sys" "$cost" "$kernel" "$(awk -v k="$rss" 'BEGIN {print k/1024}')"
    if [ "$tool" = wrk ]; then wrk_cost+=("$cost"); else pl_cost+=("$cost"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
wm=$(median "${wrk_cost[@]}")
pm=$(median "${pl_cost[@]}")
echo
echo "median CPU-s per million requests: proofload $pm, wrk $wm"
awk -v p="$pm" -v w="$wm" 'BEGIN {printf "ratio proofload/wrk: %.2f\n", p/w}'
