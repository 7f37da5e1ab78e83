#!/bin/sh
# bench-verify.sh — time the verifier on every hand-written fused graph.
#
#   tests/verify/bench-verify.sh BUILD/src/cli/prism [key=value,… per workload: none = defaults]
#
# Runs `prism verify WORKLOAD WORKLOAD@reference --json` (default shapes, 3
# seeds, interpreter on all processors) for every workload with a fused graph
# and prints a Markdown table of the evidence.  Not part of the test suite.
set -eu

prism=${1:?usage: bench-verify.sh PATH/TO/prism}

"$prism" workloads --json | python3 -c '
import json, subprocess, sys
prism = sys.argv[1]
rows = []
for w in json.load(sys.stdin):
    if not w["reference"]:
        continue
    name = w["name"]
    out = subprocess.run([prism, "verify", "--json", name, name + "@reference"],
                         capture_output=True, text=True)
    v = json.loads(out.stdout)
    f, r = v["formal"], v["random"]
    err = r["max_error"]
    rows.append("| %s | %s | %s | %d | %d | %d | %.3f | %.2f | %s |" % (
        name, w["params"], v["verdict"], f["proof_length"],
        f["iterations"], f["nodes"], f["seconds"], r["seconds"],
        "%.1e" % err if err is not None else "inf"))
print("| workload | shape | verdict | proof steps | iterations | e-nodes | proof (s) | random, 3 seeds (s) | max rel. error |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
print("\n".join(rows))
' "$prism"
