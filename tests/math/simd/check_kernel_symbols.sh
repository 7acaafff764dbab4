#!/bin/sh
# The per-level SIMD translation units (compiled with -mavx2, -mavx512f, ...) must define no weak
# symbol that another translation unit could also define: the linker would keep one copy, and
# code built for AVX2 could then run on a processor without it. Every weak symbol they define must
# name its level (src/math/simd/README.md). Arguments: object files (others are ignored).
status=0
checked=0
for object in $(echo "$@" | tr ";" " "); do
  case "$object" in
    *_avx2.cpp.o | *_avx512.cpp.o) ;;
    *) continue ;;
  esac
  level=$(basename "$object" .cpp.o | sed 's/.*_//')
  checked=$((checked + 1))
  bad=$(nm -C --defined-only "$object" | awk '$2 ~ /^[Ww]$/' | grep -v "simd::$level::" || true)
  if [ -n "$bad" ]; then
    echo "$object defines weak symbols that do not name the $level level:"
    echo "$bad"
    status=1
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "no AVX2/AVX-512 kernel objects given (not an x86-64 build?)"
fi
echo "checked $checked kernel object files"
exit $status
