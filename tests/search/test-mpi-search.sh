#!/usr/bin/env bash
# `mpirun -np 3 prism search`: the same candidates (ids, digests, places in
# the search, equivalents, best) as one process on rms_norm and swiglu, every
# rank ran tasks; a rank killed after its first task ends the run with the
# results kept and --resume then gives the full set; SIGTERM or SIGINT to a
# rank > 0 stops every rank; a rank that cannot read the program fails the
# run with its message on rank 0, exit 2, no hang.
#   test-mpi-search.sh PRISM MPI   (MPI: whether prism was built with MPI)
set -u
prism="$1"
built_with_mpi="$2"
if [ "$built_with_mpi" != true ]; then
  echo "SKIP: prism was built without MPI (meson option mpi)"; exit 77
fi
if ! command -v mpirun >/dev/null; then
  echo "SKIP: mpirun is missing (Debian: openmpi-bin)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# Under the sanitizer build, LeakSanitizer would report Open MPI's own
# allocations that outlive MPI_Finalize (no prism frame in any): leak
# checking is off for the ranks only, the one-process runs keep it.
mpi_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpirun=(timeout 120 env "ASAN_OPTIONS=$mpi_asan" mpirun --allow-run-as-root --oversubscribe -np 3)
search=(search --threads 1 --time-limit 0 --tune-top 0)

# Everything the candidates of a results file say that must not depend on
# how many processes found them.
summary () {
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["candidates"]:
    print(c["id"], c["digest"], c.get("order"), c["params"], c["predicted_us"],
          [(e["digest"], e.get("order")) for e in c.get("equivalent", [])])
print("best", d["best"])
s = d["stats"]
print("stats", s["states"], s["sgraphs"], s["verified"], s["equivalent"], s["tasks"], s["tasks_done"])
print("complete", d["complete"], d["stop_reason"])
EOF
}

check_same () {   # NAME ONE MANY
  if ! diff <(summary "$2") <(summary "$3") >"$tmp/diff"; then
    echo "FAIL: $1: the ranks found other candidates than one process:"; head -20 "$tmp/diff"
    fail=$((fail + 1))
  else
    echo "ok: $1: the ranks give the same $(grep -c '^[0-9]' <(summary "$2")) candidates as one process"
  fi
}

for w in rms_norm swiglu; do
  "$prism" "${search[@]}" "$w" --out "$tmp/$w-1" 2>/dev/null
  "${mpirun[@]}" "$prism" "${search[@]}" "$w" --out "$tmp/$w-3" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $w: mpirun -np 3 exited with $rc"; tail -20 "$tmp/log"; fail=$((fail + 1)); continue
  fi
  check_same "$w" "$tmp/$w-1/results.json" "$tmp/$w-3/results.json"
  # Every rank ran tasks, and says so in stats.ranks.
  if ! python3 - "$tmp/$w-3/results.json" <<'EOF'
import json, sys
ranks = json.load(open(sys.argv[1]))["stats"].get("ranks", [])
assert [r["rank"] for r in ranks] == [0, 1, 2], ranks
for r in ranks:
    assert r["tasks"] > 0 and r["states"] >= 0 and r["state"] == "exhausted", r
    assert r["messages_sent"] > 0 and r["messages_received"] > 0, r
EOF
  then
    echo "FAIL: $w: stats.ranks does not show 3 ranks that each ran tasks"; fail=$((fail + 1))
  else
    echo "ok: $w: every rank ran tasks"
  fi
done

# The split adapts to the ranks (issue 22): at least 8 tasks per rank, the
# same split as one process asked for as many (--min-tasks), every rank ran
# some and none ran more than 3 times its share.  rms_norm splits into 55
# tasks at the fixed depth: 8 ranks need a deeper split.
for np in 2 8; do
  want=$((8 * np))
  "$prism" "${search[@]}" rms_norm --min-tasks "$want" --out "$tmp/split-$np-1" 2>/dev/null
  timeout 300 env "ASAN_OPTIONS=$mpi_asan" mpirun --allow-run-as-root --oversubscribe -np "$np" \
    "$prism" "${search[@]}" rms_norm --out "$tmp/split-$np" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: split at $np ranks: mpirun exited with $rc"; tail -20 "$tmp/log"; fail=$((fail + 1)); continue
  fi
  check_same "split at $np ranks" "$tmp/split-$np-1/results.json" "$tmp/split-$np/results.json"
  if ! python3 - "$tmp/split-$np/results.json" "$np" "$want" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); np = int(sys.argv[2]); want = int(sys.argv[3])
tasks = d["stats"]["tasks"]
assert tasks >= want, (tasks, want)
ranks = d["stats"]["ranks"]
assert len(ranks) == np, ranks
counts = [r["tasks"] for r in ranks]
# Counts, not balance: the handout is dynamic, so how many a rank takes
# depends on the machine's load (8 ranks oversubscribed on 2 busy cores
# gave rank 0 48 of 100).  The balance of the split itself is checked
# deterministically by /search/split-for-ranks.
assert min(counts) > 0 and sum(counts) == tasks, counts
print("  %d ranks: %d tasks, per rank %s" % (np, tasks, counts))
EOF
  then
    echo "FAIL: split at $np ranks: too few tasks, or a rank ran none"; fail=$((fail + 1))
  else
    echo "ok: split at $np ranks: at least $want tasks, spread over every rank"
  fi
done

# Rank 2 dies as if killed with kill -9 after its first task report.
"${mpirun[@]}" -x PRISM_MPI_TEST_DIE_RANK=2 -x PRISM_MPI_TEST_DIE_AFTER=1 \
  "$prism" "${search[@]}" rms_norm --out "$tmp/killed" >"$tmp/log" 2>&1
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
  echo "FAIL: killed rank: mpirun exited with $rc (0: rank 2 was never killed; 124: a hang)"
  tail -20 "$tmp/log"; fail=$((fail + 1))
elif ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["complete"]' \
       "$tmp/killed/results.json"; then
  echo "FAIL: killed rank: no results.json kept, or it says the search is complete"; fail=$((fail + 1))
else
  echo "ok: a killed rank ends the run (exit $rc) with results.json kept"
  "${mpirun[@]}" "$prism" "${search[@]}" rms_norm --out "$tmp/killed" --resume >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: --resume after the kill exited with $rc"; tail -20 "$tmp/log"; fail=$((fail + 1))
  elif ! diff <(summary "$tmp/rms_norm-1/results.json" | grep -v '^stats') \
              <(summary "$tmp/killed/results.json" | grep -v '^stats') >"$tmp/diff"; then
    echo "FAIL: --resume after the kill does not give the one-process candidates:"; head -20 "$tmp/diff"
    fail=$((fail + 1))
  else
    echo "ok: --resume after the kill gives the full set"
  fi
fi

# SIGTERM or SIGINT to a rank other than 0 stops the whole run, as on rank
# 0: every rank ends, results.json is kept and says stopped (before: only
# that rank stopped; the others searched on to the end or the time limit,
# 40-60 s with the default one, which looked like a hang).
for sig in TERM:2 INT:1; do
  rm -rf "$tmp/signalled"
  "${mpirun[@]}" -x PRISM_MPI_TEST_SIGNAL_RANK="${sig#*:}" -x PRISM_MPI_TEST_SIGNAL="${sig%:*}" \
    "$prism" "${search[@]}" attention --out "$tmp/signalled" >"$tmp/log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    echo "FAIL: SIG${sig%:*} to rank ${sig#*:}: mpirun exited with $rc (124: a hang)"; tail -20 "$tmp/log"
    fail=$((fail + 1))
  elif ! python3 - "$tmp/signalled/results.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["complete"] and d["stop_reason"] == "stopped", (d["complete"], d["stop_reason"])
states = [(r["rank"], r["state"]) for r in d["stats"]["ranks"]]
# Rank 0 stopped instead of searching on; a rank that ran out of granted
# tasks as the stop came may say "exhausted".
assert states[0] == (0, "stopped"), states
EOF
  then
    echo "FAIL: SIG${sig%:*} to rank ${sig#*:}: the other ranks did not stop"; fail=$((fail + 1))
  else
    echo "ok: SIG${sig%:*} to rank ${sig#*:} stops every rank (exit $rc), results.json kept"
  fi
done

# Rank 2 cannot read the program: every rank stops, rank 0 says why.
"${mpirun[@]}" -x PRISM_MPI_TEST_FAIL_RANK=2 "$prism" "${search[@]}" rms_norm --out "$tmp/unread" \
  >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 2 ]; then
  echo "FAIL: unreadable program on rank 2: exit $rc, not 2 (124: a hang)"; tail -20 "$tmp/log"
  fail=$((fail + 1))
elif ! grep -q "^prism search: rank 2: rms_norm: cannot be read" "$tmp/log"; then
  echo "FAIL: unreadable program on rank 2: rank 0 did not print rank 2's message:"; tail -20 "$tmp/log"
  fail=$((fail + 1))
elif [ -e "$tmp/unread/results.json" ]; then
  echo "FAIL: unreadable program on rank 2: a results.json was written"; fail=$((fail + 1))
else
  echo "ok: a rank that cannot read the program fails the run with its message on rank 0 (exit 2)"
fi

[ $fail -eq 0 ]
