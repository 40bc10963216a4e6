# Shared by the bench/ scripts (source it): a scratch directory cleaned up on exit, the built-in
# server and nginx started pinned to a CPU, and waits for them to listen. Every server listens on
# 127.0.0.1 only and is stopped when the script exits.

bench_work=$(mktemp -d)
bench_pids=()
bench_cleanup() {
  for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$bench_work"
}
trap bench_cleanup EXIT

# start_serve CPU PROOFLOAD [serve flags...]: starts `proofload serve --port 0` pinned to CPU
# (or unpinned when CPU is "-"); sets SERVE_PID and SERVE_PORT.
start_serve() {
  local cpu=$1 proofload=$2
  shift 2
  local pin=() out="$bench_work/serve.${#bench_pids[@]}.out"
  [ "$cpu" != "-" ] && pin=(taskset -c "$cpu")
  "${pin[@]}" "$proofload" serve --port 0 "$@" >"$out" &
  SERVE_PID=$!
  bench_pids+=("$SERVE_PID")
  for _ in $(seq 200); do
    grep -q '^listening' "$out" 2>/dev/null && break
    sleep 0.05
  done
  SERVE_PORT=$(grep -m1 -o '[0-9]*$' "$out")
  [ -n "$SERVE_PORT" ] || { echo "the built-in server did not start" >&2; exit 1; }
}

stop_serve() {
  kill "$SERVE_PID" 2>/dev/null || true
  wait "$SERVE_PID" 2>/dev/null || true
}

# start_nginx CPU PORT BODY: nginx with one worker pinned to CPU, serving BODY as /index.html.
# With NGINX_TLS=1 it speaks TLS 1.2/1.3 on PORT with a self-signed certificate for 127.0.0.1 and
# localhost, written to $bench_work/cert.pem (what --cacert trusts). With NGINX_HTTP2=1 it speaks
# HTTP/2 as well: over TLS by ALPN, without TLS by prior knowledge (h2c) only.
start_nginx() {
  local cpu=$1 port=$2 body=$3
  command -v nginx >/dev/null || { echo "needs nginx (scripts/bootstrap installs nginx-light)"; exit 1; }
  mkdir -p "$bench_work/html" "$bench_work/logs"
  printf '%s' "$body" >"$bench_work/html/index.html"
  local run_as="" listen="127.0.0.1:$port" tls=""
  [ "$(id -u)" -eq 0 ] && run_as="user root;"
  if [ "${NGINX_TLS:-0}" = 1 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
      -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      -keyout "$bench_work/key.pem" -out "$bench_work/cert.pem" 2>/dev/null
    listen="$listen ssl"
    tls="ssl_certificate $bench_work/cert.pem; ssl_certificate_key $bench_work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets on;"
  fi
  [ "${NGINX_HTTP2:-0}" = 1 ] && listen="$listen http2"
  cat >"$bench_work/nginx.conf" <<CONF
$run_as
worker_processes ${NGINX_WORKERS:-1};
daemon off;
pid $bench_work/nginx.pid;
error_log $bench_work/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  server { listen $listen; $tls root $bench_work/html; location / { } }
}
CONF
  taskset -c "$cpu" nginx -c "$bench_work/nginx.conf" -p "$bench_work" &
  bench_pids+=($!)
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.05
  done
  echo "nginx did not start on 127.0.0.1:$port" >&2
  exit 1
}

# median VALUES...
median() {
  printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

# compare_cost OTHER ROUNDS [OURS...]: runs each of OURS (default: proofload) and OTHER, each a
# function `run_NAME` defined by the caller printing "user_s sys_s maxrss_kb requests" of one run
# under /usr/bin/time, in turn (A B C A B C ...), ROUNDS times; prints a row per run (CPU-seconds
# per million requests, kernel share, peak RSS) and for each of OURS the ratio of the medians of
# CPU per request, OURS/OTHER.
compare_cost() {
  local other=$1 rounds=$2 tool user sys rss requests cost kernel
  shift 2
  local -a ours=("$@")
  [ ${#ours[@]} -gt 0 ] || ours=(proofload)
  local -A costs=()
  printf '%-16s %5s %12s %10s %10s %14s %9s %10s\n' tool round requests user_s sys_s \
    cpu_s_per_1M kernel% rss_MiB
  for round in $(seq "$rounds"); do
    for tool in "${ours[@]}" "$other"; do
      read -r user sys rss requests < <("run_$tool")
      cost=$(awk -v u="$user" -v s="$sys" -v n="$requests" 'BEGIN {printf "%.2f", (u+s)/n*1e6}')
      kernel=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", 100*s/(u+s)}')
      printf '%-16s %5s %12s %10s %10s %14s %9s %10.1f\n' "$tool" "$round" "$requests" "$user" \
        "$sys" "$cost" "$kernel" "$(awk -v k="$rss" 'BEGIN {print k/1024}')"
      costs[$tool]+="$cost "
    done
  done
  local om pm
  # shellcheck disable=SC2086 # the costs are one word each
  om=$(median ${costs[$other]})
  echo
  for tool in "${ours[@]}"; do
    # shellcheck disable=SC2086
    pm=$(median ${costs[$tool]})
    echo "median CPU-s per million requests: $tool $pm, $other $om"
    awk -v p="$pm" -v o="$om" -v a="$tool" -v b="$other" 'BEGIN {printf "ratio %s/%s: %.2f\n", a, b, p/o}'
  done
}

# proofload_requests DIR: the responses a run recorded in DIR/result.json.
proofload_requests() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requests"])' \
    "$1/result.json"
}
