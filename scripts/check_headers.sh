#!/usr/bin/env bash
# Each public header compiles on its own, first in a translation unit of its own, with the
# project's warnings as errors: a header that leans on what its includer happened to include
# first fails here, naming itself. Usage: scripts/check_headers.sh [BUILD_DIR] (default build;
# its include/ holds the generated marrow/version.h). CXX picks the compiler (default c++).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
cxx=${CXX:-c++}
if [[ ! -f $build_dir/include/marrow/version.h ]]; then
  echo "check_headers: $build_dir/include/marrow/version.h is missing (configure first)" >&2
  exit 2
fi
export build_dir cxx
check_one() {
  local header=$1
  local out
  if ! out=$(printf '#include "%s"\n' "${header#include/}" |
    "$cxx" -std=c++20 -Wall -Wextra -Werror -fsyntax-only -Iinclude -I"$build_dir/include" \
      -x c++ - 2>&1); then
    printf '%s does not compile on its own:\n%s\n' "$header" "$out"
    return 1
  fi
}
export -f check_one
headers=$(git ls-files 'include/*.h')
count=$(wc -l <<<"$headers")
if xargs -P "${JOBS:-2}" -n 1 bash -c 'check_one "$0"' <<<"$headers"; then
  echo "check_headers: $count public headers compile on their own"
else
  echo "check_headers: a public header does not compile on its own (above)" >&2
  exit 1
fi
