#!/usr/bin/env bash
# Generator cost, side by side with wrk, in one run: nginx (one worker, pinned to CPU 1) serves
# a small file on 127.0.0.1; proofload over io_uring, proofload over epoll and wrk take turns on
# CPU 0 (A B C A B C ...), 64 connections, one worker/thread, DURATION each, ROUNDS times each,
# proofload recording every window as always. For each run: the generator's CPU time (user +
# system, from /usr/bin/time), requests completed, CPU-seconds per million requests and peak
# RSS. Prints a table and the ratios proofload/wrk of CPU per request (median of rounds), one per
# backend. With THREADS=2, each tool runs two workers/threads on CPUs 0 and 1 and nginx runs two
# workers on the same two CPUs (the two-core comparison: wrk -t2 against --workers 2).
# With TLS=1, nginx speaks HTTPS (TLS 1.3, a self-signed P-256 certificate) and both generators
# load it over TLS (proofload verifying it with --cacert; wrk does not verify).
#
#   [TLS=1] [THREADS=2] bench/compare_wrk.sh [path/to/proofload] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-10}
rounds=${3:-3}
port=${PORT:-18080}
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { echo "needs wrk (scripts/bootstrap installs it)"; exit 1; }
scheme=http
tls_flags=()
if [ "${TLS:-0}" = 1 ]; then
  scheme=https
  export NGINX_TLS=1
fi
threads=${THREADS:-1}
cpus=0
if [ "$threads" = 2 ]; then
  cpus=0,1
  export NGINX_WORKERS=2
fi
nginx_cpus=1
[ "$threads" = 2 ] && nginx_cpus=0,1
start_nginx "$nginx_cpus" "$port" $'hello from nginx, a small static file\n'
work=$bench_work
url="$scheme://127.0.0.1:$port/index.html"
[ "$scheme" = https ] && tls_flags=(--cacert "$work/cert.pem")

# Runs one generator under /usr/bin/time; prints "user sys maxrss_kb requests".
run_wrk() {
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c "$cpus" \
    wrk -t"$threads" -c64 -d"${duration}s" "$url" >"$work/wrk.out"
  requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
  echo "$(cat "$work/time") $requests"
}
run_proofload_over() {
  rm -rf "$work/pl"
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c "$cpus" \
    "$proofload" run "$url" "${tls_flags[@]}" -c 64 --workers "$threads" --io "$1" \
    -d "${duration}s" -q --out "$work/pl" >/dev/null
  echo "$(cat "$work/time") $(proofload_requests "$work/pl")"
}
run_proofload_uring() { run_proofload_over uring; }
run_proofload_epoll() { run_proofload_over epoll; }

compare_cost wrk "$rounds" proofload_uring proofload_epoll
