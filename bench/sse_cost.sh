#!/usr/bin/env bash
# What a server-sent event costs the generator, and how many events/s one core of it sustains:
# the built-in server (one thread, pinned to CPU 1) answers two sse routes, proofload (pinned to
# CPU 0, one worker, `run --stream sse`, closed loop, every stream read event by event) takes
#   paced: 1,000 connections, each a stream of 100 events (64-byte data) spread over 1 s and its
#          terminator: 1,000 concurrent streams, about 101,000 events/s offered, each stream's
#          events 10 ms apart;
#   burst: streams of 2,000 of the smallest events the route makes (event_bytes 1, 52 bytes on
#          the wire with their fields) sent all at once (`over: 0s`), as fast as the server
#          writes them, on 1, 8, 64 and 512 connections: the offered rate rises until the
#          generator's core is full or events/s stops rising;
# each for DURATION s, alternating paced and the burst steps (A B A B ...) ROUNDS times. For each
# run: events received (of completed streams, terminators included); events/s (result.json's: of
# the streams that ended inside the span, so it leaves out a paced run's last streams, which end
# just after it); generator CPU (user + system, from /usr/bin/time) in cores and in µs per event
# received; the server's CPU in cores (from /proc/PID/stat over the run: which side was the
# limit); the streams' p99 duration (1,000 ms when paced events come on time). Then each step's
# medians: paced gives the µs per event at 1,000 streams, the burst steps the events/s one core
# sustains (their plateau).
#
#   bench/sse_cost.sh [path/to/proofload] [DURATION=10] [ROUNDS=3]
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-10}
rounds=${3:-3}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
work=$bench_work

cat >"$work/routes.yaml" <<'YAML'
routes:
  - {path: /paced, sse: {events: 100, over: 1s, event_bytes: 64}}
  - {path: /burst, sse: {events: 2000, over: 0s, event_bytes: 1}}
YAML
start_serve 1 "$proofload" --routes "$work/routes.yaml" --workers 1
base="http://127.0.0.1:$SERVE_PORT"
ticks=$(getconf CLK_TCK)

server_cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVE_PID/stat"; }

# Runs one generator on PATH with CONNECTIONS under /usr/bin/time; prints "events events_per_s
# user sys elapsed server_cpu_s duration_p99_ms".
run_one() {
  local path=$1 connections=$2 before after
  rm -rf "$work/out"
  before=$(server_cpu_ticks)
  /usr/bin/time -f "%U %S %e" -o "$work/time" taskset -c 0 "$proofload" run "$base$path" \
    --stream sse -c "$connections" --workers 1 -d "${duration}s" -q --out "$work/out" >/dev/null
  after=$(server_cpu_ticks)
  python3 - "$work/out/result.json" "$work/time" "$((after - before))" "$ticks" <<'PY'
import json, sys
streams = json.load(open(sys.argv[1]))["summary"]["streams"]
user, system, elapsed = open(sys.argv[2]).read().split()
server_s = int(sys.argv[3]) / int(sys.argv[4])
print(streams["events"], streams["events_per_s"], user, system, elapsed, server_s,
      streams["duration_ms"]["p99"])
PY
}

printf '%-6s %5s %5s %11s %11s %7s %7s %9s %11s %12s %13s\n' kind round conns events events/s \
  user_s sys_s gen_cores us_per_event server_cores p99_stream_ms
declare -A rate_of cores_of server_of cost_of
steps=(paced:1000 burst:1 burst:8 burst:64 burst:512)
for round in $(seq "$rounds"); do
  for step in "${steps[@]}"; do
    kind=${step%%:*}
    connections=${step##*:}
    read -r events rate user sys elapsed server p99 < <(run_one "/$kind" "$connections")
    read -r cores cost server_cores < <(awk -v u="$user" -v s="$sys" -v e="$elapsed" \
      -v n="$events" -v sv="$server" \
      'BEGIN {printf "%.2f %.3f %.2f\n", (u+s)/e, (u+s)/n*1e6, sv/e}')
    printf '%-6s %5s %5s %11s %11.0f %7s %7s %9s %11s %12s %13s\n' "$kind" "$round" \
      "$connections" "$events" "$rate" "$user" "$sys" "$cores" "$cost" "$server_cores" "$p99"
    rate_of[$step]+="$rate "; cores_of[$step]+="$cores "; server_of[$step]+="$server_cores "
    cost_of[$step]+="$cost "
  done
done
echo
echo "medians of $rounds rounds:"
# median_of "V1 V2 ...": the median of a space-separated list.
median_of() {
  local -a values
  read -ra values <<<"$1"
  median "${values[@]}"
}
for step in "${steps[@]}"; do
  printf '%-6s %4s connections: %9.0f events/s, %6s µs of generator CPU per event, ' \
    "${step%%:*}" "${step##*:}" "$(median_of "${rate_of[$step]}")" \
    "$(median_of "${cost_of[$step]}")"
  printf 'generator %s cores, server %s\n' "$(median_of "${cores_of[$step]}")" \
    "$(median_of "${server_of[$step]}")"
done
