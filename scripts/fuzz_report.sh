#!/usr/bin/env bash
# The figures docs/reliability.md quotes, from the last fuzz run (`make fuzz-report` calls it):
#
#   scripts/fuzz_report.sh FUZZ_BUILD_DIR COVERAGE_BUILD_DIR
#
# Replays each target's corpus (grown by `make fuzz`) plus its seeds and regression inputs once
# through the MARROW_COVERAGE build of the same target (clang source-based coverage), and
# measures the line, function and branch coverage of the reader it fuzzes (the COVERS folders
# of fuzz/CMakeLists.txt) with llvm-profdata-14 and llvm-cov-14. Writes
# COVERAGE_BUILD_DIR/report.md: per target, the fuzzing time, executions and speed, corpus size
# and findings of the last run (FUZZ_BUILD_DIR/fuzz/summary.tsv), and the coverage; then per
# reader, the coverage of all its targets' corpora together (the .X reader is fuzzed through
# text, binary and MSZIP targets, the glTF reader through JSON and GLB).
set -euo pipefail

fuzz_build=$(cd "${1:?usage: scripts/fuzz_report.sh FUZZ_BUILD_DIR COVERAGE_BUILD_DIR}" && pwd)
cov_build=$(cd "${2:?usage: scripts/fuzz_report.sh FUZZ_BUILD_DIR COVERAGE_BUILD_DIR}" && pwd)
# shellcheck source=/dev/null
source "$cov_build/fuzz/settings.sh"
source_dir=$MARROW_SOURCE_DIR
profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)
llvmcov=$(command -v llvm-cov-14 || command -v llvm-cov)
summary=$fuzz_build/fuzz/summary.tsv
[ -f "$summary" ] || { echo "fuzz-report: no $summary: run make fuzz first"; exit 1; }
profiles=$cov_build/fuzz/profiles
declare -A reader_targets
rm -rf "$profiles"
mkdir -p "$profiles"

report=$cov_build/report.md
{
  echo "| target | fuzzed | executions | per second | corpus | findings | reader lines covered | functions | branches |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$report"

while IFS=$'\t' read -r name _dict max_len _globs covers; do
  [ -n "$name" ] || continue
  inputs=()
  for d in "$fuzz_build/fuzz/corpus/$name" "$source_dir/fuzz/seeds/$name" \
    "$source_dir/tests/reliability/regressions/$name" "$fuzz_build/fuzz/derived/$name" \
    "$fuzz_build/fuzz/shared/$name"; do
    [ -d "$d" ] && inputs+=("$d")
  done
  LLVM_PROFILE_FILE="$profiles/$name.profraw" "$cov_build/bin/fuzz_$name" -runs=0 \
    -max_len="$max_len" "${inputs[@]}" >"$profiles/$name.log" 2>&1 || {
    echo "fuzz-report: replaying $name's corpus failed (a finding?): $profiles/$name.log"
    exit 1
  }
  "$profdata" merge -sparse "$profiles/$name.profraw" -o "$profiles/$name.profdata"
  sources=()
  IFS=, read -r -a folders <<<"${covers#-}"
  for f in "${folders[@]}"; do
    while IFS= read -r file; do sources+=("$file"); done < <(find "$source_dir/$f" -name '*.cpp' | sort)
  done
  # The TOTAL line: regions, missed, cover, functions, missed, executed, lines, missed, cover,
  # branches, missed, cover.
  total=$("$llvmcov" report "$cov_build/bin/fuzz_$name" -instr-profile="$profiles/$name.profdata" \
    "${sources[@]}" | awk '/^TOTAL/ {print $10, $7, $13}')
  read -r lines functions branches <<<"$total"
  "$llvmcov" report "$cov_build/bin/fuzz_$name" -instr-profile="$profiles/$name.profdata" \
    "${sources[@]}" >"$profiles/$name.coverage.txt"
  row=$(awk -F'\t' -v t="$name" '$1 == t {print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $8}' "$summary")
  IFS=$'\t' read -r seconds runs speed corpus findings <<<"${row:-?	?	?	?	?}"
  printf '| %s | %s s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$seconds" "$runs" "$speed" \
    "$corpus" "$findings" "$lines" "$functions" "$branches" >>"$report"
  echo "fuzz-report: $name: lines $lines, functions $functions, branches $branches (${covers#-})"
  reader_targets[${covers#-}]+="$name "
done <"$cov_build/fuzz/targets.tsv"

{
  echo
  echo "| reader | targets | lines covered | functions | branches |"
  echo "|---|---|---:|---:|---:|"
} >>"$report"
for covers in "${!reader_targets[@]}"; do
  read -r -a names <<<"${reader_targets[$covers]}"
  raws=() objects=()
  for n in "${names[@]}"; do
    raws+=("$profiles/$n.profraw")
    objects+=(-object "$cov_build/bin/fuzz_$n")
  done
  key=${covers//[\/,]/_}
  "$profdata" merge -sparse "${raws[@]}" -o "$profiles/reader_$key.profdata"
  sources=()
  IFS=, read -r -a folders <<<"$covers"
  for f in "${folders[@]}"; do
    while IFS= read -r file; do sources+=("$file"); done < <(find "$source_dir/$f" -name '*.cpp' | sort)
  done
  "$llvmcov" report "${objects[@]:1}" -instr-profile="$profiles/reader_$key.profdata" \
    "${sources[@]}" >"$profiles/reader_$key.coverage.txt"
  read -r lines functions branches <<<"$(awk '/^TOTAL/ {print $10, $7, $13}' \
    "$profiles/reader_$key.coverage.txt")"
  printf '| %s | %s | %s | %s | %s |\n' "$covers" "${names[*]}" "$lines" "$functions" \
    "$branches" >>"$report"
done

echo
echo "Per-file coverage: $profiles/<target>.coverage.txt. Table for docs/reliability.md:"
cat "$report"
