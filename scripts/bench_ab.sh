#!/usr/bin/env bash
# Interleaved A/B of marrow_bench builds (docs/performance.md): runs each binary in turn, REPS
# times, pinned to one CPU, and prints per benchmark and binary the median and minimum CPU time
# (ns per iteration) over the repetitions. Build the "before" binary from the old commit in a
# worktree and copy both out of their build folders first.
#
#   scripts/bench_ab.sh FILTER REPS BEFORE_BIN AFTER_BIN [MORE_BINS...]
#
# Environment: CPU (default 0), MIN_TIME (--benchmark_min_time, default 0.2).
set -euo pipefail
filter=${1:?usage: scripts/bench_ab.sh FILTER REPS BIN BIN...}
reps=${2:?usage: scripts/bench_ab.sh FILTER REPS BIN BIN...}
shift 2
cpu=${CPU:-0}
min_time=${MIN_TIME:-0.2}
for _ in $(seq "$reps"); do
  for bin in "$@"; do
    # JSON, not CSV: Google Benchmark's CSV writer aborts when benchmarks report different counters.
    taskset -c "$cpu" "$bin" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
      --benchmark_format=json 2>/dev/null |
      python3 -c 'import json, sys
for b in json.load(sys.stdin)["benchmarks"]:
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
    if "error_occurred" not in b: print(sys.argv[1], b["name"], b["cpu_time"] * scale)' "$bin"
  done
done | python3 -c '
import collections, statistics, sys
times = collections.defaultdict(list)
for line in sys.stdin:
    binary, name, cpu_ns = line.split()
    times[(name, binary)].append(float(cpu_ns))
for (name, binary), t in sorted(times.items()):
    print(f"{name} {binary}: median {statistics.median(t):.0f} min {min(t):.0f} (n={len(t)})")
'
