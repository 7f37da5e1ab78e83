#!/usr/bin/env bash
# test-import-cli.sh — `prism import`: ONNX models to programs that `prism
# check` accepts, --dim, the errors (exit 2, naming what was wrong) and the
# .pt2 path's errors when Python or prism_torch is missing.
#
# Usage: test-import-cli.sh PRISM
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
prism=$1
src=${PRISM_SOURCE_DIR:?}
models=$src/tests/import/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect STATUS TEXT COMMAND…: the command exits with STATUS and its output has TEXT.
expect () {
  local want=$1 text=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$tmp/out"; then
    echo "FAIL: $* exited $got (want $want) with:"; cat "$tmp/out"; echo "(wanted “$text”)"
    fail=1
  else
    echo "ok: $*"
  fi
}

expect 0 "$tmp/gelu.json: 3 ops" "$prism" import "$models/gelu_erf/model.onnx" --out "$tmp/gelu.json"
expect 0 "gelu (t0)" "$prism" check "$tmp/gelu.json"
expect 0 "\"op\": \"silu\"" "$prism" import "$models/swiglu_mlp/model.onnx"
expect 2 "dim 0 is “batch”, which has no size: give it one with --dim batch=N" \
  "$prism" import "$models/dim_param/model.onnx" --out "$tmp/dim.json"
[ -e "$tmp/dim.json" ] && { echo "FAIL: a refused model wrote its --out"; fail=1; }
expect 0 "ops" "$prism" import "$models/dim_param/model.onnx" --dim batch=4 --out "$tmp/dim.json"
expect 0 "input \"x\" -> t0 [4, 16] f32" "$prism" check "$tmp/dim.json"
expect 2 "--dim “batch”: expected NAME=VALUE" "$prism" import "$models/dim_param/model.onnx" --dim batch
expect 2 "--dim seq: no graph input has a dim named “seq”" \
  "$prism" import "$models/dim_param/model.onnx" --dim batch=4 --dim seq=2
expect 2 "node 1 “/act/Tanh” (Tanh): not supported" "$prism" import "$models/unsupported_tanh/model.onnx"
expect 2 "external data in “weights.bin”" "$prism" import "$models/external_data/model.onnx"
printf 'not a model' > "$tmp/junk.onnx"
expect 2 "not an ONNX model" "$prism" import "$tmp/junk.onnx"
expect 2 "not an ONNX model (.onnx) or a torch.export program (.pt2)" "$prism" import "$tmp/gelu.json"
touch "$tmp/model.pt2"
if [ -f "$src/python/prism_torch/__init__.py" ]; then
  expect 2 "cannot run /nonexistent/python" env PRISM_PYTHON=/nonexistent/python "$prism" import "$tmp/model.pt2"
else
  expect 2 "needs the prism_torch package" env PRISM_PYTHON=/nonexistent/python "$prism" import "$tmp/model.pt2"
fi
expect 2 "--dim applies to ONNX models" "$prism" import "$tmp/model.pt2" --dim batch=2
exit $fail
