# test_prism_torch.py — prism_torch: capture, dump, the bundle's op, round trips
#
# Run by run-tests.sh (meson test test-prism-torch) with .venv/bin/python,
# PYTHONPATH=python and PRISM_CLI set; on the CPU build of torch.
#
# SPDX-License-Identifier: GPL-3.0-or-later
import ctypes
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

import prism_torch

PRISM = os.environ.get("PRISM_CLI", "build/src/cli/prism")
THREADS = os.environ.get("PRISM_TEST_THREADS", "2")


def prism(*args):
    done = subprocess.run([PRISM, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"prism {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _numel(input_op):
    n = 1
    for d in input_op["outputs"][0]["shape"]:
        n *= d
    return n


def ops_of(program):
    return [o["op"] for o in program["ops"]]


# The modules of the round trips: small, so that each search takes seconds.
class RMSNormLinear(nn.Module):
    """Llama's block input: RMSNorm (with its weight and eps) and a linear layer."""

    def __init__(self, d=64, n=32, eps=1e-6):
        super().__init__()
        self.norm = nn.RMSNorm(d, eps=eps)
        self.proj = nn.Linear(d, n, bias=False)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)

    def forward(self, x):
        return self.proj(self.norm(x))


class SwiGLU(nn.Module):
    def __init__(self, d=64, h=128):
        super().__init__()
        self.gate = nn.Linear(d, h, bias=False)
        self.up = nn.Linear(d, h, bias=False)

    def forward(self, x):
        return F.silu(self.gate(x)) * self.up(x)


class Attention(nn.Module):
    """Decoding attention, heads as the batch, keys given transposed (as the
    attention workload): softmax(q @ k) @ v."""

    def forward(self, q, k, v):
        return torch.softmax(q @ k, dim=-1) @ v


class HandRMSNorm(nn.Module):
    """Llama's own spelling: x * rsqrt(mean(x²) + eps) * w."""

    def __init__(self, d=64, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Capture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="prism-torch-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, program, name="prog"):
        """prism check accepts the program; returns its path."""
        path = os.path.join(self.tmp, f"{name}.json")
        prism_torch.save(program, path)
        prism("check", path)
        return path

    def same_as_interpreter(self, fn, program, n_args):
        """prism run's outputs on its seeded inputs equal @fn's on them (the
        module's parameters set from the program's inputs of their names)."""
        path = self.check(program, "interp")
        ins, outs = os.path.join(self.tmp, "in"), os.path.join(self.tmp, "out")
        prism("run", path, "--save-inputs", ins, "--save-outputs", outs)
        inputs = [o for o in program["ops"] if o["op"] == "input"]
        values = [torch.from_file(os.path.join(ins, f"in{k}.f32"), size=_numel(o), dtype=torch.float32)
                  .view(o["outputs"][0]["shape"]) for k, o in enumerate(inputs)]
        args = values[:n_args]
        if isinstance(fn, nn.Module):
            params = dict(fn.named_parameters())
            with torch.no_grad():
                for o, v in zip(inputs[n_args:], values[n_args:]):
                    params[o["name"]].copy_(v.view(params[o["name"]].shape))
        with torch.no_grad():
            want = fn(*args)
        n_out = sum(1 for o in program["ops"] if o["op"] == "output")
        got = torch.from_file(os.path.join(outs, "out0.f32"), size=want.numel(), dtype=torch.float32)
        self.assertEqual(n_out, 1)
        err = ((got.view(want.shape) - want).abs().max() / want.abs().max().clamp(min=1e-30)).item()
        self.assertLess(err, 1e-4, f"the interpreter differs from torch by {err}")

    def test_rms_norm_linear(self):
        p = prism_torch.capture(RMSNormLinear(), (torch.randn(8, 64),))
        self.check(p)
        self.same_as_interpreter(RMSNormLinear(), p, 1)
        inputs = [o for o in p["ops"] if o["op"] == "input"]
        self.assertEqual([o["name"] for o in inputs], ["x", "norm.weight", "proj.weight"])
        self.assertEqual([o["outputs"][0]["shape"] for o in inputs], [[8, 64], [1, 64], [32, 64]])
        self.assertEqual(inputs[0]["outputs"][0]["dtype"], "f32")
        norm = [o for o in p["ops"] if o["op"] == "rms_norm"]
        self.assertEqual(len(norm), 1)
        self.assertEqual(norm[0]["eps"], 1e-6)
        # linear: a matmul with the transposed weight
        self.assertEqual(ops_of(p)[3:], ["rms_norm", "mul", "transpose", "matmul", "output"])

    def test_hand_written_rms_norm(self):
        p = prism_torch.capture(HandRMSNorm(eps=1e-5), (torch.randn(4, 64),))
        self.check(p)
        self.assertIn("rms_norm", ops_of(p))
        self.assertEqual([o for o in p["ops"] if o["op"] == "rms_norm"][0]["eps"], 1e-5)

    def test_llama_rms_norm_with_casts(self):
        """Llama's RMSNorm upcasts (x.float(), .type_as(x)): identities in f32,
        refused in f16 (prism has no cast)."""
        class LlamaRMSNorm(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(64))

            def forward(self, x):
                xf = x.float()
                return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).type_as(x) * self.weight
        p = prism_torch.capture(LlamaRMSNorm(), (torch.randn(8, 64),))
        self.check(p)
        self.assertEqual(ops_of(p), ["input", "input", "rms_norm", "mul", "output"])
        # In f16 the upcast and the cast back enclose the one rms_norm: the same op in f16.
        p = prism_torch.capture(LlamaRMSNorm().half(), (torch.randn(8, 64).half(),))
        self.check(p, "half")
        self.assertEqual(ops_of(p), ["input", "input", "rms_norm", "mul", "output"])
        self.assertEqual({o["outputs"][0]["dtype"] for o in p["ops"] if "outputs" in o}, {"f16"})
        # An upcast that is returned is refused: prism has no cast.
        with self.assertRaisesRegex(prism_torch.CaptureError, r"output 0 is f32, computed from f16"):
            prism_torch.capture(lambda x: x.float() * 2, (torch.randn(8, 64).half(),))
        with self.assertRaisesRegex(prism_torch.CaptureError, r"converts f32 to f16"):
            prism_torch.capture(lambda x: x.half() * 2, (torch.randn(8, 64),))

    def test_matmul_over_two_batch_dims(self):
        """[b, h, s, d] attention: matmul decomposes into view, bmm, view back."""
        def attention(q, k, v):
            return torch.softmax(q @ k.transpose(-2, -1) / 8.0, dim=-1) @ v
        p = prism_torch.capture(attention, (torch.randn(1, 2, 4, 16), torch.randn(1, 2, 8, 16),
                                            torch.randn(1, 2, 8, 16)))
        self.same_as_interpreter(attention, p, 3)
        mm = [o for o in p["ops"] if o["op"] == "matmul"]
        self.assertEqual([o["outputs"][0]["shape"] for o in mm], [[1, 2, 4, 8], [1, 2, 4, 16]])
        # A merged view read by anything but a bmm is still refused.
        with self.assertRaisesRegex(prism_torch.CaptureError, r"no reshape"):
            prism_torch.capture(lambda x: x.reshape(2, 4, 16) * 2, (torch.randn(1, 2, 4, 16),))

    def test_sdpa_and_hand_written_safe_softmax(self):
        """F.scaled_dot_product_attention (no mask): its all -inf row guard is
        the softmax; the output's transpose and back compose to nothing."""
        def sdpa(q, k, v):
            return F.scaled_dot_product_attention(q, k, v)

        def safe(x):
            m = x.max(dim=-1, keepdim=True).values
            e = torch.exp(x - m)
            return e / e.sum(-1, keepdim=True)
        p = prism_torch.capture(sdpa, (torch.randn(1, 2, 4, 16), torch.randn(1, 2, 8, 16),
                                       torch.randn(1, 2, 8, 16)))
        self.same_as_interpreter(sdpa, p, 3)
        self.assertEqual(ops_of(p).count("transpose"), 1)
        p = prism_torch.capture(safe, (torch.randn(4, 8),))
        self.same_as_interpreter(safe, p, 1)
        self.assertEqual(ops_of(p)[1:], ["max", "sub", "exp", "sum", "div", "output"])
        with self.assertRaisesRegex(prism_torch.CaptureError, r"argmax"):
            prism_torch.capture(lambda x: x.max(dim=-1, keepdim=True).indices * 1.0, (torch.randn(4, 8),))

    def test_sigmoid_rsqrt_gelu_silu(self):
        def f(x):
            return torch.sigmoid(x) + torch.rsqrt(x * x + 1.0) + F.gelu(x) + F.silu(x)
        p = prism_torch.capture(f, (torch.randn(4, 8),))
        self.same_as_interpreter(f, p, 1)
        self.assertIn("silu", ops_of(p))
        self.assertIn("gelu", ops_of(p))

    def test_several_outputs_refused(self):
        with self.assertRaisesRegex(prism_torch.CaptureError, r"native_layer_norm.*several outputs"):
            prism_torch.capture(nn.LayerNorm(64), (torch.randn(8, 64),))

    def test_rms_norm_of_a_transpose(self):
        """The pattern reads a permutation not written yet without writing it twice."""
        def f(x):
            y = x.t()
            return y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 0.5) + torch.sigmoid(y) * y
        p = prism_torch.capture(f, (torch.randn(64, 8),))
        self.same_as_interpreter(f, p, 1)
        self.assertEqual(ops_of(p).count("transpose"), 1)
        self.assertIn("rms_norm", ops_of(p))

    def test_normalisation_that_is_not_rms_norm(self):
        """A mean over the rows is not an RMSNorm: captured op by op."""
        def f(x):
            return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-5)
        p = prism_torch.capture(f, (torch.randn(4, 64),))
        self.check(p)
        self.same_as_interpreter(f, p, 1)
        self.assertNotIn("rms_norm", ops_of(p))
        self.assertIn("mean", ops_of(p))
        self.assertIn("sqrt", ops_of(p))

    def test_elementwise_and_reductions(self):
        def f(a, b):
            y = torch.exp(a) - b / 2 + torch.sqrt(torch.relu(a)) * torch.maximum(a, b)
            y = F.gelu(y) + a ** 3.0 + torch.neg(b)
            return y.sum(-1, keepdim=True) + y.amax(dim=-1, keepdim=True) + y.mean(-1, keepdim=True)
        p = prism_torch.capture(f, (torch.randn(4, 8), torch.randn(4, 8)))
        self.check(p)
        self.same_as_interpreter(f, p, 2)
        names = [o["name"] for o in p["ops"] if o["op"] == "input"]
        self.assertEqual(names, ["a", "b"])
        kinds = set(ops_of(p))
        for k in ("exp", "sub", "div", "sqrt", "relu", "maximum", "gelu", "pow", "neg", "sum", "max",
                  "mean", "constant"):
            self.assertIn(k, kinds)

    def test_bf16_matmul_and_permute(self):
        def f(a, b):
            return torch.bmm(a, b.permute(0, 2, 1))
        p = prism_torch.capture(f, (torch.randn(2, 4, 8, dtype=torch.bfloat16),
                                    torch.randn(2, 6, 8, dtype=torch.bfloat16)))
        self.check(p)
        t = [o for o in p["ops"] if o["op"] == "transpose"][0]
        self.assertEqual(t["perm"], [0, 2, 1])
        self.assertEqual(t["outputs"][0]["dtype"], "bf16")

    def test_softmax_is_the_safe_spelling(self):
        p = prism_torch.capture(lambda x: torch.softmax(x, dim=-1), (torch.randn(4, 8),))
        self.check(p)
        self.same_as_interpreter(lambda x: torch.softmax(x, dim=-1), p, 1)
        self.assertEqual(ops_of(p)[1:], ["max", "sub", "exp", "sum", "div", "output"])

    def test_refused_with_node_op_and_line(self):
        def f(x):
            return torch.cumsum(x, 0)  # the line the error names
        with self.assertRaises(prism_torch.CaptureError) as cm:
            prism_torch.capture(f, (torch.randn(4, 4),))
        e = cm.exception
        self.assertEqual(e.node, "cumsum")
        self.assertIn("aten.cumsum", e.op)
        self.assertIn("test_prism_torch.py", e.source)
        self.assertIn("torch.cumsum(x, 0)", str(e))

    def test_refused_reshape_and_keepdim_false(self):
        with self.assertRaisesRegex(prism_torch.CaptureError, r"view.*no reshape"):
            prism_torch.capture(lambda x: x.view(2, 8) * 2, (torch.randn(4, 4),))
        with self.assertRaisesRegex(prism_torch.CaptureError, r"keepdim=False"):
            prism_torch.capture(lambda x: x.sum(-1) * 2, (torch.randn(4, 4),))
        with self.assertRaisesRegex(prism_torch.CaptureError, r"float64"):
            prism_torch.capture(lambda x: x * 2, (torch.randn(4, 4, dtype=torch.float64),))
        with self.assertRaisesRegex(prism_torch.CaptureError, r"tanh"):
            prism_torch.capture(lambda x: F.gelu(x, approximate="tanh"), (torch.randn(4, 4),))


class RoundTrip(unittest.TestCase):
    """Captured, searched, exported, loaded as the op, compared with the module."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prism-torch-rt-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def round_trip(self, name, module, inputs, tolerance=1e-4):
        torch.manual_seed(0)
        program = prism_torch.capture(module, inputs)
        path = os.path.join(self.tmp, f"{name}.json")
        prism_torch.save(program, path)
        prism("check", path)
        results = os.path.join(self.tmp, f"{name}-search")
        prism("search", path, "--out", results, "--time-limit", "60", "--threads", THREADS, "--tune-top", "0")
        with open(os.path.join(results, "results.json"), encoding="utf-8") as f:
            found = json.load(f)
        self.assertGreater(len(found["candidates"]), 0, f"{name}: the search found no candidate")
        bundle = os.path.join(self.tmp, f"{name}-bundle")
        # A prefix of its own: SwiGLU in f32 and in f16 are both loaded in this process.
        prism("export", os.path.join(results, "results.json"), "--out", bundle, "--no-resource-usage",
              "--prefix", f"prism_{name}")
        op = prism_torch.load(bundle, device="cpu")
        params = [p.detach() for p in module.parameters()] if isinstance(module, nn.Module) else []
        args = list(inputs) + params
        got = op(*args)
        with torch.no_grad():
            want = module(*inputs)
        err = ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()
        print(f"{name}: {len(found['candidates'])} candidates, the best's max relative error {err:.3g}",
              file=sys.stderr)
        self.assertLess(err, tolerance)
        self.cuda_build(bundle, args, want, tolerance)
        return op, args, want

    def cuda_build(self, bundle, args, want, tolerance):
        """With nvcc, the Makefile's default target builds libPREFIX.so and its
        launcher loads; with a GPU, the same round trip on CUDA tensors."""
        with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        prefix = manifest["prefix"]
        if shutil.which("nvcc") is None:
            print(f"{prefix}: no nvcc, libPREFIX.so not built", file=sys.stderr)
            return
        done = subprocess.run(["make", "-C", bundle], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lib = ctypes.CDLL(os.path.join(bundle, f"lib{prefix}.so"))
        size = getattr(lib, f"{prefix}_workspace_size")
        size.restype = ctypes.c_size_t
        self.assertEqual(size(), manifest["workspace_bytes"])
        if not torch.cuda.is_available():
            print(f"{prefix}: no GPU, the CUDA round trip not run", file=sys.stderr)
            return
        op = prism_torch.load(bundle, device="cuda")
        got = op(*[a.cuda() for a in args]).cpu()
        err = ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()
        print(f"{prefix}: on the GPU, max relative error {err:.3g}", file=sys.stderr)
        self.assertLess(err, tolerance)

    def test_rms_norm_linear(self):
        # eps 0.1, not Llama's 1e-6, so that a kernel without it misses the tolerance (by ~5 %).
        op, args, want = self.round_trip("rms_norm_linear", RMSNormLinear(eps=0.1), (torch.randn(8, 64),))
        # The op under torch.compile(fullgraph=True) and torch.export, and opcheck.
        compiled = torch.compile(lambda *a: op(*a) * 2.0, fullgraph=True)
        self.assertLess((compiled(*args) - 2.0 * want).abs().max().item(), 1e-4)

        class Wrap(nn.Module):
            def forward(self, *a):
                return op(*a)
        ep = torch.export.export(Wrap(), tuple(args))
        targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        self.assertTrue(any("prism.prism_" in t for t in targets), targets)
        torch.library.opcheck(op.op, (list(args),))
        # Wrong arguments are named.
        x, w, p = args
        with self.assertRaisesRegex(ValueError, r"input 0 \(x\): expected shape \[8, 64\], got \[64, 8\]"):
            op(x.t().contiguous(), w, p)
        with self.assertRaisesRegex(ValueError, r"input 2 \(proj.weight\): not contiguous"):
            op(x, w, p.t().contiguous().t())
        with self.assertRaisesRegex(ValueError, r"input 1 \(norm.weight\): expected dtype"):
            op(x, w.double(), p)
        with self.assertRaisesRegex(ValueError, r"input 0 \(x\): its data is not 16-byte aligned"):
            op(torch.randn(8 * 64 + 1)[1:].view(8, 64), w, p)
        with self.assertRaisesRegex(TypeError, r"takes 3 inputs"):
            op(x, w)

    def test_swiglu(self):
        self.round_trip("swiglu", SwiGLU(), (torch.randn(8, 64),))

    def test_swiglu_f16(self):
        """An f16 program: the CPU build computes in f32, the loader converts
        around it and returns f16 (hence the f16 tolerance)."""
        model = SwiGLU().half()
        op, args, want = self.round_trip("swiglu_f16", model, (torch.randn(8, 64).half(),), tolerance=2e-2)
        self.assertEqual(op(*args).dtype, torch.float16)

    def test_attention(self):
        self.round_trip("attention", Attention(),
                        (torch.randn(2, 4, 16), torch.randn(2, 16, 64), torch.randn(2, 64, 16)))


class ImportPt2(unittest.TestCase):
    """python -m prism_torch FILE.pt2 --out prog.json (what `prism import` runs)."""

    def run_module(self, *args):
        return subprocess.run([sys.executable, "-m", "prism_torch", *args], capture_output=True, text=True)

    def test_import_pt2(self):
        tmp = tempfile.mkdtemp(prefix="prism-torch-pt2-")
        try:
            pt2 = os.path.join(tmp, "block.pt2")
            torch.export.save(torch.export.export(RMSNormLinear(), (torch.randn(8, 64),)), pt2)
            out = os.path.join(tmp, "block.json")
            done = self.run_module(pt2, "--out", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            prism("check", out)
            with open(out, encoding="utf-8") as f:
                p = json.load(f)
            self.assertEqual(p["name"], "block")
            self.assertIn("rms_norm", ops_of(p))

            class Cumsum(nn.Module):
                def forward(self, x):
                    return torch.cumsum(x, 0)
            bad = os.path.join(tmp, "bad.pt2")
            torch.export.save(torch.export.export(Cumsum(), (torch.randn(4, 4),)), bad)
            done = self.run_module(bad, "--out", os.path.join(tmp, "bad.json"))
            self.assertEqual(done.returncode, 1)
            self.assertIn("cumsum", done.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "bad.json")))
            done = self.run_module(os.path.join(tmp, "missing.pt2"), "--out", out)
            self.assertEqual(done.returncode, 1)
            self.assertIn("missing.pt2", done.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Dump(unittest.TestCase):
    def test_dump_writes_programs_and_runs_unchanged(self):
        tmp = tempfile.mkdtemp(prefix="prism-torch-dump-")
        try:
            model = SwiGLU()
            x = torch.randn(8, 64)
            compiled = torch.compile(model, backend=prism_torch.dump(tmp))
            with torch.no_grad():
                self.assertTrue(torch.equal(compiled(x), model(x)))
            files = sorted(glob.glob(os.path.join(tmp, "*")))
            self.assertEqual([os.path.basename(f) for f in files], ["graph0.json"])
            prism("check", files[0])
            with open(files[0], encoding="utf-8") as f:
                p = json.load(f)
            self.assertEqual(sorted(o["name"] for o in p["ops"] if o["op"] == "input"),
                             ["gate.weight", "up.weight", "x"])

            # A graph prism cannot express is written down as refused, and still runs.
            refused = os.path.join(tmp, "refused")
            f = torch.compile(lambda x: torch.cumsum(x, 0), backend=prism_torch.dump(refused))
            self.assertTrue(torch.equal(f(x), torch.cumsum(x, 0)))
            with open(os.path.join(refused, "graph0.refused.txt"), encoding="utf-8") as fh:
                self.assertIn("cumsum", fh.read())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
