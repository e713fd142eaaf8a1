"""PyTorch's side of `javaep bench-torchvision`: torchvision architectures (random weights, weights=None, fixed
seeds: the GPU machine has no network), batch 1 and 8, float32 and float16, on cuda:0. For each case it exports the
model to ONNX (TorchScript exporter, opset 17; the dynamo exporter, opset 18, if that fails; float16 by exporting the
.half() model) into OUT_DIR, then times PyTorch eager (forward + torch.cuda.synchronize() per iteration, timed on the
host, as a Run of ORT ends synchronised) and PyTorch replaying a CUDA graph (torch.cuda.CUDAGraph with a static input
and output; replay + synchronize per iteration), median of ITERS after warm-up. PyTorch's default settings
(cudnn.benchmark False, cudnn.allow_tf32 True: float32 convolutions may use TF32). With JAVAEP_TORCH_PROFILE=FILE,
each case also appends PyTorch's GPU kernels per eager forward (torch.profiler) to FILE.

Prints the versions, then one line per case (fields separated by single spaces; the Java side parses them):
    case MODEL BATCH DTYPE HEIGHT WIDTH ONNX_PATH EAGER_MS GRAPH_MS
    error MODEL BATCH DTYPE MESSAGE...

    /opt/torch/.venv/bin/python tools/gpu/torchvision_bench.py OUT_DIR [ITERS] [MODEL,...]
"""
import copy
import os
import statistics
import sys
import time

import torch
import torchvision

# The real-architecture models of the vision issue (javaep's test models), from their PyTorch definitions.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import export_torch as vision  # noqa: E402 - after the path it lives on

# name -> (constructor, (input height, width)): resnet18 at 160x160 as issue 13's measured figure was. The vision
# models (tests run them at a few dozen pixels) at frame sizes an app would give them; vit_tiny's position embedding
# fixes its size, so it is built for 224x224; flow_warp (two inputs) is not here.
MODELS = {
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(weights=None), (224, 224)),
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (160, 160)),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(weights=None), (224, 224)),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(weights=None), (224, 224)),
    "espcn_x2": (vision.Espcn, (540, 960)),
    "unet_small": (vision.UNet, (256, 256)),
    "resnet_small": (vision.ResNetSmall, (224, 224)),
    "mobilenetv3_small": (vision.MobileNetV3Small, (224, 224)),
    "style_transfer": (vision.StyleTransfer, (256, 256)),
    "vit_tiny": (lambda: vision.VitBlockNet(image=224), (224, 224)),
}
BATCHES = (1, 8)
DTYPES = (("float32", torch.float32), ("float16", torch.float16))
WARM_UP = 20


def median_ms(step, iters):
    times = []
    for i in range(WARM_UP + iters):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        if i >= WARM_UP:
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def export(model, x, path):
    """TorchScript exporter at opset 17; the dynamo exporter at opset 18 when it fails. Returns which one ran."""
    try:
        torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17, input_names=["input"],
                          output_names=["output"])
        return "torchscript"
    except Exception as first:  # noqa: BLE001 - any exporter failure: try the other one, report both if it fails too
        try:
            torch.onnx.export(model, (x,), path, dynamo=True, opset_version=18, external_data=False,
                              input_names=["input"], output_names=["output"])
            return "dynamo"
        except Exception as second:  # noqa: BLE001
            raise RuntimeError(f"torchscript: {first!r}; dynamo: {second!r}") from second


def graph_ms(model, x, iters):
    """Replays a CUDA graph of the forward captured with a static input and output (warm-up on a side stream first,
    as torch.cuda.graphs asks, so lazy initialisation is not captured)."""
    static_in = x.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_in)
    ms = median_ms(graph.replay, iters)
    assert static_out.shape[0] == x.shape[0]
    return ms


def kernel_profile(model, x, label, path, forwards=10):
    """Appends PyTorch's GPU kernels per eager forward to `path` (torch.profiler, CUDA activity): the total kernel time,
    then each kernel's µs and launches per forward, largest first. Eager runs the kernels a CUDA graph replays."""
    from torch.profiler import ProfilerActivity, profile
    with torch.no_grad():
        for _ in range(3):
            model(x)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(forwards):
                model(x)
            torch.cuda.synchronize()
    rows = []
    for evt in prof.key_averages():
        us = getattr(evt, "self_device_time_total", None)
        if us is None:
            us = getattr(evt, "self_cuda_time_total", 0)
        if us > 0:
            rows.append((us / forwards, evt.count / forwards, evt.key))
    rows.sort(reverse=True)
    with open(path, "a") as f:
        f.write(f"## {label}: PyTorch's GPU kernels per eager forward: {sum(r[0] for r in rows):.1f} µs in all\n")
        for us, count, key in rows[:25]:
            f.write(f"{us:9.1f} µs {count:5.1f}x  {key[:140]}\n")
        f.write("\n")


def main():
    out_dir = sys.argv[1]
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    only = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else list(MODELS)
    os.makedirs(out_dir, exist_ok=True)
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, cuDNN {torch.backends.cudnn.version()},"
          f" {torch.cuda.get_device_name(0)}, cudnn.benchmark={torch.backends.cudnn.benchmark},"
          f" cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}", flush=True)
    for name in only:
        make, (height, width) = MODELS[name]
        torch.manual_seed(sum(map(ord, name)))
        base = make().eval()
        for batch in BATCHES:
            for dtype_name, dtype in DTYPES:
                try:
                    model = copy.deepcopy(base).cuda().to(dtype).eval()
                    torch.manual_seed(batch)
                    x = torch.rand(batch, 3, height, width, device="cuda", dtype=dtype)
                    path = os.path.join(out_dir, f"{name}_b{batch}_{dtype_name}.onnx")
                    with torch.no_grad():
                        export(model, x, path)
                        eager = median_ms(lambda: model(x), iters)
                        graph = graph_ms(model, x, iters)
                    print(f"case {name} {batch} {dtype_name} {height} {width} {path} {eager:.4f} {graph:.4f}", flush=True)
                    if os.environ.get("JAVAEP_TORCH_PROFILE"):  # a file: PyTorch's kernels per forward, per case
                        kernel_profile(model, x, f"{name} b{batch} {dtype_name}", os.environ["JAVAEP_TORCH_PROFILE"])
                    if dtype != torch.float32:
                        # how far PyTorch's own half model lands from its float32 model on the same input: the yardstick
                        # for an EP's float16 output (random weights can overflow float16 in PyTorch too)
                        with torch.no_grad():
                            reference = copy.deepcopy(base).cuda().float().eval()(x.float())
                            drift = (model(x).float() - reference).abs().max() / reference.abs().max()
                        print(f"drift {name} {batch} {dtype_name} {drift.item():.3e}", flush=True)
                except Exception as e:  # noqa: BLE001 - one failed case is reported, the others still run
                    message = " ".join(repr(e).split())[:400]
                    print(f"error {name} {batch} {dtype_name} {message}", flush=True)


if __name__ == "__main__":
    main()
