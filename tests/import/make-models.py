#!/usr/bin/env python3
"""Writes the small ONNX models of tests/import/models/ (committed), each in
the layout of Debian's onnx test data: NAME/model.onnx and
NAME/test_data_set_0/{input_K,output_0}.pb, the outputs computed by onnx's
reference evaluator.  Run with the project's Python, which has onnx:

    .venv/bin/python tests/import/make-models.py

SPDX-License-Identifier: GPL-3.0-or-later
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
rng = np.random.default_rng(21)


def const(name, value):
    return helper.make_tensor(name, TensorProto.FLOAT, [], [value])


def save(name, nodes, inputs, outputs, initializers=(), opset=13, data=None, ir_version=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="prism make-models.py")
    model.ir_version = ir_version
    onnx.checker.check_model(model)
    folder = os.path.join(HERE, name)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    if data is None:
        return
    feeds = {}
    for k, info in enumerate(inputs):
        feeds[info.name] = data[k]
        with open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(data[k], info.name).SerializeToString())
    result = ReferenceEvaluator(model).run(None, feeds)
    for k, out in enumerate(result):
        with open(os.path.join(folder, "test_data_set_0", "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(out, dtype=np.float32), outputs[k].name).SerializeToString())


def f32(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# GELU as torch.onnx writes it: 0.5·x·(1 + erf(x/√2)).
save("gelu_erf",
     [helper.make_node("Div", ["x", "sqrt2"], ["d"], name="/act/Div"),
      helper.make_node("Erf", ["d"], ["e"], name="/act/Erf"),
      helper.make_node("Add", ["e", "one"], ["a"], name="/act/Add"),
      helper.make_node("Mul", ["x", "a"], ["m"], name="/act/Mul"),
      helper.make_node("Mul", ["m", "half"], ["y"], name="/act/Mul_1")],
     [vi("x", [4, 16])], [vi("y", [4, 16])],
     [const("sqrt2", 1.4142135381698608), const("one", 1.0), const("half", 0.5)],
     data=[f32(4, 16)])

# SwiGLU-style MLP: silu(x @ Wg) · (x @ Wu) @ Wd, weights as initializers.
save("swiglu_mlp",
     [helper.make_node("MatMul", ["x", "w_gate"], ["g"], name="gate"),
      helper.make_node("Sigmoid", ["g"], ["s"], name="sigmoid"),
      helper.make_node("Mul", ["g", "s"], ["silu"], name="silu"),
      helper.make_node("MatMul", ["x", "w_up"], ["u"], name="up"),
      helper.make_node("Mul", ["silu", "u"], ["h"], name="gated"),
      helper.make_node("MatMul", ["h", "w_down"], ["y"], name="down")],
     [vi("x", [8, 32])], [vi("y", [8, 32])],
     [numpy_helper.from_array(f32(32, 64), "w_gate"), numpy_helper.from_array(f32(32, 64), "w_up"),
      numpy_helper.from_array(f32(64, 32), "w_down")],
     data=[f32(8, 32)])

# RMSNorm as exporters spell it, with eps and a weight [N] broadcast to [M, N];
# ReduceMean's axes are an attribute before opset 18.
save("rmsnorm_linear",
     [helper.make_node("Pow", ["x", "two"], ["sq"], name="/norm/Pow"),
      helper.make_node("ReduceMean", ["sq"], ["ms"], axes=[-1], keepdims=1, name="/norm/ReduceMean"),
      helper.make_node("Add", ["ms", "eps"], ["mse"], name="/norm/Add"),
      helper.make_node("Sqrt", ["mse"], ["rms"], name="/norm/Sqrt"),
      helper.make_node("Div", ["x", "rms"], ["n"], name="/norm/Div"),
      helper.make_node("Mul", ["n", "weight"], ["nw"], name="/norm/Mul"),
      helper.make_node("Gemm", ["nw", "w", "bias"], ["y"], transB=1, name="/proj/Gemm")],
     [vi("x", [8, 64])], [vi("y", [8, 16])],
     [const("two", 2.0), const("eps", 1e-6), numpy_helper.from_array(f32(64), "weight"),
      numpy_helper.from_array(f32(16, 64), "w"), numpy_helper.from_array(f32(16), "bias")],
     opset=13, data=[f32(8, 64)])

# Reductions with axes as inputs (ReduceSum from opset 13, ReduceMax and
# ReduceMean from 18), keepdims 0 on the output.
save("reduce_axes_input",
     [helper.make_node("ReduceMax", ["x", "axes1"], ["m"], keepdims=1, name="max"),
      helper.make_node("Sub", ["x", "m"], ["c"], name="centre"),
      helper.make_node("ReduceSum", ["c", "axes1"], ["s"], keepdims=1, name="sum"),
      helper.make_node("ReduceMean", ["s", "axes0"], ["y"], keepdims=0, name="mean")],
     [vi("x", [3, 4, 5])], [vi("y", [4, 1])],
     [numpy_helper.from_array(np.array([2], dtype=np.int64), "axes1"),
      numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0")],
     opset=18, data=[f32(3, 4, 5)])

# A symbolic batch dim (dim_param), bound with --dim batch=N.
save("dim_param",
     [helper.make_node("Relu", ["x"], ["r"], name="relu"),
      helper.make_node("Softmax", ["r"], ["y"], axis=-1, name="softmax")],
     [vi("x", ["batch", 16])], [vi("y", ["batch", 16])])

# Not in the program format: refused by node name, op type and position.
save("unsupported_tanh",
     [helper.make_node("Relu", ["x"], ["r"], name="relu"),
      helper.make_node("Tanh", ["r"], ["y"], name="/act/Tanh")],
     [vi("x", [4, 4])], [vi("y", [4, 4])])

# Weights stored outside the model (external data): refused by name.
ext = TensorProto()
ext.name, ext.data_type = "w_ext", TensorProto.FLOAT
ext.dims.extend([4, 4])
ext.data_location = TensorProto.EXTERNAL
entry = ext.external_data.add()
entry.key, entry.value = "location", "weights.bin"
graph = helper.make_graph([helper.make_node("MatMul", ["x", "w_ext"], ["y"], name="mm")], "external_data",
                          [vi("x", [4, 4])], [vi("y", [4, 4])], [ext])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
os.makedirs(os.path.join(HERE, "external_data"), exist_ok=True)
onnx.save(model, os.path.join(HERE, "external_data", "model.onnx"))
print("wrote", HERE, file=sys.stderr)
