"""An ORT host nobody here wrote: Python onnxruntime (1.30 on the GPU machine) registers libjavaep,
lists JavaCudaExecutionProvider's device and runs a small MLP on it with CPU fallback disabled.

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
        print("PYTHON HOST OK")
        return 0
    finally:
        ort.unregister_execution_provider_library("javaep")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
