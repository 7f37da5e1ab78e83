# PREFIX.py — the kernels of this folder as a PyTorch op (written by `prism export`)
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""Loads the exported kernels of the folder this file is in as a PyTorch op.

    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("bundle", "DIR/PREFIX.py")
    bundle = importlib.util.module_from_spec(spec); spec.loader.exec_module(bundle)
    op = bundle.load("cuda")          # or "cpu": the CPU build of the same kernels
    out = op(x, w)                    # the program's inputs, in its input order

(prism_torch.load(DIR, device) does the same.)  The op is registered as
torch.ops.prism.PREFIX, a torch.library custom op with a fake implementation
computed from manifest.json, so it runs under torch.compile(fullgraph=True)
and torch.export.  Only torch and the standard library are needed; the
shared library is built with the folder's Makefile when it is missing
(`make` for libPREFIX.so with nvcc, `make cpu` for libPREFIX_cpu.so with g++).

Every input is checked against the manifest — shape (a tensor whose shape is
the declared one without its leading 1s is taken as a view), dtype, device,
contiguity and 16-byte alignment — and an error names the argument.  Outputs
are allocated with torch; one workspace is kept per (device, stream); the
launch is enqueued on the current stream.  The CPU build stores every dtype
as float32 (see docs/codegen.md), so on the CPU f16 and bf16 tensors are
converted around the call.
"""

import ctypes
import json
import os
import subprocess
import sys
import threading
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# In python/prism_torch this file is the template prism export copies; it
# runs only from a bundle, next to its manifest.
if not os.path.exists(os.path.join(HERE, "manifest.json")):
    raise ImportError(f"{__file__} is the loader of an exported bundle: import the copy in the "
                      "bundle's folder (prism_torch.load(DIR) does)")
with open(os.path.join(HERE, "manifest.json"), encoding="utf-8") as _f:
    MANIFEST = json.load(_f)
PREFIX = MANIFEST["prefix"]
ALIGNMENT = 16
_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
INPUTS = [(i["name"] or f"input {i['index']}", list(i["shape"]), _DTYPES[i["dtype"]])
          for i in MANIFEST["inputs"]]
OUTPUTS = [(o["name"] or f"output {o['index']}", list(o["shape"]), _DTYPES[o["dtype"]])
           for o in MANIFEST["outputs"]]


def _library_path(kind):
    return os.path.join(HERE, f"lib{PREFIX}.so" if kind == "cuda" else f"lib{PREFIX}_cpu.so")


class _Library:
    """The launcher of one build (cuda or cpu) and its workspaces."""

    def __init__(self, kind):
        path = _library_path(kind)
        if not os.path.exists(path):
            target = os.path.basename(path)
            done = subprocess.run(["make", "-C", HERE, target], capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{PREFIX}: building {target} failed:\n{done.stdout}{done.stderr}")
        self.kind = kind
        self.dll = ctypes.CDLL(path)
        self.launch = getattr(self.dll, f"{PREFIX}_launch")
        self.launch.restype = ctypes.c_int
        self.launch.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
                                ctypes.c_void_p, ctypes.c_void_p]
        size = getattr(self.dll, f"{PREFIX}_workspace_size")
        zeroed = getattr(self.dll, f"{PREFIX}_workspace_zeroed_bytes")
        size.restype = zeroed.restype = ctypes.c_size_t
        self.workspace_bytes = int(size())
        self.zeroed_bytes = int(zeroed())
        self.workspaces = {}
        self.lock = threading.Lock()

    def workspace(self, device, stream):
        """One workspace per (device, stream): launches on one stream are
        ordered, so they may share it; its zeroed part is zeroed once."""
        if self.workspace_bytes == 0:
            return None
        key = (str(device), stream)
        with self.lock:
            ws = self.workspaces.get(key)
            if ws is None:
                ws = torch.empty(self.workspace_bytes + ALIGNMENT, dtype=torch.uint8, device=device)
                off = (-ws.data_ptr()) % ALIGNMENT
                ws = ws[off:off + self.workspace_bytes]
                if self.zeroed_bytes:
                    ws[:self.zeroed_bytes].zero_()
                self.workspaces[key] = ws
            return ws


_libraries = {}
_libraries_lock = threading.Lock()


def library(kind):
    with _libraries_lock:
        if kind not in _libraries:
            _libraries[kind] = _Library(kind)
        return _libraries[kind]


def check_inputs(inputs, fake=False):
    """The inputs as the launcher takes them (views to the declared shapes);
    raises ValueError or TypeError naming the first wrong argument."""
    if len(inputs) != len(INPUTS):
        raise TypeError(f"{PREFIX}: takes {len(INPUTS)} inputs "
                        f"({', '.join(n for n, _, _ in INPUTS)}), got {len(inputs)}")
    device = None
    out = []
    for k, (t, (name, shape, dtype)) in enumerate(zip(inputs, INPUTS)):
        what = f"{PREFIX}: input {k} ({name})"
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{what}: expected a tensor, got {type(t).__name__}")
        got = list(t.shape)
        if got != shape:
            trimmed = list(shape)
            while len(trimmed) > len(got) and trimmed[0] == 1:
                trimmed.pop(0)
            if got != trimmed:
                raise ValueError(f"{what}: expected shape {shape}, got {got}")
            t = t.view(shape) if t.is_contiguous() else t
        if t.dtype != dtype:
            raise ValueError(f"{what}: expected dtype {dtype}, got {t.dtype}")
        if device is None:
            device = t.device
        elif t.device != device:
            raise ValueError(f"{what}: on {t.device}, input 0 on {device}")
        if not t.is_contiguous():
            raise ValueError(f"{what}: not contiguous (call .contiguous())")
        if not fake and t.data_ptr() % ALIGNMENT != 0:
            raise ValueError(f"{what}: its data is not {ALIGNMENT}-byte aligned")
        out.append(t)
    return out, device


def _current_stream(device):
    if device.type == "cuda":
        return torch.cuda.current_stream(device).cuda_stream
    return 0


def run(inputs):
    """Launches the program on @inputs; returns the list of outputs."""
    inputs, device = check_inputs(inputs)
    if device.type not in ("cuda", "cpu"):
        raise ValueError(f"{PREFIX}: no build for {device.type} tensors")
    lib = library(device.type)
    cpu = device.type == "cpu"
    # The CPU build stores every dtype as float32.
    args = [t.float().contiguous() if cpu and t.dtype != torch.float32 else t for t in inputs]
    outs = [torch.empty(shape, dtype=torch.float32 if cpu else dtype, device=device)
            for _, shape, dtype in OUTPUTS]
    stream = _current_stream(device)
    ws = lib.workspace(device, stream)
    in_ptrs = (ctypes.c_void_p * max(len(args), 1))(*[t.data_ptr() for t in args])
    out_ptrs = (ctypes.c_void_p * max(len(outs), 1))(*[t.data_ptr() for t in outs])
    rc = lib.launch(in_ptrs, out_ptrs, ws.data_ptr() if ws is not None else None, stream or None)
    if rc != 0:
        raise RuntimeError(f"{PREFIX}: the launcher returned {rc}"
                           + (" (the workspace is missing)" if rc == -1 else " (a cudaError_t)"))
    return [o.to(dtype) if o.dtype != dtype else o for o, (_, _, dtype) in zip(outs, OUTPUTS)]


def _fake(inputs):
    inputs, device = check_inputs(inputs, fake=True)
    return [torch.empty(shape, dtype=dtype, device=device) for _, shape, dtype in OUTPUTS]


def _register():
    """torch.ops.prism.PREFIX, once per process (a second load of this
    folder, or of another bundle with the same prefix and manifest, reuses it)."""
    registry = sys.modules.setdefault("_prism_bundle_ops", types.ModuleType("_prism_bundle_ops"))
    ops = registry.__dict__.setdefault("ops", {})
    entry = ops.get(PREFIX)
    if entry is not None:
        if entry[0] != MANIFEST:
            raise RuntimeError(f"prism::{PREFIX} is already registered by another bundle "
                               f"({entry[1]}); export with another --prefix")
        return entry[2]

    @torch.library.custom_op(f"prism::{PREFIX}", mutates_args=())
    def op(inputs: list[torch.Tensor]) -> list[torch.Tensor]:
        return run(inputs)

    op.register_fake(_fake)
    ops[PREFIX] = (MANIFEST, HERE, op)
    return op


def load(device="cpu"):
    """A callable taking the program's inputs as tensors and returning its
    output (a tuple for several), through torch.ops.prism.PREFIX.  @device
    ("cpu" or "cuda") is the build made ready now; the op runs on the device
    of its inputs."""
    kind = torch.device(device).type
    if kind not in ("cpu", "cuda"):
        raise ValueError(f"{PREFIX}: device {device!r}: only cpu and cuda builds exist")
    library(kind)
    op = _register()
    single = len(OUTPUTS) == 1

    def call(*inputs):
        outs = op(list(inputs))
        return outs[0] if single else tuple(outs)

    call.__name__ = PREFIX
    call.__doc__ = (f"prism::{PREFIX}({', '.join(n for n, _, _ in INPUTS)}) -> "
                    f"{', '.join(n for n, _, _ in OUTPUTS)}")
    call.op = op
    call.inputs = INPUTS
    call.outputs = OUTPUTS
    return call
