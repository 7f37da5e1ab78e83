# prism_torch/capture.py — a PyTorch function or module as a prism-graph program
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""Capture through torch.export and its core-ATen decompositions.

Every node of the exported graph becomes prism ops, or the capture stops with
a CaptureError naming the node, its ATen op and the user's source line.
Nothing is dropped silently: ops that are identities on values (a view or an
expand to the same shape, a copy to the same dtype) are the only ones passed
through, because a prism program has no layout.
"""

import operator
import os

import torch

__all__ = ["capture", "CaptureError"]

_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}
_MAX_RANK = 4


class CaptureError(ValueError):
    """A node of the exported graph that prism cannot express.

    Attributes: node (its name in the exported graph), op (its ATen target),
    source (the user's source line, "" when the graph has none), reason.
    """

    def __init__(self, node, reason):
        self.node = node.name
        self.op = str(node.target)
        self.source = _user_frame(node)
        self.reason = reason
        where = f" at {self.source}" if self.source else ""
        super().__init__(f"prism_torch.capture: node {self.node} ({self.op}){where}: {reason}")


def _user_frame(node):
    """The innermost frame of the stack trace outside torch itself."""
    trace = node.meta.get("stack_trace") or ""
    lines = trace.strip().splitlines()
    frames = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("File "):
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            frames.append((s, code))
    if not frames:
        return ""
    user = [f for f in frames if not _in_package(f[0])]
    loc, code = (user or frames)[-1]
    # 'File "x.py", line 8, in forward' -> 'x.py:8 (forward): code'
    try:
        path = loc.split('"')[1]
        rest = loc.split('"', 2)[2]
        lineno = rest.split("line", 1)[1].split(",")[0].strip()
        func = rest.rsplit(" in ", 1)[1].strip() if " in " in rest else ""
        return f"{path}:{lineno} ({func}): {code}" if code else f"{path}:{lineno}"
    except IndexError:
        return loc


_PACKAGES = (os.path.dirname(os.path.realpath(torch.__file__)) + os.sep,
             os.path.dirname(os.path.realpath(__file__)) + os.sep)


def _in_package(frame):
    """Whether a 'File "…"' line is in torch or in this package."""
    path = frame.split('"')[1] if '"' in frame else frame
    return os.path.realpath(path).startswith(_PACKAGES)


class _Tensor:
    """A value of the program: its id, shape and dtype (prism names)."""

    def __init__(self, tid, shape, dtype):
        self.id = tid
        self.shape = list(shape)
        self.dtype = dtype


class _Merged:
    """A tensor whose leading batch dims a view merged into one, as matmul
    decomposes over more than one batch dim (view, bmm, view back).  Only a
    bmm or the view back may read it; anything else is refused with
    @reason at @node."""

    def __init__(self, tensor, shape, node, reason):
        self.tensor = tensor
        self.shape = list(shape)
        self.node = node
        self.reason = reason


class _Perm:
    """A permutation not written yet: permutes of permutes (SDPA's output,
    a transpose and back) compose, and one that composes to the identity
    writes nothing.  Written by _Capture.get() on its first other use."""

    def __init__(self, src, perm):
        self.src = src
        self.perm = list(perm)
        self.shape = [src.shape[p] for p in perm]
        self.dtype = src.dtype


class _Builder:
    def __init__(self):
        self.ops = []
        self.next_id = 0

    def _out(self, shape, dtype):
        t = _Tensor(self.next_id, shape, dtype)
        self.next_id += 1
        return t

    @staticmethod
    def _entry(t):
        return {"id": t.id, "shape": list(t.shape), "dtype": t.dtype}

    def input(self, name, shape, dtype):
        t = self._out(shape, dtype)
        self.ops.append({"op": "input", "name": name, "outputs": [self._entry(t)]})
        return t

    def constant(self, value, rank, dtype):
        t = self._out([1] * rank, dtype)
        self.ops.append({"op": "constant", "value": float(value), "outputs": [self._entry(t)]})
        return t

    def op(self, kind, inputs, shape, **attrs):
        t = self._out(shape, inputs[0].dtype)
        entry = {"op": kind, "inputs": [i.id for i in inputs]}
        entry.update(attrs)
        entry["outputs"] = [self._entry(t)]
        self.ops.append(entry)
        return t

    def output(self, t, name):
        self.ops.append({"op": "output", "name": name, "inputs": [t.id]})


def _broadcast(node, a, b):
    if len(a) != len(b):
        raise CaptureError(node, f"operands of rank {len(a)} and {len(b)}: prism broadcasts equal ranks only")
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise CaptureError(node, f"shapes {a} and {b} do not broadcast")
        out.append(max(x, y))
    return out


def _val_shape(node):
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise CaptureError(node, "its value is not a tensor")
    shape = []
    for d in val.shape:
        if not isinstance(d, int):
            raise CaptureError(node, f"dimension {d} is symbolic: capture with concrete shapes")
        shape.append(int(d))
    return shape, val.dtype


def _prism_dtype(node, dtype):
    if dtype not in _DTYPES:
        raise CaptureError(node, f"dtype {dtype} is not one of float16, bfloat16, float32")
    return _DTYPES[dtype]


def _product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _dims(node, dims, rank):
    if dims is None:
        dims = list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank for d in dims})


A = torch.ops.aten

_UNARY = {
    A.exp.default: "exp",
    A.sqrt.default: "sqrt",
    A.relu.default: "relu",
    A.neg.default: "neg",
    A.silu.default: "silu",
}
_BINARY = {
    A.add.Tensor: "add", A.add.Scalar: "add",
    A.sub.Tensor: "sub", A.sub.Scalar: "sub",
    A.mul.Tensor: "mul", A.mul.Scalar: "mul",
    A.div.Tensor: "div", A.div.Scalar: "div",
    A.pow.Tensor_Tensor: "pow", A.pow.Tensor_Scalar: "pow",
    A.maximum.default: "maximum",
}
_REDUCE = {
    A.sum.dim_IntList: "sum",
    A.sum.default: "sum",
    A.amax.default: "max",
    A.mean.dim: "mean",
    A.mean.default: "mean",
}
# Identities on values when the shape and dtype do not change.
_SAME_SHAPE = {
    A.view.default, A._unsafe_view.default, A.reshape.default, A.expand.default,
    A.clone.default, A.contiguous.default, A.alias.default, A._to_copy.default,
    A.lift_fresh_copy.default,
}


class _Capture:
    def __init__(self, ep, name, input_names=None):
        self.ep = ep
        self.input_names = input_names
        self.g = ep.graph
        self.b = _Builder()
        self.env = {}
        self.name = name
        self.users = {n: list(n.users) for n in self.g.nodes}

    # -- values ------------------------------------------------------------

    def value(self, node, arg, like):
        """The tensor of @arg, or a constant of the rank and dtype of @like."""
        if isinstance(arg, torch.fx.Node):
            if arg not in self.env:
                raise CaptureError(node, f"reads {arg.name}, which is not a tensor of the program")
            t = self.get(arg)
            if isinstance(t, _Merged):
                raise CaptureError(t.node, t.reason)
            return t
        if isinstance(arg, bool) or not isinstance(arg, (int, float)):
            raise CaptureError(node, f"operand {arg!r} is neither a tensor nor a number")
        return self.b.constant(arg, len(like.shape), like.dtype)

    def get(self, n):
        """The value of node @n, a pending permutation written first."""
        t = self.env.get(n)
        if isinstance(t, _Perm):
            t = self.b.op("transpose", [t.src], t.shape, perm=t.perm)
            self.env[n] = t
        return t

    # -- patterns ------------------------------------------------------------

    def _only_user(self, n, user):
        return self.users[n] == [user]

    def match_rms_norm(self, node, build=True):
        """x * rsqrt(mean(x², last dims, keepdim) + eps): rms_norm(x, eps)
        (without @build only whether it matches: nothing is written)."""
        if node.target != A.mul.Tensor or len(node.args) != 2:
            return None
        for x, r in (node.args, node.args[::-1]):
            if not (isinstance(x, torch.fx.Node) and isinstance(r, torch.fx.Node)):
                continue
            if r.target != A.rsqrt.default or not self._only_user(r, node):
                continue
            add = r.args[0]
            if not (isinstance(add, torch.fx.Node) and add.target in (A.add.Scalar, A.add.Tensor)
                    and self._only_user(add, r) and len(add.args) == 2):
                continue
            mean, eps = add.args
            if isinstance(eps, torch.fx.Node):
                mean, eps = eps, mean
            if not (isinstance(mean, torch.fx.Node) and isinstance(eps, (int, float))
                    and not isinstance(eps, bool) and eps >= 0 and mean.target == A.mean.dim
                    and self._only_user(mean, add)):
                continue
            if add.kwargs.get("alpha", 1) != 1:
                continue
            sq = mean.args[0]
            keep = mean.args[2] if len(mean.args) > 2 else mean.kwargs.get("keepdim", False)
            if not (isinstance(sq, torch.fx.Node) and keep and self._only_user(sq, mean)):
                continue
            if not ((sq.target == A.pow.Tensor_Scalar and sq.args[0] is x and sq.args[1] == 2)
                    or (sq.target == A.mul.Tensor and sq.args[0] is x and sq.args[1] is x)):
                continue
            if x not in self.env or isinstance(self.env[x], _Merged):
                continue
            rank = len(self.env[x].shape)
            dims = _dims(mean, mean.args[1], rank)
            if dims != list(range(rank - len(dims), rank)):
                continue
            if not build:
                return True
            t = self.get(x)
            return self.b.op("rms_norm", [t], t.shape, norm_dims=len(dims), **({"eps": float(eps)} if eps else {}))
        return None

    # -- nodes ---------------------------------------------------------------

    def reduce(self, node, kind, t, dims, keep):
        if not keep and len(dims) < len(t.shape):
            raise CaptureError(node, "keepdim=False drops a dim, which needs a reshape: "
                                     "reduce with keepdim=True")
        if not keep:
            raise CaptureError(node, "a reduction to a scalar without keepdim needs a reshape: "
                                     "reduce with keepdim=True")
        shape = list(t.shape)
        for d in dims:
            if shape[d] == 1:
                continue
            shape[d] = 1
            t = self.b.op(kind, [t], shape, dim=d)
        return t

    def softmax(self, node, t, dim):
        """The safe spelling: e = exp(x - max(x)), e / sum(e)."""
        shape = list(t.shape)
        row = list(shape)
        row[dim] = 1
        m = self.b.op("max", [t], row, dim=dim)
        e = self.b.op("exp", [self.b.op("sub", [t, m], shape)], shape)
        s = self.b.op("sum", [e], row, dim=dim)
        return self.b.op("div", [e, s], shape)

    def call(self, node):
        tgt = node.target
        args = node.args
        if tgt == A.max.dim:
            return self.max_dim(node)
        if isinstance(node.meta.get("val"), (tuple, list)):
            raise CaptureError(node, "prism has no op for it (it has several outputs)")
        shape, dtype = _val_shape(node)
        for n in (self.match_rms_norm(node), self.match_silu(node)):
            if n is not None:
                return n
        if tgt in _SAME_SHAPE:
            if not isinstance(args[0], torch.fx.Node):
                raise CaptureError(node, "reads no tensor")
            merged = self.batch_view(node, shape)
            if merged is not None:
                return merged
            pending = self.env.get(args[0])
            if isinstance(pending, _Perm) and pending.shape == shape and pending.dtype == _prism_dtype(node, dtype):
                return pending
            src = self.value(node, args[0], None)
            if src.shape != shape:
                raise CaptureError(node, f"changes the shape {src.shape} to {shape}: prism programs "
                                         "have no reshape or broadcast-to yet")
            if src.dtype != _prism_dtype(node, dtype):
                # An upcast to f32, as torch decomposes silu and Llama's RMSNorm in
                # half precision: computed in the low dtype (prism's ops compute in
                # f32 and round once per op); the cast back is then the identity.
                if not (tgt == A._to_copy.default and _DTYPES[dtype] == "f32" and src.dtype in ("f16", "bf16")):
                    raise CaptureError(node, f"converts {src.dtype} to {_DTYPES[dtype]}: prism programs "
                                             "have no cast")
            return src
        if tgt in _UNARY:
            t = self.value(node, args[0], None)
            return self.b.op(_UNARY[tgt], [t], t.shape)
        if tgt == A.rsqrt.default:
            t = self.value(node, args[0], None)
            one = self.b.constant(1.0, len(t.shape), t.dtype)
            return self.b.op("div", [one, self.b.op("sqrt", [t], t.shape)], t.shape)
        if tgt == A.sigmoid.default:
            t = self.value(node, args[0], None)
            one = self.b.constant(1.0, len(t.shape), t.dtype)
            e = self.b.op("exp", [self.b.op("neg", [t], t.shape)], t.shape)
            return self.b.op("div", [one, self.b.op("add", [one, e], t.shape)], t.shape)
        if tgt == A.gelu.default:
            approx = node.kwargs.get("approximate", args[1] if len(args) > 1 else "none")
            if approx != "none":
                raise CaptureError(node, f"gelu with approximate={approx!r}: prism's gelu is the erf form")
            t = self.value(node, args[0], None)
            return self.b.op("gelu", [t], t.shape)
        if tgt in _BINARY:
            return self.binary(node, _BINARY[tgt], shape)
        if tgt in _REDUCE:
            t = self.value(node, args[0], None)
            dims = _dims(node, args[1] if len(args) > 1 else node.kwargs.get("dim"), len(t.shape))
            keep = args[2] if len(args) > 2 else node.kwargs.get("keepdim", False)
            if node.kwargs.get("dtype") is not None:
                raise CaptureError(node, "a reduction with a dtype argument")
            return self.reduce(node, _REDUCE[tgt], t, dims, keep)
        if tgt == A.bmm.default and all(isinstance(self.env.get(a), _Merged) for a in args[:2]):
            a, b = self.env[args[0]], self.env[args[1]]
            if a.tensor.shape[:-2] == b.tensor.shape[:-2]:
                out = self.b.op("matmul", [a.tensor, b.tensor], a.tensor.shape[:-2] + shape[-2:])
                return _Merged(out, shape, node, "a matmul over several batch dims read by other "
                                                 "than the view back to them")
        if tgt in (A.mm.default, A.bmm.default, A.matmul.default):
            a = self.value(node, args[0], None)
            b = self.value(node, args[1], None)
            if len(a.shape) != len(b.shape) or a.shape[:-2] != b.shape[:-2]:
                raise CaptureError(node, f"matmul of {a.shape} and {b.shape}: prism's matmul needs "
                                         "equal ranks and equal batch dims")
            return self.b.op("matmul", [a, b], shape)
        if tgt == A.addmm.default:
            bias = self.value(node, args[0], None)
            a = self.value(node, args[1], None)
            w = self.value(node, args[2], None)
            if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
                raise CaptureError(node, "addmm with beta or alpha other than 1")
            m = self.b.op("matmul", [a, w], shape)
            _broadcast(node, m.shape, bias.shape)
            return self.b.op("add", [m, bias], shape)
        if tgt in (A.permute.default, A.transpose.int, A.t.default):
            t = self.env.get(args[0])
            if t is None or isinstance(t, _Merged):
                t = self.value(node, args[0], None)
            rank = len(t.shape)
            if tgt == A.permute.default:
                perm = [d % rank for d in args[1]]
            else:
                d0, d1 = (args[1] % rank, args[2] % rank) if tgt == A.transpose.int else (0, 1)
                perm = list(range(rank))
                perm[d0], perm[d1] = perm[d1], perm[d0]
            if isinstance(t, _Perm):
                perm = [t.perm[p] for p in perm]
                t = t.src
            if perm == list(range(rank)):
                return t
            return _Perm(t, perm)
        if tgt in (A._softmax.default, A._safe_softmax.default, A.softmax.int):
            t = self.value(node, args[0], None)
            if len(args) > 2 and args[2] is True:
                raise CaptureError(node, "softmax that changes the dtype")
            return self.softmax(node, t, args[1] % len(t.shape))
        raise CaptureError(node, "prism has no op for it")

    def max_dim(self, node):
        """x.max(dim, keepdim).values: a max (the indices have no prism op)."""
        if any(not (u.target == operator.getitem and u.args[1] == 0) for u in self.users[node]):
            raise CaptureError(node, "max over a dim with its indices: prism has no argmax")
        t = self.value(node, node.args[0], None)
        dim = node.args[1] % len(t.shape)
        keep = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        return self.reduce(node, "max", t, [dim], keep)

    def softmax_guards(self):
        """SDPA's softmax guard, where(all(x == -inf), 0, softmax(x)): rows of
        -inf only (masked out entirely) give 0 rather than NaN.  Without a mask
        no row of scores is -inf, so the where is the softmax.  Returns the
        guard's nodes (computed for nothing) and {where: softmax}."""
        skip, alias = set(), {}
        for w in self.g.nodes:
            if w.target != A.where.self or len(w.args) != 3:
                continue
            cond, zero, soft = w.args
            if not all(isinstance(a, torch.fx.Node) for a in w.args):
                continue
            if soft.target not in (A._softmax.default, A.softmax.int) or zero.target != A.full_like.default:
                continue
            chain = [cond]
            for want in (A.logical_not.default, A.any.dim, A.logical_not.default, A.eq.Scalar):
                n = chain[-1]
                if n.target != want or len(self.users[n]) != 1:
                    break
                if want == A.eq.Scalar:
                    if n.args[1] != float("-inf") or n.args[0] is not soft.args[0]:
                        break
                    if zero.args[1] != 0 or len(self.users[zero]) != 1:
                        break
                    skip.update(chain + [zero])
                    alias[w] = soft
                    break
                chain.append(n.args[0])
        return skip, alias

    def batch_view(self, node, shape):
        """A view merging the leading batch dims of a tensor for a bmm, or the
        view of the bmm's result back to them: a _Merged, the tensor, or None."""
        if node.target not in (A.view.default, A._unsafe_view.default, A.reshape.default):
            return None
        src = self.get(node.args[0])
        if isinstance(src, _Merged):
            if shape == src.tensor.shape:
                return src.tensor
            return None
        if (src is None or len(src.shape) < 4 or len(shape) != 3 or shape[1:] != src.shape[-2:]
                or shape[0] != _product(src.shape[:-2])
                or not all(u.target == A.bmm.default for u in self.users[node])):
            return None
        return _Merged(src, shape, node, f"changes the shape {src.shape} to {shape}: prism programs "
                                         "have no reshape yet")

    def binary(self, node, kind, shape):
        a_arg, b_arg = node.args[0], node.args[1]
        if node.kwargs.get("alpha", 1) != 1:
            raise CaptureError(node, "alpha other than 1")
        if not isinstance(a_arg, torch.fx.Node) and not isinstance(b_arg, torch.fx.Node):
            raise CaptureError(node, "no tensor operand")
        like = self.get(a_arg if isinstance(a_arg, torch.fx.Node) else b_arg)
        if like is None:
            raise CaptureError(node, "reads a value that is not a tensor of the program")
        if kind == "pow" and not isinstance(b_arg, torch.fx.Node):
            if b_arg == 2:
                return self.b.op("square", [like], like.shape)
            if b_arg == 0.5:
                return self.b.op("sqrt", [like], like.shape)
        a = self.value(node, a_arg, like)
        b = self.value(node, b_arg, like)
        out = _broadcast(node, a.shape, b.shape)
        if out != shape:
            raise CaptureError(node, f"prism infers {out}, the graph says {shape}")
        return self.b.op(kind, [a, b], shape)

    # -- the whole graph -------------------------------------------------------

    def run(self):
        sig = self.ep.graph_signature
        names = {}
        user = 0
        for spec in sig.input_specs:
            kind = spec.kind.name
            if kind == "USER_INPUT":
                label = spec.arg.name
                if self.input_names and user < len(self.input_names):
                    label = self.input_names[user]
                user += 1
                names[spec.arg.name] = (0, label)
            elif kind in ("PARAMETER", "BUFFER"):
                names[spec.arg.name] = (1, spec.target)
            elif kind == "CONSTANT_TENSOR":
                names[spec.arg.name] = (2, spec.target)
            else:
                names[spec.arg.name] = (3, spec.arg.name)
        placeholders = [n for n in self.g.nodes if n.op == "placeholder"]
        ranks = self._input_ranks(placeholders)
        # User inputs first, then parameters and buffers: op(x, *weights).
        order = sorted(placeholders, key=lambda n: names.get(n.name, (3, ""))[0])
        for n in order:
            group, label = names.get(n.name, (3, n.name))
            if group == 2:
                raise CaptureError(n, "a tensor constant of the module: make it a buffer or a number")
            if group == 3:
                raise CaptureError(n, "an input that is not a tensor")
            shape, dtype = _val_shape(n)
            rank = ranks.get(n, len(shape))
            shape = [1] * (rank - len(shape)) + shape
            if not 1 <= len(shape) <= _MAX_RANK:
                raise CaptureError(n, f"rank {len(shape)}: prism tensors have 1 to {_MAX_RANK} dims")
            self.env[n] = self.b.input(label, shape, _prism_dtype(n, dtype))
        skip, alias = self.softmax_guards()
        for node in self.g.nodes:
            if node.op != "call_function":
                continue
            if node in alias:
                self.env[node] = self.get(alias[node])
                continue
            # A check of metadata (from .float(), .type_as()): no value, nothing to compute.
            if node.target == A._assert_tensor_metadata.default and not self.users[node]:
                continue
            if node.target == operator.getitem:
                src, index = node.args
                if getattr(src, "target", None) == A.max.dim and index == 0 and src in self.env:
                    self.env[node] = self.env[src]
                    continue
                raise CaptureError(node, "an op with several outputs")
            # rsqrt and sigmoid fold into the mul that reads them when a pattern matches.
            if node in skip:
                continue
            if node.target in (A.rsqrt.default, A.sigmoid.default) and self._folds(node):
                continue
            if self._inner_of_rms(node):
                continue
            self.env[node] = self.call(node)
        out_node = next(n for n in self.g.nodes if n.op == "output")
        results = out_node.args[0]
        if not isinstance(results, (tuple, list)):
            results = (results,)
        user_outputs = [s for s in sig.output_specs if s.kind.name == "USER_OUTPUT"]
        if len(user_outputs) != len(results):
            raise CaptureError(out_node, "the module mutates a buffer or an input")
        for i, r in enumerate(results):
            if not isinstance(r, torch.fx.Node) or r not in self.env:
                raise CaptureError(out_node, f"output {i} is not a tensor of the program")
            declared = _DTYPES.get(r.meta["val"].dtype) if isinstance(r.meta.get("val"), torch.Tensor) else None
            if declared is not None and declared != self.get(r).dtype:
                raise CaptureError(r, f"output {i} is {declared}, computed from {self.get(r).dtype} "
                                      "values: prism programs have no cast")
            self.b.output(self.get(r), "O" if len(results) == 1 else f"O{i}")
        doc = {"format": "prism-graph", "version": 1}
        if self.name:
            doc["name"] = self.name[:128]
        doc["description"] = "Captured from PyTorch by prism_torch.capture (torch.export, core ATen)."
        doc["ops"] = self.b.ops
        doc["provenance"] = {"source": "prism_torch", "torch": torch.__version__}
        return doc

    def _input_ranks(self, placeholders):
        """Inputs of lower rank than the tensors they broadcast with are declared
        with leading 1s (a [64] norm weight beside [8, 64] rows is [1, 64])."""
        ranks = {}
        for n in placeholders:
            for u in self.users[n]:
                if u.target in _BINARY or u.target == A.addmm.default and u.args[0] is n:
                    try:
                        r = len(_val_shape(u)[0])
                    except CaptureError:
                        continue
                    ranks[n] = max(ranks.get(n, 0), r)
        return ranks

    def _folds(self, node):
        """rsqrt or sigmoid that a pattern of its only user takes in."""
        users = self.users[node]
        if len(users) != 1:
            return False
        u = users[0]
        if node.target == A.sigmoid.default:
            return self.match_silu(u, _build=False) is not None
        return self._probe_rms(u)

    def _probe_rms(self, mul):
        """Whether match_rms_norm would match @mul."""
        return self.match_rms_norm(mul, build=False) is not None

    def match_silu(self, node, _build=True):
        """x * sigmoid(x), as silu decomposes: silu(x) (only a probe without _build)."""
        if node.target != A.mul.Tensor or len(node.args) != 2:
            return None
        for x, s in (node.args, node.args[::-1]):
            if (isinstance(s, torch.fx.Node) and s.target == A.sigmoid.default and s.args[0] is x
                    and self._only_user(s, node) and x in self.env and not isinstance(self.env[x], _Merged)):
                if not _build:
                    return True
                t = self.get(x)
                return self.b.op("silu", [t], t.shape)
        return None

    def _inner_of_rms(self, node):
        """pow, mean and add of an RMSNorm that its final mul takes in."""
        n = node
        for _ in range(3):
            users = self.users[n]
            if len(users) != 1:
                return False
            n = users[0]
            if n.target == A.rsqrt.default:
                users = self.users[n]
                return len(users) == 1 and self._probe_rms(users[0])
        return False


def capture(fn_or_module, example_inputs, *, name=None):
    """The prism-graph program (a dict) of @fn_or_module applied to @example_inputs.

    fn_or_module: a torch.nn.Module or a function of tensors.
    example_inputs: a tuple (or list) of tensors, or one tensor.

    The program's inputs are the function's tensor arguments (named after
    them), then the module's parameters and buffers (named by their paths,
    e.g. "norm.weight"); shapes and dtypes are those of the exported graph.
    Raises CaptureError naming the node, its op and the source line for
    anything prism cannot express.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    arg_names = None
    if isinstance(fn_or_module, torch.nn.Module):
        module = fn_or_module
        label = name or type(module).__name__
    else:
        module = _FunctionModule(fn_or_module)
        label = name or getattr(fn_or_module, "__name__", "captured")
        arg_names = _argument_names(fn_or_module, len(example_inputs))
    ep = torch.export.export(module, example_inputs)
    try:
        return from_exported(ep, name=label, input_names=arg_names)
    except CaptureError as first:
        # Non-strict export records only the frames of forward()s; the
        # strict one (TorchDynamo) records the whole user stack, so the error
        # can name the very line.  Its error is the same refusal, better placed.
        try:
            strict = torch.export.export(module, example_inputs, strict=True)
            from_exported(strict, name=label, input_names=arg_names)
        except CaptureError as better:
            raise better from None
        except Exception:  # noqa: BLE001 (strict export may fail where non-strict did not)
            pass
        raise first


def from_exported(ep, *, name=None, input_names=None):
    """The program of an ExportedProgram (from torch.export.export or .load).

    input_names: names for the user inputs, in order (default: the exported
    graph's, which are the forward's argument names)."""
    ep = ep.run_decompositions()
    return _Capture(ep, name, input_names).run()


class _FunctionModule(torch.nn.Module):
    """A function as a module (torch.export takes modules)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _argument_names(fn, n):
    """The names of @fn's first @n positional parameters, or None."""
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names[:n] if len(names) >= n else None
