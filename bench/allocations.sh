#!/usr/bin/env bash
# Heap allocations per run, for two request counts, closed and open loop, and a scenario (a mix
# of three requests with two template variables and a body check), and over TLS with HTTP/1.1
# and HTTP/2 (nginx) (valgrind memcheck): if the
# totals do not grow with the number of requests, the steady state allocates nothing per request.
#
#   bench/allocations.sh [path/to/proofload]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
command -v valgrind >/dev/null || { echo "needs valgrind"; exit 1; }
source "$(dirname "$0")/lib.sh"
start_serve - "$proofload"
url="http://127.0.0.1:$SERVE_PORT/"
tls_port=${PORT:-18443}
NGINX_TLS=1 NGINX_HTTP2=1 start_nginx 1 "$tls_port" 'ok'  # HTTP/1.1 or h2 by ALPN
tls_url="https://127.0.0.1:$tls_port/index.html --cacert $bench_work/cert.pem"

cat >"$bench_work/scenario.yaml" <<'YAML'
data:
  id: {int: {min: 1, max: 99999}}
  word: {word: {}}
requests:
  lookup: {path: "/sic/${id}?q=${word}", checks: [{status: 200}, {body_contains: "o"}]}
  similarity: {path: "/similar?q=${word}&n=${id}"}
  hybrid: {path: "/hybrid?q=${word}&id=${id}"}
mix: {lookup: 4, similarity: 3, hybrid: 3}
YAML

printf '%-28s %10s %12s\n' run requests heap_allocs
for mode in "closed loop:$url -c 4" "open loop 5000/s:$url --rate 5000 -c 4" \
            "scenario, closed loop:$bench_work/scenario.yaml $url -c 4" \
            "https, closed loop:$tls_url -c 4" \
            "h2 over TLS, 4x8 streams:$tls_url --http2 -c 4 --h2-streams 8"; do
  for n in 2000 20000; do
    allocs=$(valgrind "$proofload" run ${mode#*:} -n "$n" --workers 1 -q 2>&1 >/dev/null |
      awk '/total heap usage/ {gsub(",", "", $5); print $5}')
    printf '%-28s %10s %12s\n' "${mode%%:*}" "$n" "$allocs"
  done
done
