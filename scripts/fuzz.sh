#!/usr/bin/env bash
# Runs every fuzz target of a MARROW_FUZZ build (`make fuzz` calls it; docs/reliability.md).
#
#   scripts/fuzz.sh BUILD_DIR
#
# Settings (environment):
#   FUZZ_SECONDS   time per target (default 60)
#   FUZZ_TARGETS   space-separated targets to run (default: every line of targets.tsv)
#   FUZZ_PARALLEL  targets run at once (default 1; CI uses one per core)
#   FUZZ_RSS_MB    memory limit per fuzzer process, also the largest single allocation
#                  (default 2048)
#   FUZZ_TIMEOUT   seconds one input may take before it is a hang (default 10)
#
# Each target's corpus starts from its committed seeds (fuzz/seeds/<t>), the regression inputs
# (tests/reliability/regressions/<t>), the shared assets its SHARED_SEEDS globs name, and the
# seeds marrow_fuzz_seeds derives from ../shared; it grows in BUILD_DIR/fuzz/corpus/<t> from run
# to run. A finding (crash, sanitizer report, leak, hang, out-of-memory, broken invariant or
# budget) leaves its input in BUILD_DIR/fuzz/findings/<t>/ and makes the script exit 1. Figures
# per target go to BUILD_DIR/fuzz/summary.tsv.
set -uo pipefail

build=${1:?usage: scripts/fuzz.sh BUILD_DIR}
build=$(cd "$build" && pwd)
seconds=${FUZZ_SECONDS:-60}
parallel=${FUZZ_PARALLEL:-1}
rss_mb=${FUZZ_RSS_MB:-2048}
timeout_s=${FUZZ_TIMEOUT:-10}
work=$build/fuzz
# shellcheck source=/dev/null
source "$work/settings.sh"
source_dir=$MARROW_SOURCE_DIR
shared_dir=$MARROW_SHARED_DIR

declare -A dict max_len globs
all_targets=()
while IFS=$'\t' read -r name d len g _covers; do
  [ -n "$name" ] || continue
  all_targets+=("$name")
  dict[$name]=${d#-}
  max_len[$name]=$len
  globs[$name]=${g#-}
done <"$work/targets.tsv"
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"

# Derived seeds, made afresh each run from ../shared (never committed), by FUZZ_PARALLEL
# processes that share the assets between them.
rm -rf "$work/derived" "$work/shared" "$work"/derived*.log
seed_pids=()
for ((shard = 0; shard < parallel; shard++)); do
  "$build/bin/marrow_fuzz_seeds" "$shared_dir" "$work/derived" 65536 "$source_dir/fuzz/seeds" \
    "$shard/$parallel" >"$work/derived.$shard.log" 2>&1 &
  seed_pids+=($!)
done
for ((shard = 0; shard < parallel; shard++)); do
  wait "${seed_pids[$shard]}" ||
    { echo "fuzz: marrow_fuzz_seeds (shard $shard/$parallel) failed:"; cat "$work/derived.$shard.log"; exit 1; }
done

run_target() {
  local t=$1
  local corpus=$work/corpus/$t findings=$work/findings/$t log=$work/logs/$t.log
  mkdir -p "$corpus" "$findings" "$work/logs" "$work/shared/$t"
  rm -f "$findings"/*
  # Shared assets named by the target's globs, if small enough to be useful seeds.
  local IFS=,
  for pattern in ${globs[$t]}; do
    for f in "$shared_dir"/$pattern; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "${max_len[$t]}" ] && cp "$f" "$work/shared/$t/"
    done
  done
  unset IFS
  local inputs=("$corpus")
  for d in "$source_dir/fuzz/seeds/$t" "$source_dir/tests/reliability/regressions/$t" \
    "$work/derived/$t" "$work/shared/$t"; do
    [ -d "$d" ] && inputs+=("$d")
  done
  local options=(-max_total_time="$seconds" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb"
    -timeout="$timeout_s" -max_len="${max_len[$t]}" -print_final_stats=1
    -artifact_prefix="$findings/")
  [ -n "${dict[$t]}" ] && options+=(-dict="$source_dir/fuzz/dict/${dict[$t]}")
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/bin/fuzz_$t" "${options[@]}" "${inputs[@]}" >"$log" 2>&1
  local rc=$?
  local runs speed cov ft
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  local found
  found=$(find "$findings" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$seconds" "${runs:-0}" "${speed:-0}" \
    "$(find "$corpus" -type f | wc -l)" "${cov:-0}" "${ft:-0}" "$found" >"$work/logs/$t.tsv"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "fuzz: $t: FINDING (exit $rc) after ${runs:-?} runs; input(s) in $findings/:"
    ls "$findings" | sed 's/^/  /'
    grep -m 12 -E 'ERROR|SUMMARY|fuzz check failed|runtime error|==[0-9]+==' "$log" | sed 's/^/  /'
    echo "  reproduce: $build/bin/fuzz_$t $findings/<file>   (full log: $log)"
    return 1
  fi
  echo "fuzz: $t: ${runs:-0} runs in ${seconds} s (${speed:-0}/s), corpus $(find "$corpus" -type f | wc -l), coverage ${cov:-0} edges, no finding"
}

echo "fuzz: ${#targets[@]} targets, ${seconds} s each, ${parallel} at a time, -rss_limit_mb=$rss_mb, -timeout=$timeout_s"
status=0
pids=()
for t in "${targets[@]}"; do
  [ -n "${max_len[$t]:-}" ] || { echo "fuzz: no target '$t' in $work/targets.tsv"; exit 2; }
  run_target "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$parallel" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done

{
  printf 'target\tseconds\truns\texec_per_s\tcorpus\tcoverage_edges\tfeatures\tfindings\n'
  for t in "${targets[@]}"; do cat "$work/logs/$t.tsv"; done
} >"$work/summary.tsv"
if [ "$status" -ne 0 ]; then
  echo "fuzz: FINDINGS. Fix each, then commit its input under tests/reliability/regressions/<target>/"
  echo "      (the suite replays that folder: ctest -R reliability.fuzz_regressions)."
fi
exit "$status"
