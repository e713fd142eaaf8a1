"""PyTorch's side of `javaep bench-espcn`: ESPCN x2 (Conv5x5 3->64, Tanh, Conv3x3 64->32, Tanh, Conv3x3 32->12,
PixelShuffle 2, which is ONNX's DepthToSpace CRD) on one 1080p RGB frame, eager, on cuda:0, float32 and float16,
PyTorch's default settings (cudnn.benchmark False; cudnn.allow_tf32 True, so float32 convolutions may use TF32).
Per frame: the forward, then torch.cuda.synchronize(), timed on the host (as a Run of ORT, which synchronises too);
prints one line per type: `espcn <type> <median ms> <min ms>` after the versions.

    /opt/torch/.venv/bin/python tools/gpu/espcn_torch.py [frames]
"""
import statistics
import sys
import time

import torch

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 50
torch.manual_seed(1)
print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)},"
      f" cudnn.benchmark={torch.backends.cudnn.benchmark}, cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}")
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 64, 5, padding=2), torch.nn.Tanh(),
    torch.nn.Conv2d(64, 32, 3, padding=1), torch.nn.Tanh(),
    torch.nn.Conv2d(32, 12, 3, padding=1), torch.nn.PixelShuffle(2)).cuda().eval()
for name, dtype in (("float32", torch.float32), ("float16", torch.float16)):
    m = model.to(dtype)
    x = torch.rand(1, 3, 1080, 1920, device="cuda", dtype=dtype)
    times = []
    with torch.inference_mode():
        for i in range(10 + frames):
            t0 = time.perf_counter()
            y = m(x)
            torch.cuda.synchronize()
            if i >= 10:
                times.append((time.perf_counter() - t0) * 1e3)
    assert y.shape == (1, 3, 2160, 3840)
    print(f"espcn {name} {statistics.median(times):.3f} {min(times):.3f}", flush=True)
