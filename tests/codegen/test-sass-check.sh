#!/usr/bin/env bash
# test-sass-check — build-aux/sass-check reads the SASS of compiled kernels and
# says where it disagrees with the launch plan's report in manifest.json.
#
# 1. A fixture of three hand-written kernels (tests/codegen/sass-fixture/)
#    with honest claims agrees (exit 0); each claim doctored is reported as a
#    disagreement naming the kernel (exit 1): 16-byte loads over the kernel
#    that reads 4-byte words one at a time, a sector efficiency of 1 over the
#    same kernel, a cp.async ring over the kernel without LDGSTS, no
#    synchronous loads over the ring kernel that has one in its loop,
#    tensor cores and outputs summed over blocks over the plain copy.
# 2. Today's code: the best candidate of rms_norm and swiglu (default
#    searches) and rms_norm's unfused program agree with their reports; the
#    table lists every kernel of their manifests; a stage count doctored over
#    one of their kernels that has no LDGSTS is reported.
# 3. No nvcc, no cuobjdump: skipped (77) with a message.
#
# Skipped (77) when nvcc or cuobjdump is missing.  Arguments: prism.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
prism=$1
src=${PRISM_SOURCE_DIR:?}
check="$src/build-aux/sass-check"
py=$(command -v python3) || { echo "skipped: python3 is not installed"; exit 77; }

fail () { echo "FAIL: $*"; exit 1; }
ok () { echo "ok: $*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prism-sass-check-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Runs sass-check with "$@", output in $tmp/out, status in $rc.
sass_check () {
  "$py" "$check" --prism "$prism" "$@" > "$tmp/out" 2>&1
  rc=$?
}

# Copies the fixture to $tmp/NAME with report field FIELD of kernel KERNEL set
# to VALUE (JSON).
doctor () {
  local name=$1 kernel=$2 field=$3 value=$4 from=${5:-$src/tests/codegen/sass-fixture}
  rm -rf "${tmp:?}/$name"
  cp -r "$from" "$tmp/$name"
  "$py" - "$tmp/$name/manifest.json" "$kernel" "$field" "$value" <<'PY' || fail "doctoring $name"
import json, sys
path, kernel, field, value = sys.argv[1:]
m = json.load(open(path))
hit = [k for k in m["kernels"] if k["name"] == kernel]
assert hit, kernel
hit[0]["report"][field] = json.loads(value)
json.dump(m, open(path, "w"), indent=2)
PY
}

# 1. The fixture -------------------------------------------------------------
sass_check "$src/tests/codegen/sass-fixture"
if [ "$rc" -eq 77 ]; then
  echo "skipped: $(cat "$tmp/out")"
  exit 77
fi
[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "the honest fixture does not agree (exit $rc)"; }
for k in fixture_strided fixture_vector fixture_ring; do
  grep -q "	$k	.*	yes$" "$tmp/out" || { cat "$tmp/out"; fail "no agreeing row for $k"; }
done
grep -q "^sass-fixture	fixture_strided	1	-	[0-9]*×4	" "$tmp/out" ||
  { cat "$tmp/out"; fail "fixture_strided's loads are not all 4-byte"; }
grep -q "^sass-fixture	fixture_ring	2	[0-9]*×16	" "$tmp/out" ||
  { cat "$tmp/out"; fail "fixture_ring's LDGSTS are not 16-byte"; }
grep -q "finding: sass-fixture fixture_strided: uncoalesced partial accesses" "$tmp/out" ||
  { cat "$tmp/out"; fail "fixture_strided's uncoalesced reads are not found"; }
ok "the honest fixture agrees; its widths and the uncoalesced reads are read from the SASS"
sass_check "$src/tests/codegen/sass-fixture" --strict
[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "--strict: the fixture's findings do not fail the run (exit $rc)"; }
ok "--strict fails on the fixture's findings"

expect_disagreement () {
  local what=$1 pattern=$2
  sass_check "$tmp/$what"
  [ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "$what: exit $rc, not 1"; }
  grep -q "^DISAGREES: $what $pattern" "$tmp/out" || { cat "$tmp/out"; fail "$what: no '$pattern'"; }
  ok "$what is a disagreement"
}
doctor wide-loads fixture_strided narrowest_global_load_bytes 16
expect_disagreement wide-loads "fixture_strided: report says every global load is at least 16 bytes; the SASS has [0-9]* of 4 bytes"
doctor efficient fixture_strided global_sector_efficiency 1.0
expect_disagreement efficient "fixture_strided: report says global_sector_efficiency 1.00; the SASS has an access in a loop using"
doctor ring fixture_vector stages 3
expect_disagreement ring "fixture_vector: report says a 3-stage cp.async ring; the SASS has no LDGSTS"
doctor all-in-ring fixture_ring sync_load_bytes 0
expect_disagreement all-in-ring "fixture_ring: report says every loop tile streams through the ring"
doctor tensor-cores fixture_vector mma '"wmma"'
expect_disagreement tensor-cores "fixture_vector: report says the matmul runs on tensor cores (wmma); the SASS has no HMMA"
doctor split fixture_vector split_outputs 2
expect_disagreement split "fixture_vector: report says 2 outputs are summed over blocks; the SASS has no global atomic"

# 2. Today's code ------------------------------------------------------------
sass_check rms_norm swiglu --no-unfused --keep "$tmp/work" --json "$tmp/rows.json"
[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "today's best kernels disagree with their reports (exit $rc)"; }
"$prism" export rms_norm --out "$tmp/rms_norm-unfused" --no-resource-usage > /dev/null 2>&1 ||
  fail "prism export rms_norm"
sass_check "$tmp/rms_norm-unfused" --json "$tmp/unfused.json"
[ "$rc" -eq 0 ] || { cat "$tmp/out"; fail "rms_norm's unfused kernels disagree with their reports (exit $rc)"; }
# Every kernel of every manifest has a row; pick one without LDGSTS.
pick=$("$py" - "$tmp/work" "$tmp/rms_norm-unfused" "$tmp/rows.json" "$tmp/unfused.json" <<'PY'
import glob, json, os, sys
work, unfused, rows_a, rows_b = sys.argv[1:]
rows = json.load(open(rows_a)) + json.load(open(rows_b))
names = {r["kernel"] for r in rows}
bundles = [os.path.dirname(p) for p in glob.glob(os.path.join(work, "*", "manifest.json"))]
bundles.append(unfused)
for b in bundles:
    for k in json.load(open(os.path.join(b, "manifest.json")))["kernels"]:
        if k["role"] == "block_graph" and k["name"] not in names:
            sys.exit("no row for " + k["name"])
for r in rows:
    if not r["facts"]["ldgsts"]:
        b = [b for b in bundles
             if any(k["name"] == r["kernel"]
                    for k in json.load(open(os.path.join(b, "manifest.json")))["kernels"])][0]
        print(b, r["kernel"])
        break
PY
) || fail "the rows do not cover the manifests: $pick"
ok "rms_norm's and swiglu's best kernels and rms_norm's unfused kernels agree with their reports"
if [ -n "$pick" ]; then
  set -- $pick
  doctor doctored-real "$2" stages 4 "$1"
  expect_disagreement doctored-real "$2: report says a 4-stage cp.async ring; the SASS has no LDGSTS"
else
  echo "note: every kernel of today's bundles has LDGSTS; the doctored ring is checked on the fixture only"
fi

# 3. No nvcc, no cuobjdump -----------------------------------------------------
NVCC=/nonexistent/nvcc sass_check "$src/tests/codegen/sass-fixture"
[ "$rc" -eq 77 ] || { cat "$tmp/out"; fail "no nvcc: exit $rc, not 77"; }
grep -q "skipped: nvcc not found" "$tmp/out" || { cat "$tmp/out"; fail "no nvcc: no message"; }
ok "without nvcc the check skips (77) and says why"
CUOBJDUMP=/nonexistent/cuobjdump sass_check "$src/tests/codegen/sass-fixture"
[ "$rc" -eq 77 ] || { cat "$tmp/out"; fail "no cuobjdump: exit $rc, not 77"; }
grep -q "skipped: cuobjdump not found" "$tmp/out" || { cat "$tmp/out"; fail "no cuobjdump: no message"; }
ok "without cuobjdump the check skips (77) and says why"
