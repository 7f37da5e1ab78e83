#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tests of build-aux/torch-baseline.

  test-torch-baseline.py input   PRISM SCRIPT   no torch needed: usage, bad
      input (every tests/ir/bad file, a custom kernel, missing files, unknown
      workloads), the workload folders (the source tree and a bundle's
      share/prism-explorer/workloads), attention detection (--dry-run), and
      the exit code 77 when torch cannot be imported;
  test-torch-baseline.py numeric PRISM SCRIPT   the translation against the
      CPU interpreter: every built-in workload at small shapes in f32 and the
      graphs of tests/tools/graphs, run with --device cpu; inputs must be
      bit-identical to `prism run --save-inputs` (f16 and bf16 too), every
      variant's outputs within 1e-5 of `prism run --save-outputs`; and
      mutants (gelu in its tanh form, SDPA with its default scale, rms_norm
      with an epsilon, sum without keepdim) must be caught.  Skips (77) when
      torch cannot be imported by $PRISM_TORCH_PYTHON (default: the project's
      .venv/bin/python, which build-aux/setup makes with torch, else python3).

Run by meson (tests/tools/meson.build) with PRISM_SOURCE_DIR set.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from array import array

SKIP = 77
F32_TOLERANCE = 1e-5          # torch f32 against the interpreter's f32 (errors seen: ≤ 1e-6)
# f32-predefined raises exp(…) to powers up to ~100: 2e-5 seen there.
LOOSER = {"f32_predefined": 1e-4}
F16_TOLERANCE = 2e-2
ATTENTION = {"attention": 1, "gqa": 1, "qk_norm_attention": 1}
GRAPHS = {"all-ops.json": 1, "attention-shuffled.json": 2, "not-attention.json": 0}
SMALL_MAX = 32                # every workload parameter is cut down to at most this
FAST = ["--warmup-ms", "0", "--min-samples", "1", "--min-time-ms", "0"]


class Checks:
    """TAP-like lines; counts failures."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, detail=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {what}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {what}")
            for line in str(detail).strip().splitlines()[-40:]:
                print(f"#   {line}")
        return cond

    def finish(self):
        print(f"1..{self.n}")
        print(f"# {self.n - self.failed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def run(cmd, env=None, cwd=None, timeout=900):
    """Runs a command; returns (exit code, stdout, stderr)."""
    e = dict(os.environ)
    e.setdefault("OMP_NUM_THREADS", "1")       # a loaded 2-core machine makes OpenMP crawl
    if env:
        e.update(env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read_f32(path):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


def rel_error(got, want):
    """Normwise max relative error (prism_buffer_max_rel_error)."""
    if len(got) != len(want):
        return float("inf")
    max_diff = max_ref = 0.0
    for g, w in zip(got, want):
        if g != g or w != w:
            if (g != g) != (w != w):
                return float("inf")
            continue
        d = 0.0 if g == w else abs(g - w)
        max_diff = max(max_diff, d)
        if abs(w) != float("inf"):
            max_ref = max(max_ref, abs(w))
    return max_diff / max(max_ref, 1e-30)


def source_dir():
    return os.environ.get("PRISM_SOURCE_DIR") or os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def workloads(prism):
    code, out, err = run([prism, "workloads", "--json"])
    if code != 0:
        raise SystemExit(f"prism workloads --json failed: {err}")
    return json.loads(out)


def small_params(params):
    """n=8,d=4096 -> n=8,d=32."""
    parts = []
    for kv in params.split(","):
        k, v = kv.split("=")
        parts.append(f"{k}={min(int(v), SMALL_MAX)}")
    return ",".join(parts)


# ---------------------------------------------------------------------------

def test_input(prism, script):
    """Everything that needs no torch."""
    c = Checks()
    src = source_dir()
    py = sys.executable
    tb = [py, script]

    code, out, err = run(tb + ["--help"])
    c.ok(code == 0 and "--time-budget" in out and "--max-autotune" in out, "--help", err)
    code, out, err = run(tb)
    c.ok(code == 2, "no program: exit 2", err)
    for bad in (["--variants", "eager,fast"], ["--device", "tpu"], ["--min-samples", "0"],
                ["--format", "html"], ["--data-dir", "/nonexistent-folder"], ["--input-scale", "0"]):
        code, out, err = run(tb + bad + ["rms_norm"])
        c.ok(code == 2 and "torch-baseline" in err, f"bad option {' '.join(bad)}: exit 2", err)

    bad_dir = os.path.join(src, "tests", "ir", "bad")
    for name in sorted(os.listdir(bad_dir)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(bad_dir, name)
        code, out, err = run(tb + ["--dry-run", path])
        c.ok(code == 2 and err.startswith(f"torch-baseline: {path}: ") and len(err.splitlines()) == 1,
             f"bad file {name}: exit 2, one line naming the file", f"exit {code}\n{err}")

    kernel = os.path.join(src, "tests", "ir", "good", "rms-norm-linear.json")
    code, out, err = run(tb + ["--dry-run", kernel])
    c.ok(code == 2 and "op 2 (kernel)" in err and "custom kernel" in err,
         "a custom kernel: exit 2, the op named", err)
    code, out, err = run(tb + [kernel, "--device", "cpu"])
    c.ok(code == 2 and "op 2 (kernel)" in err, "a custom kernel without --dry-run: exit 2 before torch", err)
    code, out, err = run(tb + ["--dry-run", "/nonexistent/graph.json"])
    c.ok(code == 2 and "/nonexistent/graph.json: no such file" in err, "a missing file: exit 2", err)
    code, out, err = run(tb + ["--dry-run", "no_such_workload"])
    c.ok(code == 2 and "no_such_workload" in err and "rms_norm" in err,
         "an unknown workload: exit 2, the known ones listed", err)
    code, out, err = run(tb + ["--dry-run", "rms_norm:n=4,d=64"])
    c.ok(code == 2 and "prism check" in err, "shape parameters: exit 2 with a hint", err)
    code, out, err = run(tb + ["--dry-run", "rms_norm", "/nonexistent.json"])
    c.ok(code == 2 and out == "", "one bad program among good ones: exit 2 before anything runs", out + err)

    names = [w["name"] for w in workloads(prism)]
    data = os.path.join(src, "data", "workloads")
    c.ok(sorted(names) == sorted(f[:-5] for f in os.listdir(data) if f.endswith(".json")),
         "data/workloads holds every built-in workload", f"{names}")
    code, out, err = run(tb + ["--dry-run"] + names)
    c.ok(code == 0 and all(f"{w}: {os.path.join(data, w)}.json" in out for w in names),
         "--dry-run on every built-in workload, found by name next to the script", out + err)
    for w in names:
        code, out, err = run(tb + ["--dry-run", w])
        want = ATTENTION.get(w, 0)
        c.ok(code == 0 and out.count("  attention: Q") == want, f"{w}: {want} attention pattern(s) found",
             out + err)
    for name, want in GRAPHS.items():
        path = os.path.join(src, "tests", "tools", "graphs", name)
        code, out, err = run(tb + ["--dry-run", path])
        c.ok(code == 0 and out.count("  attention: Q") == want, f"{name}: {want} attention pattern(s)", out + err)

    with tempfile.TemporaryDirectory(prefix="torch-baseline-test-") as tmp:
        # A bundle: bin/torch-baseline with share/prism-explorer/workloads beside.
        share = os.path.join(tmp, "bundle", "share", "prism-explorer", "workloads")
        os.makedirs(share)
        os.makedirs(os.path.join(tmp, "bundle", "bin"))
        shutil.copy(os.path.join(data, "rms_norm.json"), share)
        copy = os.path.join(tmp, "bundle", "bin", "torch-baseline")
        shutil.copy(script, copy)
        code, out, err = run([py, copy, "--dry-run", "rms_norm"])
        c.ok(code == 0 and share in out, "a bundle: ../share/prism-explorer/workloads next to the script", out + err)
        code, out, err = run([py, copy, "--dry-run", "gqa"])
        c.ok(code == 2 and "rms_norm" in err, "a bundle: a workload it lacks is unknown", err)
        for d in (os.path.join(tmp, "bundle"), share):
            code, out, err = run(tb + ["--dry-run", "--data-dir", d, "rms_norm"])
            c.ok(code == 0 and share in out, f"--data-dir {os.path.relpath(d, tmp)}", out + err)

        # No torch: a torch package that cannot be imported shadows any real one.
        fake = os.path.join(tmp, "fake", "torch")
        os.makedirs(fake)
        with open(os.path.join(fake, "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named torch (simulated by the test)')\n")
        env = {"PYTHONPATH": os.path.dirname(fake)}
        code, out, err = run(tb + ["rms_norm", "--device", "cpu"], env=env)
        c.ok(code == 77 and "torch is not installed" in err and len(err.splitlines()) == 1,
             "no torch: exit 77 with one line saying so", f"exit {code}\n{err}")
        code, out, err = run(tb + ["--dry-run", "rms_norm"], env=env)
        c.ok(code == 0, "no torch: --dry-run still works", err)
    return c.finish()


# ---------------------------------------------------------------------------

def mutant_main(kind, argv):
    """In the torch Python: runs the script with one op translated wrongly."""
    import importlib.machinery
    import importlib.util
    import torch
    F = torch.nn.functional
    loader = importlib.machinery.SourceFileLoader("torch_baseline", argv[0])
    tb = importlib.util.module_from_spec(importlib.util.spec_from_loader("torch_baseline", loader))
    loader.exec_module(tb)
    if kind == "gelu-tanh":
        gelu = F.gelu
        F.gelu = lambda x, approximate="none": gelu(x, approximate="tanh")
    elif kind == "sdpa-default-scale":
        sdpa = F.scaled_dot_product_attention
        F.scaled_dot_product_attention = lambda q, k, v, scale=None: sdpa(q, k, v)
    elif kind == "rms-norm-eps":
        rms = F.rms_norm
        F.rms_norm = lambda x, shape, eps=None: rms(x, shape, eps=1e-2)
    elif kind == "sum-no-keepdim":
        apply = tb.apply_step

        def patched(torch_, s, args):
            if s.kind == "sum":
                return torch.sum(args[0], dim=s.dim).to(s.dtype)
            return apply(torch_, s, args)
        tb.apply_step = patched
    else:
        raise SystemExit(f"unknown mutant {kind}")
    return tb.main(argv)


class Numeric:
    """The translation against `prism run`."""

    def __init__(self, prism, script, torch_py, tmp):
        self.prism, self.script, self.py, self.tmp = prism, script, torch_py, tmp
        self.c = Checks()

    def prism_run(self, program, folder):
        code, out, err = run([self.prism, "run", program, "--seed", "1", "--threads", "1",
                              "--save-inputs", os.path.join(folder, "in"),
                              "--save-outputs", os.path.join(folder, "out")])
        if not self.c.ok(code == 0, f"prism run {os.path.basename(program)}", err):
            return None
        return folder

    def compare(self, label, ref, mine, tolerance, variants):
        """Inputs bit for bit, every variant's outputs within tolerance."""
        c = self.c
        ins = sorted(f for f in os.listdir(os.path.join(ref, "in")))
        same = all(os.path.exists(os.path.join(mine, "in", label, f)) and
                   open(os.path.join(ref, "in", f), "rb").read() ==
                   open(os.path.join(mine, "in", label, f), "rb").read() for f in ins)
        c.ok(same and ins, f"{label}: inputs identical to prism run's ({len(ins)})")
        outs = sorted(os.listdir(os.path.join(ref, "out")))
        for v in variants:
            worst, detail = 0.0, []
            for f in outs:
                p = os.path.join(mine, "out", label, v, f)
                if not os.path.exists(p):
                    worst, detail = float("inf"), detail + [f"{p} missing"]
                    continue
                e = rel_error(read_f32(p), read_f32(os.path.join(ref, "out", f)))
                detail.append(f"{f}: {e:.3g}")
                worst = max(worst, e)
            c.ok(worst <= tolerance, f"{label} {v}: outputs match the interpreter "
                 f"(max rel error {worst:.2g} ≤ {tolerance:g})", "\n".join(detail))
        return True

    def baseline(self, files, variants, extra=(), mutant=None, fast=True):
        """Runs the script on files; returns (code, json doc, stderr, folder)."""
        out = tempfile.mkdtemp(prefix="tb-", dir=self.tmp)
        js = os.path.join(out, "result.json")
        cmd = [self.py]
        if mutant:
            cmd += [os.path.abspath(__file__), "mutant", mutant]
        cmd += [self.script, "--device", "cpu", "--seed", "1", "--input-scale", "1",
                "--variants", ",".join(variants), "--json", js, "--quiet",
                "--save-inputs", os.path.join(out, "in"), "--save-outputs", os.path.join(out, "out")]
        cmd += (FAST if fast else []) + list(extra) + list(files)
        code, stdout, err = run(cmd)
        doc = None
        if os.path.exists(js):
            with open(js, encoding="utf-8") as f:
                doc = json.load(f)
        return code, doc, stdout + err, out

    def check_doc(self, what, code, doc, log, want_attention):
        """Exit 0, every variant ok, sdpa rows exactly where attention is."""
        c = self.c
        c.ok(code == 0 and doc is not None, f"{what}: exit 0 and a JSON file", log)
        if doc is None:
            return
        c.ok(doc["format"] == "prism-torch-baseline" and doc["version"] == 1 and doc["complete"],
             f"{what}: JSON format, version, complete", json.dumps(doc)[:2000])
        for p in doc["programs"]:
            bad = [f"{v['variant']}: {v['status']} {v['error']}" for v in p["variants"] if v["status"] != "ok"]
            c.ok(not bad, f"{what}: {p['program']}: every variant ok", "\n".join(bad))
            want = want_attention.get(p["program"])
            has = any(v["variant"] == "sdpa" for v in p["variants"])
            if want is not None:
                c.ok(len(p["attention"]) == want and has == (want > 0),
                     f"{what}: {p['program']}: {want} attention pattern(s), sdpa row {'present' if want else 'absent'}",
                     json.dumps(p["attention"]))
            for v in p["variants"]:
                if v["status"] == "ok":
                    fields = ("median_us", "p20_us", "p80_us", "min_us", "mean_us", "max_rel_error", "tolerance")
                    c.ok(all(isinstance(v[k], (int, float)) for k in fields) and v["samples"] >= 1 and
                         v["p20_us"] <= v["median_us"] <= v["p80_us"] and
                         (v["compile_s"] is not None) == v["variant"].startswith("compile"),
                         f"{what}: {p['program']} {v['variant']}: statistics", json.dumps(v))

    def workloads(self):
        """Every built-in workload, small, in f32."""
        graphs, attention = [], {}
        for w in workloads(self.prism):
            name, params = w["name"], small_params(w["params"])
            code, out, err = run([self.prism, "check", f"{name}:{params}", "--json"])
            if not self.c.ok(code == 0, f"prism check {name}:{params} --json", err):
                continue
            path = os.path.join(self.tmp, f"{name}.json")
            doc = json.loads(out)
            for op in doc["ops"]:
                for o in op.get("outputs", []):
                    if isinstance(o, dict) and "dtype" in o:
                        o["dtype"] = "f32"
            with open(path, "w") as f:
                json.dump(doc, f)
            ref = self.prism_run(path, os.path.join(self.tmp, f"ref-{name}"))
            if ref:
                graphs.append((name, path, ref))
                attention[name] = ATTENTION.get(name, 0)
        files = [p for _, p, _ in graphs]
        code, doc, log, out = self.baseline(files, ["eager", "sdpa"])
        self.check_doc("workloads (f32, small)", code, doc, log, attention)
        for name, _, ref in graphs:
            vs = ["eager"] + (["sdpa"] if attention[name] else [])
            self.compare(name, ref, out, F32_TOLERANCE, vs)
        # torch.compile (slow on a CPU: a few workloads only, all ops are in the graphs below).
        some = [(n, p, r) for n, p, r in graphs if n in ("rms_norm", "attention")]
        code, doc, log, out = self.baseline([p for _, p, _ in some], ["eager", "compile"], fast=False)
        self.check_doc("rms_norm and attention with torch.compile, default protocol", code, doc, log, {})
        for name, _, ref in some:
            self.compare(name, ref, out, F32_TOLERANCE, ["eager", "compile"])

    def graphs(self):
        """tests/tools/graphs and tests/codegen/graphs/f32-predefined.json."""
        src = source_dir()
        items = [(os.path.join(src, "tests", "tools", "graphs", g), n) for g, n in GRAPHS.items()]
        items.append((os.path.join(src, "tests", "codegen", "graphs", "f32-predefined.json"), 0))
        files, refs, attention = [], [], {}
        for path, n in items:
            with open(path) as f:
                label = json.load(f)["name"]
            ref = self.prism_run(path, os.path.join(self.tmp, f"ref-{label}"))
            if ref:
                files.append(path)
                refs.append((label, ref, n))
                attention[label] = n
        code, doc, log, out = self.baseline(files, ["eager", "sdpa", "compile"])
        self.check_doc("test graphs", code, doc, log, attention)
        for label, ref, n in refs:
            self.compare(label, ref, out, LOOSER.get(label, F32_TOLERANCE),
                         ["eager", "compile"] + (["sdpa"] if n else []))
        self.ref_all_ops = next((r for label, r, _ in refs if label == "all_ops"), None)
        self.ref_attention = next((r for label, r, _ in refs if label == "attention_shuffled"), None)

    def low_precision(self):
        """f16 and bf16 inputs (full-size rms_norm, by name): prism's rounding, bit for bit."""
        ref = self.prism_run("rms_norm", os.path.join(self.tmp, "ref-rms_norm-f16"))
        if ref:
            code, doc, log, out = self.baseline(["rms_norm"], ["eager"])
            self.check_doc("rms_norm (f16, full size, by name)", code, doc, log, {})
            self.compare("rms_norm", ref, out, F16_TOLERANCE, ["eager"])
        src = os.path.join(source_dir(), "data", "workloads", "rms_norm.json")
        with open(src) as f:
            text = f.read().replace('"f16"', '"bf16"').replace('"rms_norm"', '"rms_norm_bf16"', 1)
        path = os.path.join(self.tmp, "rms_norm_bf16.json")
        with open(path, "w") as f:
            f.write(text)
        ref = self.prism_run(path, os.path.join(self.tmp, "ref-rms_norm-bf16"))
        if ref:
            code, doc, log, out = self.baseline([path], ["eager"])
            self.check_doc("rms_norm in bf16", code, doc, log, {})
            self.compare("rms_norm_bf16", ref, out, 5e-2, ["eager"])
        # --dtype: the file's f16 inputs run as f32 (values rounded to f32, not f16).
        code, doc, log, out = self.baseline(["swiglu"], ["eager"], extra=["--dtype", "f32"])
        self.c.ok(code == 0 and doc and doc["programs"][0]["inputs"][0]["dtype"] == "f32",
                  "--dtype f32 overrides the file's dtypes", log)

    def mutants(self):
        """Wrong translations must be caught, by the script or by the comparison."""
        c = self.c
        cases = [("gelu-tanh", self.ref_all_ops, "all_ops", ["eager"]),
                 ("rms-norm-eps", self.ref_all_ops, "all_ops", ["eager"]),
                 ("sum-no-keepdim", self.ref_all_ops, "all_ops", ["eager"]),
                 ("sdpa-default-scale", self.ref_attention, "attention_shuffled", ["eager", "sdpa"])]
        src = source_dir()
        for kind, ref, label, variants in cases:
            if ref is None:
                continue
            path = os.path.join(src, "tests", "tools", "graphs", label.replace("_", "-") + ".json")
            code, doc, log, out = self.baseline([path], variants, mutant=kind)
            worst = 0.0
            for v in variants:
                folder = os.path.join(out, "out", label, v)
                for f in sorted(os.listdir(os.path.join(ref, "out"))):
                    p = os.path.join(folder, f)
                    if not os.path.exists(p):
                        worst = float("inf")
                        continue
                    worst = max(worst, rel_error(read_f32(p), read_f32(os.path.join(ref, "out", f))))
            caught = code != 0 or worst > F32_TOLERANCE
            c.ok(caught, f"mutant {kind} is caught (exit {code}, max rel error {worst:.2g})", log)
        # The sdpa mutant is caught by the script itself: a mismatch, not timed.
        if self.ref_attention is not None:
            path = os.path.join(src, "tests", "tools", "graphs", "attention-shuffled.json")
            code, doc, log, out = self.baseline([path], ["eager", "sdpa"], mutant="sdpa-default-scale")
            sd = [v for p in (doc or {}).get("programs", []) for v in p["variants"] if v["variant"] == "sdpa"]
            c.ok(code == 1 and sd and sd[0]["status"] == "mismatch" and sd[0]["median_us"] is None,
                 "a variant that differs from eager is reported as mismatch, not timed, exit 1", log)


def test_numeric(prism, script):
    # build-aux/setup installs torch into the project's .venv/: that Python
    # unless one is named.
    venv_py = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(script))), ".venv", "bin", "python")
    torch_py = (os.environ.get("PRISM_TORCH_PYTHON") or (venv_py if os.access(venv_py, os.X_OK) else None)
                or shutil.which("python3") or sys.executable)
    code, out, err = run([torch_py, "-c", "import torch; print(torch.__version__)"])
    if code != 0:
        print(f"SKIP: torch cannot be imported by {torch_py} "
              f"(set PRISM_TORCH_PYTHON to a Python with torch): {err.strip().splitlines()[-1] if err.strip() else ''}")
        return SKIP
    print(f"# torch {out.strip()} ({torch_py})")
    with tempfile.TemporaryDirectory(prefix="torch-baseline-numeric-") as tmp:
        t = Numeric(prism, script, torch_py, tmp)
        t.workloads()
        t.graphs()
        t.low_precision()
        t.mutants()
        # CUDA unavailable (a CPU build of torch): exit 77 unless --device cpu.
        code, out, err = run([torch_py, "-c", "import torch; print(torch.cuda.is_available())"])
        if out.strip() == "False":
            code, out, err = run([torch_py, script, "rms_norm"])
            t.c.ok(code == 77 and "CUDA is not available" in err, "no CUDA: exit 77 with one line", err)
        return t.c.finish()


def main(argv):
    if len(argv) >= 3 and argv[1] == "mutant":
        return mutant_main(argv[2], argv[3:])
    if len(argv) != 4 or argv[1] not in ("input", "numeric"):
        print(__doc__, file=sys.stderr)
        return 2
    prism, script = argv[2], argv[3]
    return test_input(prism, script) if argv[1] == "input" else test_numeric(prism, script)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
