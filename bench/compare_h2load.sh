#!/usr/bin/env bash
# HTTP/2 generator cost, side by side with h2load, in one run: nginx (one worker, pinned to CPU 1)
# serves a small file over HTTP/2 on 127.0.0.1; proofload and h2load alternate on CPU 0
# (A B A B ...), 64 connections x 8 streams, one worker/thread, DURATION each, ROUNDS times each.
# For each run: the generator's CPU time (user + system, from /usr/bin/time), requests completed,
# CPU-seconds per million requests and peak RSS. Prints a table and the ratio proofload/h2load of
# CPU per request (median of rounds). TLS=1 (the default) loads h2 over TLS 1.3 (ALPN h2;
# proofload verifying the certificate with --cacert, h2load not); TLS=0 loads h2c.
#
#   [TLS=0|1] bench/compare_h2load.sh [path/to/proofload] [DURATION=10] [ROUNDS=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-10}
rounds=${3:-3}
port=${PORT:-18081}
source "$(dirname "$0")/lib.sh"
command -v h2load >/dev/null || { echo "needs h2load (scripts/bootstrap installs nghttp2-client)"; exit 1; }
scheme=http
tls_flags=()
export NGINX_HTTP2=1
if [ "${TLS:-1}" = 1 ]; then
  scheme=https
  export NGINX_TLS=1
fi
start_nginx 1 "$port" $'hello from nginx, a small static file\n'
work=$bench_work
url="$scheme://127.0.0.1:$port/index.html"
[ "$scheme" = https ] && tls_flags=(--cacert "$work/cert.pem")

# Runs one generator under /usr/bin/time; prints "user sys maxrss_kb requests".
run_h2load() {
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c 0 \
    h2load -t1 -c64 -m8 -D "$duration" "$url" >"$work/h2load.out"
  requests=$(awk '/^requests:/ {print $8}' "$work/h2load.out")
  echo "$(cat "$work/time") $requests"
}
run_proofload() {
  rm -rf "$work/pl"
  /usr/bin/time -f "%U %S %M" -o "$work/time" taskset -c 0 \
    "$proofload" run "$url" "${tls_flags[@]}" --http2 -c 64 --h2-streams 8 --workers 1 \
    -d "${duration}s" -q --out "$work/pl" >/dev/null
  echo "$(cat "$work/time") $(proofload_requests "$work/pl")"
}

compare_cost h2load "$rounds"
