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
source "$(dirname "$0")/lib.sh"
start_nginx 1 "$nginx_port" $'ok\n'
start_serve 1 "$proofload" --body $'ok\n'
serve_port=$SERVE_PORT

rate() { taskset -c 0 wrk -t1 -c64 -d"${duration}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
declare -a n s
printf '%-8s %6s %12s\n' server round requests/s
for round in $(seq "$rounds"); do
  r=$(rate "http://127.0.0.1:$nginx_port/index.html"); n+=("$r"); printf '%-8s %6s %12s\n' nginx "$round" "$r"
  r=$(rate "http://127.0.0.1:$serve_port/"); s+=("$r"); printf '%-8s %6s %12s\n' serve "$round" "$r"
done
nm=$(median "${n[@]}"); sm=$(median "${s[@]}")
echo
echo "median requests/s: serve $sm, nginx $nm"
awk -v s="$sm" -v n="$nm" 'BEGIN {printf "ratio serve/nginx: %.2f\n", s/n}'
