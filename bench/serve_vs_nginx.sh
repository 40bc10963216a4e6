#!/usr/bin/env bash
# The built-in server's throughput against nginx on one core, same run: each server pinned to
# CPU 1 (nginx with one worker, `proofload serve` with one thread), a small fixed response, wrk
# on CPU 0 with 64 connections for DURATION seconds, alternating nginx and serve ROUNDS times.
# Prints requests/s per run and the ratio serve/nginx of the medians.
#
#   bench/serve_vs_nginx.sh [path/to/proofload] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-10}
rounds=${3:-3}
nginx_port=${NGINX_PORT:-18081}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

mkdir -p "$work/html" "$work/logs"
printf 'ok\n' >"$work/html/index.html"
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
  server { listen 127.0.0.1:$nginx_port; root $work/html; location / { } }
}
CONF
taskset -c 1 nginx -c "$work/nginx.conf" -p "$work" &
pids+=($!)
taskset -c 1 "$proofload" serve --port 0 --body 'ok
' >"$work/serve.out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^listening' "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
serve_port=$(grep -m1 -o '[0-9]*$' "$work/serve.out")
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$nginx_port) 2>/dev/null && break; sleep 0.05; done

rate() { taskset -c 0 wrk -t1 -c64 -d"${duration}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
declare -a n s
printf '%-8s %6s %12s\n' server round requests/s
for round in $(seq "$rounds"); do
  r=$(rate "http://127.0.0.1:$nginx_port/index.html"); n+=("$r"); printf '%-8s %6s %12s\n' nginx "$round" "$r"
  r=$(rate "http://127.0.0.1:$serve_port/"); s+=("$r"); printf '%-8s %6s %12s\n' serve "$round" "$r"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
nm=$(median "${n[@]}"); sm=$(median "${s[@]}")
echo
echo "median requests/s: serve $sm, nginx $nm"
awk -v s="$sm" -v n="$nm" 'BEGIN {printf "ratio serve/nginx: %.2f\n", s/n}'
