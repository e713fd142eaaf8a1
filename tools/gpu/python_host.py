"""An ORT host nobody here wrote: Python onnxruntime (1.30 on the GPU machine) registers libjavaep,
lists JavaCudaExecutionProvider's device, runs a small MLP on it with CPU fallback disabled, and runs
a mixed CPU/JavaCuda model like the one issue 11 reported (ops only ORT's CPU EP has, Compress and Shrink,
feeding JavaCuda nodes) with fallback on, against ORT's own CPU EP.

    python3 tools/gpu/python_host.py /path/to/libjavaep.so
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

EP = "JavaCudaExecutionProvider"


def mlp(rng):
    w1 = rng.standard_normal((64, 128)).astype(np.float32) * 0.1
    b1 = rng.standard_normal(128).astype(np.float32) * 0.1
    w2 = rng.standard_normal((128, 10)).astype(np.float32) * 0.1
    b2 = rng.standard_normal(10).astype(np.float32) * 0.1
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["h2"]),
        helper.make_node("Gemm", ["h2", "w2", "b2"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "javaep_python_host_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 10])],
        [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    onnx.checker.check_model(model)

    def reference(x):
        h = np.maximum(x @ w1 + b1, 0)
        logits = h @ w2 + b2
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return model, reference


def mixed_cpu_gpu(rng):
    """Compress (CPU) -> Relu -> Sigmoid -> Shrink (CPU; the identity with these attributes) -> Flatten -> MatMul
    -> Add -> Tanh -> Softmax. JavaCuda has neither Compress nor Shrink (issue 11's model used Slice and Flatten,
    which JavaCuda now runs), so ORT's CPU EP feeds JavaCuda twice."""
    w = rng.standard_normal((48, 16)).astype(np.float32) * 0.2
    b = rng.standard_normal(16).astype(np.float32) * 0.1
    keep = np.array([False, True, True, True, True, False])
    nodes = [
        helper.make_node("Compress", ["x", "keep"], ["s"], axis=1),
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("Sigmoid", ["r"], ["g0"]),
        helper.make_node("Shrink", ["g0"], ["g"], lambd=0.0, bias=0.0),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("MatMul", ["f", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["a"]),
        helper.make_node("Tanh", ["a"], ["t"]),
        helper.make_node("Softmax", ["t"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "javaep_issue11_mixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])],
        [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (b, "b"), (keep, "keep"))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    onnx.checker.check_model(model)
    return model


def run_mixed(devices, rng):
    """The issue-11 model with fallback on: JavaCuda's result must equal ORT CPU's, and ORT must have
    assigned the JavaCuda ops (plus its copy nodes) to JavaCuda and Compress and Shrink to its CPU EP."""
    model = mixed_cpu_gpu(rng).SerializeToString()
    options = ort.SessionOptions()
    options.add_provider_for_devices(devices[:1], {})
    options.log_severity_level = 1  # INFO: ORT prints "Add MemcpyFromHost after ..." when it inserts copies
    options.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    session = ort.InferenceSession(model, sess_options=options)
    cpu = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    try:
        assigned = assigned_ops(session)
        on_java_cuda = assigned.get(EP, [])
        print(f"issue-11 mixed model: ORT's assignment: {assigned}")
        worst = 0.0
        for _ in range(10):
            x = rng.standard_normal((2, 6, 3, 4)).astype(np.float32)
            (y,) = session.run(None, {"x": x})
            (expected,) = cpu.run(None, {"x": x})
            worst = max(worst, float(np.max(np.abs(y - expected))))
        print(f"issue-11 mixed model, 10 runs on {EP} + CPU EP: max |y - ORT CPU| = {worst:.3g}")
    finally:
        del session, cpu  # before the library is unregistered: ORT does not reference-count sessions
    # ORT fuses MatMul + Add into Gemm before it asks the EPs; either form is the same work.
    ops = sorted(op for op in on_java_cuda if not op.startswith("Memcpy"))
    if ops not in (sorted(["Relu", "Sigmoid", "Flatten", "MatMul", "Add", "Tanh", "Softmax"]),
                   sorted(["Relu", "Sigmoid", "Flatten", "Gemm", "Tanh", "Softmax"])):
        print(f"FAIL: ORT assigned {on_java_cuda} to {EP}; expected Relu, Sigmoid, Flatten, MatMul+Add (or Gemm), Tanh,"
              " Softmax")
        return float("inf")
    return worst


def _attribute(obj, *names):
    """The first of these attributes (called if it is a method): the Python binding's names differ by version."""
    for name in names:
        if hasattr(obj, name):
            value = getattr(obj, name)
            return value() if callable(value) else value
    public = [a for a in dir(obj) if not a.startswith("_")]
    raise AttributeError(f"{type(obj).__name__} has none of {names}; it has {public}")


def assigned_ops(session):
    """EP name -> op types of the nodes ORT assigned to it (ORT >= 1.24 records it on request)."""
    result = {}
    for subgraph in session.get_provider_graph_assignment_info():
        ep = _attribute(subgraph, "ep_name", "get_ep_name")
        nodes = _attribute(subgraph, "nodes", "get_nodes", "ep_nodes")
        result.setdefault(ep, []).extend(_attribute(n, "op_type", "operator_type", "get_operator_type") for n in nodes)
    return result


def main(library):
    print(f"onnxruntime {ort.__version__} from {ort.__file__}")
    ort.register_execution_provider_library("javaep", library)
    try:
        devices = [d for d in ort.get_ep_devices() if d.ep_name == EP]
        for d in ort.get_ep_devices():
            hw = d.device
            print(f"EP device: {d.ep_name} (vendor {d.ep_vendor}) on {hw.type} vendor_id=0x{hw.vendor_id:04x} "
                  f"device_id=0x{hw.device_id:04x}\n  ep_metadata={dict(d.ep_metadata)}\n  hw_metadata={dict(hw.metadata)}")
        if not devices:
            print(f"FAIL: no {EP} device listed")
            return 1
        rng = np.random.default_rng(7)
        model, reference = mlp(rng)
        options = ort.SessionOptions()
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        options.add_provider_for_devices(devices[:1], {})
        session = ort.InferenceSession(model.SerializeToString(), sess_options=options)
        print("session providers:", session.get_providers())
        worst = 0.0
        for _ in range(20):
            x = rng.standard_normal((8, 64)).astype(np.float32)
            (y,) = session.run(None, {"x": x})
            worst = max(worst, float(np.max(np.abs(y - reference(x)))))
        print(f"20 runs on {EP}: max |y - numpy| = {worst:.3g}")
        del session
        if worst > 1e-4:
            print("FAIL: results differ from numpy")
            return 1
        if run_mixed(devices, rng) > 1e-5:
            print("FAIL: the mixed CPU/JavaCuda model differs from ORT CPU")
            return 1
        print("PYTHON HOST OK")
        return 0
    finally:
        ort.unregister_execution_provider_library("javaep")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
