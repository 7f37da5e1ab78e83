#!/usr/bin/env bash
# data/workloads/*.json must be exactly what the built-in builders produce, and
# every file must pass `prism check`.
set -u
prism="$1"
dir="$PRISM_SOURCE_DIR/data/workloads"
fail=0
n=0
for w in $("$prism" workloads --json | python3 -c 'import json,sys; print(" ".join(w["name"] for w in json.load(sys.stdin)))'); do
  for kind in program fused; do
    if [ $kind = program ]; then file="$dir/$w.json"; flag=""; else file="$dir/fused/$w.json"; flag="--reference"; fi
    n=$((n + 1))
    if [ ! -f "$file" ]; then echo "missing: $file (run build-aux/update-workloads)"; fail=$((fail + 1)); continue; fi
    if ! diff -q <("$prism" check "$w" $flag --json) "$file" >/dev/null; then
      echo "differs from the builder: $file (run build-aux/update-workloads)"; fail=$((fail + 1)); continue
    fi
    if ! "$prism" check "$file" >/dev/null; then echo "prism check rejects $file"; fail=$((fail + 1)); fi
  done
done
echo "$((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]
