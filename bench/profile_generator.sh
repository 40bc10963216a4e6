#!/usr/bin/env bash
# Where the generator's CPU goes, per backend: nginx (one worker, CPU 1) serves a small file;
# proofload runs on CPU 0 (64 connections, one worker, DURATION s) under `perf record`, once over
# io_uring and once over epoll, and each profile is summed into groups of symbols: the kernel's
# TCP/IP path (both ends' packets: on loopback the sender's CPU runs the receiver's softirq too),
# scheduling and wake-ups, system-call entry and the event interface (epoll, io_uring), clock
# reads, llhttp, proofload's own code, and the rest. Needs perf (scripts/bootstrap: linux-perf)
# and root (or kernel.perf_event_paranoid <= 1).
#
#   bench/profile_generator.sh [path/to/proofload] [DURATION=3]
set -euo pipefail
proofload=$(realpath "${1:-build/proofload}")
duration=${2:-3}
source "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "needs perf (scripts/bootstrap installs linux-perf)"; exit 1; }
start_nginx 1 18082 $'hello from nginx, a small static file\n'
work=$bench_work
for io in uring epoll; do
  rm -rf "$work/pl"
  perf record -q -o "$work/perf-$io.data" -F 4000 -- taskset -c 0 "$proofload" run \
    http://127.0.0.1:18082/index.html -c 64 --workers 1 -d "${duration}s" --io "$io" -q \
    --out "$work/pl" >/dev/null 2>&1
  requests=$(proofload_requests "$work/pl")
  perf report -i "$work/perf-$io.data" --no-children --sort sym --stdio 2>/dev/null |
    python3 -c '
import re, sys
io, requests = sys.argv[1], int(sys.argv[2])
groups = [
    ("kernel TCP/IP (both ends)", r"tcp|^ip_|^__ip|skb|net_rx|loopback|dev_queue|netif|backlog|^sk_|sock|bbr|inet|copy_(to|from)_iter|check_object_size|kmem_cache|kfree|page_frag|validate_xmit|nf_|__dev|^dev_|csum|rcu"),
    ("scheduling, wake-ups", r"task_switch|schedule|wake|spin_unlock|irqrestore|pick_next|enqueue|dequeue|update_curr|psi_|idle|hrtimer|timerqueue|tick"),
    ("syscalls, epoll, io_uring", r"syscall|entry_|io_uring|^io_|^__io|ep_|epoll|^__sys|^__x64|fdget|fget|fput|^do_sys|poll"),
    ("clock reads", r"clock_gettime|read_tsc|vdso"),
    ("llhttp", r"llhttp"),
]
sums = {name: 0.0 for name, _ in groups}
user = other = 0.0
for line in sys.stdin:
    m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(\S+)", line)
    if not m:
        continue
    share, space, sym = float(m.group(1)), m.group(2), m.group(3)
    for name, pattern in groups:
        if re.search(pattern, sym):
            sums[name] += share
            break
    else:
        if space == ".":
            user += share
        else:
            other += share
print(f"{io}: {requests} requests")
for name, _ in groups:
    print(f"  {name:30s} {sums[name]:5.1f}%")
for name, share in (("proofload (user space)", user), ("other kernel", other)):
    print(f"  {name:30s} {share:5.1f}%")
' "$io" "$requests"
done
