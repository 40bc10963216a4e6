#!/bin/sh
# apply hook for `proofload sizing` on cgroup v1 (needs root; BASE in a cgroup v2 hierarchy, such
# as /sys/fs/cgroup/proofload-sizing, takes v2's cpu.max instead): puts the configuration
# $PROOFLOAD_CONFIG in place on this machine. Stops the previous configuration's instances, then
# starts $PROOFLOAD_INSTANCES instances of the built-in server (`proofload serve`), instance i
# on port BASE_PORT+i, each in its own cgroup under BASE (default
# /sys/fs/cgroup/cpu/proofload-sizing) with a CPU quota of $PROOFLOAD_CPU cores, writes their
# URLs to $PROOFLOAD_TARGETS_FILE (so the load is spread over them) and waits until each listens.
#
#   proofload sizing http://127.0.0.1:8100/work --configs 1x1/256Mi,2x500m/256Mi,1x500m/256Mi \
#     --apply 'sh examples/sizing/cgroup-v1-apply.sh' \
#     --restore 'sh examples/sizing/cgroup-v1-restore.sh' \
#     --ready-until http://127.0.0.1:8100/health --concurrency 2,4,8 -d 10s \
#     --observe 'cgroup:/sys/fs/cgroup/cpu/proofload-sizing/${PROOFLOAD_CONFIG_SLUG}-${INSTANCE}' \
#     --observe 'pidfile:/tmp/proofload-sizing/${PROOFLOAD_CONFIG_SLUG}-${INSTANCE}.pid'
set -e
BASE=${BASE:-/sys/fs/cgroup/cpu/proofload-sizing}
STATE=${STATE:-/tmp/proofload-sizing}
BASE_PORT=${BASE_PORT:-8100}
ROUTES=${ROUTES:-$(dirname "$0")/routes.yaml}
PROOFLOAD_BIN=${PROOFLOAD_BIN:-proofload}
mkdir -p "$BASE" "$STATE"
# cgroup v2: the cpu controller must be enabled for BASE's children (and BASE, by its parent).
if [ -e "$BASE/cgroup.controllers" ]; then
  echo +cpu > "$(dirname "$BASE")/cgroup.subtree_control" 2>/dev/null || true
  echo +cpu > "$BASE/cgroup.subtree_control"
fi

# The previous configuration's instances: stopped, and waited for (their ports are reused).
for f in "$STATE"/*.pid; do
  [ -e "$f" ] || continue
  pid=$(cat "$f"); rm -f "$f"; kill "$pid" 2>/dev/null || true
  n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do n=$((n+1)); sleep 0.05; done
done

i=0
while [ "$i" -lt "${PROOFLOAD_INSTANCES:?the configuration name must be NxCPU/MEM}" ]; do
  cg="$BASE/$PROOFLOAD_CONFIG_SLUG-$i"
  port=$((BASE_PORT + i))
  mkdir -p "$cg"
  if [ -e "$BASE/cgroup.controllers" ]; then
    # cgroup v2 (BASE under /sys/fs/cgroup itself): the quota and period are one file.
    echo "$((PROOFLOAD_CPU_MILLI * 100)) 100000" > "$cg/cpu.max"
  else
    echo 100000 > "$cg/cpu.cfs_period_us"
    echo $((PROOFLOAD_CPU_MILLI * 100)) > "$cg/cpu.cfs_quota_us"
  fi
  log="$STATE/$PROOFLOAD_CONFIG_SLUG-$i.log"
  # The shell joins the cgroup first, then becomes the server: every thread starts inside it.
  sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" serve --port "$3" --routes "$4" --workers 1' \
    sh "$cg" "$PROOFLOAD_BIN" "$port" "$ROUTES" > "$log" 2>&1 &
  echo $! > "$STATE/$PROOFLOAD_CONFIG_SLUG-$i.pid"
  echo "http://127.0.0.1:$port/work" >> "$PROOFLOAD_TARGETS_FILE"
  n=0; until grep -q listening "$log"; do
    n=$((n+1)); [ $n -lt 200 ] || { echo "instance $i did not start: $(cat "$log")"; exit 1; }
    sleep 0.05
  done
  i=$((i+1))
done
