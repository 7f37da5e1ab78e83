#!/usr/bin/env bash
# test-gpu-bundle — build-aux/gpu-bundle --from-build makes a folder that runs
# with nothing of the system but the C runtime.
#
# The bundle of this build folder's prism and prism-gpu-worker: its layout,
# BUNDLE.txt, and ldd resolving every library that is not the C/C++ runtime
# inside it.  Then a chroot that holds only the bundle, the glibc family and
# libstdc++/libgcc_s copied from the host, and /bin/sh: there `prism
# workloads`, `check`, `run`, `export` and `bench` (no GPU: predicted times)
# give the same output as the build folder's binaries, the worker starts, and
# the loader (LD_DEBUG=libs, ld.so --list) takes every other library from the
# bundle.  Needs root for chroot; skipped (77) otherwise.
#
# Arguments: prism, prism-gpu-worker.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
prism=$1
worker=$2
src=${PRISM_SOURCE_DIR:?}
build=$(cd "$(dirname "$prism")/../.." && pwd)

fail () { echo "FAIL: $*"; exit 1; }
ok () { echo "ok: $*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: chroot needs root"
  exit 77
fi
chroot_bin=$(command -v chroot) || {
  echo "skipped: chroot is not installed"
  exit 77
}
# The loader finds $ORIGIN of a program through /proc/self/exe (and so does
# prism, for its worker): the root gets its own /proc, in a mount namespace
# of its own that goes away with the command.
unshare_bin=$(command -v unshare) || {
  echo "skipped: unshare is not installed (a chroot needs its own /proc)"
  exit 77
}
[ "$(dirname "$worker")" = "$(dirname "$prism")" ] || fail "prism and prism-gpu-worker are not in one folder"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prism-gpu-bundle-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/root/bundle"
mkdir -p "$tmp/root"

# 1. The bundle ----------------------------------------------------------------
"$src/build-aux/gpu-bundle" --from-build "$build" "$bundle" > "$tmp/bundle.log" 2>&1 ||
  { cat "$tmp/bundle.log"; fail "gpu-bundle --from-build failed"; }
for f in bin/prism bin/prism-gpu-worker lib/libglib-2.0.so.0 lib/libgobject-2.0.so.0 lib/libgio-2.0.so.0 \
         lib/libjson-glib-1.0.so.0 kernels/prism-runtime.cuh data/workloads/rms_norm.json \
         data/workloads/fused/rms_norm.json build-aux/gpu-check BUNDLE.txt; do
  [ -e "$bundle/$f" ] || fail "the bundle has no $f"
done
for l in "$bundle"/lib/*; do
  case "${l##*/}" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*)
      fail "the bundle holds the C runtime's ${l##*/}" ;;
  esac
done
grep -qE '^glibc-required: 2\.[0-9]+$' "$bundle/BUNDLE.txt" || fail "BUNDLE.txt names no glibc version"
grep -qE '^commit: [0-9a-f]{40}' "$bundle/BUNDLE.txt" || fail "BUNDLE.txt names no commit"
grep -q "bin/prism-gpu-worker" "$bundle/BUNDLE.txt" || fail "BUNDLE.txt lists no files"
ok "layout and BUNDLE.txt ($(sed -n 's/^size: //p' "$bundle/BUNDLE.txt"), glibc $(sed -n 's/^glibc-required: //p' "$bundle/BUNDLE.txt"))"

# Every library of every bundled file comes from the bundle, or is the C runtime.
c_runtime='^(linux-vdso\.so|/.*ld-linux|ld-linux|libc\.so|libm\.so|libmvec\.so|libpthread\.so|libdl\.so|librt\.so|libresolv\.so|libstdc\+\+\.so|libgcc_s\.so)'
runtime_paths="$tmp/runtime.txt"
: > "$runtime_paths"
for f in "$bundle"/bin/* "$bundle"/lib/*; do
  LD_LIBRARY_PATH='' ldd "$f" > "$tmp/ldd.txt" 2>&1 || fail "ldd ${f#"$bundle"/}: $(cat "$tmp/ldd.txt")"
  ! grep -q 'not found' "$tmp/ldd.txt" || fail "ldd ${f#"$bundle"/}: $(grep 'not found' "$tmp/ldd.txt")"
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || { case "$name" in /*) echo "$name" >> "$runtime_paths" ;; esac; continue; }
    real=$(readlink -f "$path")
    case "$real" in
      "$bundle"/lib/*) ;;
      *) [[ "$name" =~ $c_runtime ]] || fail "${f#"$bundle"/} loads $name from $path, outside the bundle"
         echo "$path" >> "$runtime_paths" ;;
    esac
  done < "$tmp/ldd.txt"
done
ok "ldd: every library but the C runtime resolves inside the bundle"

# 2. A root with only the bundle, the C/C++ runtime and /bin/sh -----------------
root="$tmp/root"
copy_in () {   # a host file to the same path in the root
  local dir
  dir=$(dirname "$1")
  mkdir -p "$root$dir"
  cp -L "$1" "$root$1"
}
for lib in libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libstdc++.so.6 libgcc_s.so.1; do
  path=$(ldconfig -p 2> /dev/null | awk -v l="$lib" '$1 == l && /x86-64|x86_64|64bit/ { print $NF; exit }')
  [ -n "$path" ] && echo "$path" >> "$runtime_paths"
done
sh_path=$(readlink -f /bin/sh)
mkdir -p "$root/bin" "$root/tmp" "$root/out" "$root/proc"
cp "$sh_path" "$root/bin/sh"
LD_LIBRARY_PATH='' ldd "$sh_path" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' >> "$runtime_paths"
sort -u "$runtime_paths" | while read -r p; do
  [ -n "$p" ] && [ -e "$p" ] && copy_in "$p"
done
# Nothing else: no /usr, no /etc, no ld.so.cache.
found=$(cd "$root" && find . -type f ! -path './bundle/*' ! -path './proc/*' | sort | tr '\n' ' ')
case "$found" in
  *libglib*|*libgio*|*libjson*|*libffi*|*libpcre*) fail "the root holds more than the C runtime: $found" ;;
esac
ok "root: the bundle, /bin/sh and $found"

in_root () {   # a shell command line, run in the root with an empty environment
  env -i PATH=/bin HOME=/ LC_ALL=C "$unshare_bin" --mount --pid --fork --mount-proc="$root/proc" \
    "$chroot_bin" "$root" /bin/sh -c "$1"
}
mkdir -p "$root/proc"
in_root 'echo chroot works; test -r /proc/self/exe' > "$tmp/chroot.txt" 2>&1 || {
  echo "skipped: a chroot with its own /proc does not work here: $(cat "$tmp/chroot.txt")"
  exit 77
}

# 3. The commands, inside and outside ------------------------------------------
in_root '/bundle/bin/prism workloads' > "$tmp/workloads.txt" 2>&1 || fail "prism workloads in the root: $(cat "$tmp/workloads.txt")"
for w in rms_norm rmsnorm_mlp swiglu attention qk_norm_attention; do
  grep -q "^$w " "$tmp/workloads.txt" || fail "prism workloads in the root does not list $w"
done
"$prism" workloads > "$tmp/workloads-host.txt" 2>&1
cmp -s "$tmp/workloads.txt" "$tmp/workloads-host.txt" || fail "prism workloads differs from the build's"
ok "prism workloads"

in_root '/bundle/bin/prism check rms_norm' > "$tmp/check.txt" 2>&1 || fail "prism check rms_norm in the root: $(cat "$tmp/check.txt")"
grep -q 'matmul' "$tmp/check.txt" || fail "prism check rms_norm printed no matmul: $(cat "$tmp/check.txt")"
"$prism" check rms_norm > "$tmp/check-host.txt" 2>&1
cmp -s "$tmp/check.txt" "$tmp/check-host.txt" || fail "prism check differs from the build's"
ok "prism check rms_norm"

in_root '/bundle/bin/prism run rms_norm --threads 1' > "$tmp/run.txt" 2>&1 || fail "prism run rms_norm in the root: $(cat "$tmp/run.txt")"
grep -q 'checksum' "$tmp/run.txt" || fail "prism run printed no checksum: $(cat "$tmp/run.txt")"
"$prism" run rms_norm --threads 1 > "$tmp/run-host.txt" 2>&1
diff <(grep -v 'interpreted in' "$tmp/run.txt") <(grep -v 'interpreted in' "$tmp/run-host.txt") > /dev/null ||
  fail "prism run computes other figures in the root: $(cat "$tmp/run.txt")"
ok "prism run rms_norm: $(grep checksum "$tmp/run.txt")"

in_root '/bundle/bin/prism export rms_norm --no-resource-usage --out /out/rms_norm' > "$tmp/export.txt" 2>&1 ||
  fail "prism export rms_norm in the root: $(cat "$tmp/export.txt")"
for f in prism_rms_norm.cu prism_rms_norm.h manifest.json graph.json Makefile prism-kernels/prism-runtime.cuh; do
  [ -s "$root/out/rms_norm/$f" ] || fail "prism export in the root wrote no $f"
done
"$prism" export rms_norm --no-resource-usage --out "$tmp/export-host" > /dev/null 2>&1
diff -r "$root/out/rms_norm" "$tmp/export-host" > /dev/null || fail "prism export in the root writes other files"
ok "prism export rms_norm"

# No driver in the root: bench says so and predicts (dlopen fails cleanly).
in_root '/bundle/bin/prism bench rms_norm:n=8,d=256 --format json' > "$tmp/bench.txt" 2>&1 ||
  fail "prism bench in the root: $(cat "$tmp/bench.txt")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["gpu"] is False and "libcuda" in d["message"], d' \
  "$tmp/bench.txt" || fail "prism bench in the root: $(cat "$tmp/bench.txt")"
ok "prism bench without a driver: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["message"])' "$tmp/bench.txt")"

# The worker starts (it fails on a job folder that does not exist).
in_root '/bundle/bin/prism-gpu-worker /nonexistent' > "$tmp/worker.txt" 2>&1
rc=$?
if [ $rc -eq 126 ] || [ $rc -eq 127 ] || grep -q 'error while loading shared libraries' "$tmp/worker.txt"; then
  fail "prism-gpu-worker does not start in the root (exit $rc): $(cat "$tmp/worker.txt")"
fi
ok "prism-gpu-worker starts (exit $rc on a missing job)"

# 4. What the loader did in the root ---------------------------------------------
interp=$(readelf -l "$prism" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ -n "$interp" ] || fail "no program interpreter in $prism"
for b in prism prism-gpu-worker; do
  in_root "$interp --list /bundle/bin/$b" > "$tmp/list-$b.txt" 2>&1 || fail "ld.so --list $b in the root: $(cat "$tmp/list-$b.txt")"
  ! grep -q 'not found' "$tmp/list-$b.txt" || fail "in the root $b misses $(grep 'not found' "$tmp/list-$b.txt")"
done
in_root 'LD_DEBUG=libs /bundle/bin/prism workloads' > "$tmp/ld-debug.txt" 2>&1 || fail "LD_DEBUG=libs prism workloads in the root"
grep 'calling init:' "$tmp/ld-debug.txt" | sed 's/.*calling init: //' | sort -u > "$tmp/inits.txt"
[ -s "$tmp/inits.txt" ] || fail "LD_DEBUG=libs printed no 'calling init' lines"
while read -r path; do
  case "$path" in
    /bundle/bin/../lib/*|/bundle/lib/*) ;;
    *) [[ "${path##*/}" =~ $c_runtime ]] || [[ "$path" =~ $c_runtime ]] ||
         fail "in the root prism loads $path, neither from the bundle nor the C runtime" ;;
  esac
done < "$tmp/inits.txt"
grep -q '/bundle/bin/../lib/libglib-2.0.so.0' "$tmp/inits.txt" || fail "libglib was not loaded from the bundle: $(cat "$tmp/inits.txt")"
ok "the loader in the root: $(tr '\n' ' ' < "$tmp/inits.txt")"

echo "all passed"
exit 0
