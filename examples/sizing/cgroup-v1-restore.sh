#!/bin/sh
# restore hook for `proofload sizing` (see cgroup-v1-apply.sh): stops every instance the apply
# hook started and removes their cgroups. proofload runs it once, at the end, on every exit path.
BASE=${BASE:-/sys/fs/cgroup/cpu/proofload-sizing}
STATE=${STATE:-/tmp/proofload-sizing}
for f in "$STATE"/*.pid; do
  [ -e "$f" ] || continue
  pid=$(cat "$f"); rm -f "$f"; kill "$pid" 2>/dev/null || true
  n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do n=$((n+1)); sleep 0.05; done
done
for cg in "$BASE"/*/; do [ -d "$cg" ] && rmdir "$cg" 2>/dev/null; done
rmdir "$BASE" 2>/dev/null
exit 0
