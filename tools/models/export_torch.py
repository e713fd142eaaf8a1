"""Exports the real-architecture models javaep's tests run, with PyTorch's own exporters, so the graphs are
what users bring (the exporter's op choices, opsets, shape arithmetic), not what javaep's builder makes.

Small widths and random weights from fixed seeds keep each file small enough to live in the repository
(test-harness's test resources); the architectures are the real ones. Run on a machine with torch,
torchvision and onnx (the GPU machine has them):

    python3 tools/models/export_torch.py OUTPUT_DIR

Each model is checked with onnx.checker and run once with onnxruntime's CPU EP when it is installed. The
exporter and opset of each file are in models.tsv beside them (the tests read that file).
"""
import copy
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F


class Espcn(nn.Module):
    """ESPCN x2 super-resolution: Conv5x5, Tanh, Conv3x3, Tanh, Conv3x3 to 3*r*r channels, PixelShuffle."""

    def __init__(self, width=16, r=2):
        super().__init__()
        self.c1 = nn.Conv2d(3, width, 5, padding=2)
        self.c2 = nn.Conv2d(width, width // 2, 3, padding=1)
        self.c3 = nn.Conv2d(width // 2, 3 * r * r, 3, padding=1)
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        return self.shuffle(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x))))))


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """A two-level U-Net: Conv-BN-ReLU, MaxPool, bilinear upsampling, Concat skips, a 1x1 head."""

    def __init__(self, w=8, classes=3):
        super().__init__()
        self.e1 = nn.Sequential(conv_bn_relu(3, w), conv_bn_relu(w, w))
        self.e2 = nn.Sequential(conv_bn_relu(w, 2 * w), conv_bn_relu(2 * w, 2 * w))
        self.mid = nn.Sequential(conv_bn_relu(2 * w, 4 * w), conv_bn_relu(4 * w, 4 * w))
        self.d2 = nn.Sequential(conv_bn_relu(6 * w, 2 * w), conv_bn_relu(2 * w, 2 * w))
        self.d1 = nn.Sequential(conv_bn_relu(3 * w, w), conv_bn_relu(w, w))
        self.head = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.d2(torch.cat([F.interpolate(m, scale_factor=2, mode="bilinear", align_corners=False), e2], 1))
        d1 = self.d1(torch.cat([F.interpolate(d2, scale_factor=2, mode="nearest"), e1], 1))
        return self.head(d1)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNetSmall(nn.Module):
    """ResNet-18's shape at width 8 with one block per stage: stem Conv7x7/2 + MaxPool, 4 stages, GAP, Linear."""

    def __init__(self, w=8, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        self.stages = nn.Sequential(BasicBlock(w, w, 1), BasicBlock(w, 2 * w, 2), BasicBlock(2 * w, 4 * w, 2),
                                    BasicBlock(4 * w, 8 * w, 2))
        self.fc = nn.Linear(8 * w, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cexp, cout, stride, se, act):
        super().__init__()
        self.use_res = stride == 1 and cin == cout
        self.expand = nn.Sequential(nn.Conv2d(cin, cexp, 1, bias=False), nn.BatchNorm2d(cexp), act())
        self.dw = nn.Sequential(nn.Conv2d(cexp, cexp, 3, stride, 1, groups=cexp, bias=False), nn.BatchNorm2d(cexp), act())
        self.se = SqueezeExcite(cexp) if se else nn.Identity()
        self.project = nn.Sequential(nn.Conv2d(cexp, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.use_res else y


class MobileNetV3Small(nn.Module):
    """MobileNetV3's blocks: depthwise convs, ReLU6 (Clip), Hardswish, squeeze-excite, a Linear head."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(
            InvertedResidual(16, 16, 16, 2, True, nn.ReLU6),
            InvertedResidual(16, 48, 24, 2, False, nn.ReLU6),
            InvertedResidual(24, 64, 24, 1, False, nn.ReLU6),
            InvertedResidual(24, 96, 32, 2, True, nn.Hardswish),
            InvertedResidual(32, 96, 32, 1, True, nn.Hardswish))
        self.head = nn.Sequential(nn.Linear(32, 64), nn.Hardswish(), nn.Linear(64, classes))

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ResidualIn(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c, affine=True),
                                  nn.ReLU(), nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c, affine=True))

    def forward(self, x):
        return x + self.body(x)


class StyleTransfer(nn.Module):
    """Johnson et al.'s fast style transfer at width 8: reflect Pad, InstanceNorm, stride-2 convs, residual
    blocks, ConvTranspose upsampling."""

    def __init__(self, w=8):
        super().__init__()
        self.down = nn.Sequential(
            nn.ReflectionPad2d(4), nn.Conv2d(3, w, 9), nn.InstanceNorm2d(w, affine=True), nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, 2, 1), nn.InstanceNorm2d(2 * w, affine=True), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, 2, 1), nn.InstanceNorm2d(4 * w, affine=True), nn.ReLU())
        self.res = nn.Sequential(ResidualIn(4 * w), ResidualIn(4 * w))
        self.up = nn.Sequential(
            nn.ConvTranspose2d(4 * w, 2 * w, 3, 2, 1, output_padding=1), nn.InstanceNorm2d(2 * w, affine=True), nn.ReLU(),
            nn.ConvTranspose2d(2 * w, w, 3, 2, 1, output_padding=1), nn.InstanceNorm2d(w, affine=True), nn.ReLU(),
            nn.ReflectionPad2d(4), nn.Conv2d(w, 3, 9))

    def forward(self, x):
        return torch.sigmoid(self.up(self.res(self.down(x))))


class VitBlockNet(nn.Module):
    """A small vision transformer: patchify Conv, class token + position embedding, pre-LN attention blocks with
    erf GELU MLPs, LayerNorm, Linear head."""

    def __init__(self, image=32, patch=8, dim=32, heads=4, depth=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.heads = heads
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(dim), qkv=nn.Linear(dim, 3 * dim), proj=nn.Linear(dim, dim),
                ln2=nn.LayerNorm(dim), fc1=nn.Linear(dim, 2 * dim), fc2=nn.Linear(2 * dim, dim))))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        b, n, d = x.shape
        h = self.heads
        for blk in self.blocks:
            q, k, v = blk["qkv"](blk["ln1"](x)).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
            att = torch.softmax(q @ k.transpose(-2, -1) * (d // h) ** -0.5, dim=-1)
            x = x + blk["proj"]((att @ v).transpose(1, 2).reshape(b, n, d))
            x = x + blk["fc2"](F.gelu(blk["fc1"](blk["ln2"](x))))
        return self.head(self.ln(x)[:, 0])


class FlowWarp(nn.Module):
    """Backward warp of a frame by an optical-flow field: base grid + flow, normalised, grid_sample bilinear
    with border padding (what flow networks and frame interpolation do)."""

    def forward(self, frame, flow):
        n, _, h, w = frame.shape
        ys = torch.linspace(-1.0, 1.0, h).view(1, h, 1).expand(n, h, w)
        xs = torch.linspace(-1.0, 1.0, w).view(1, 1, w).expand(n, h, w)
        grid = torch.stack([xs + flow[:, 0] * (2.0 / (w - 1)), ys + flow[:, 1] * (2.0 / (h - 1))], dim=3)
        return F.grid_sample(frame, grid, mode="bilinear", padding_mode="border", align_corners=True)


def export(model, args, path, dynamo, names, dynamic_hw=False, opset=None):
    model.eval()
    kwargs = dict(input_names=names[0], output_names=names[1])
    if dynamo:
        if dynamic_hw:
            h = torch.export.Dim("height", min=2, max=256)
            w = torch.export.Dim("width", min=2, max=256)
            kwargs["dynamic_shapes"] = ({2: 8 * h, 3: 8 * w},)
        torch.onnx.export(model, args, path, dynamo=True, opset_version=opset or 18, external_data=False, **kwargs)
    else:
        if dynamic_hw:
            kwargs["dynamic_axes"] = {names[0][0]: {2: "height", 3: "width"}}
        torch.onnx.export(model, args, path, dynamo=False, opset_version=opset or 17, **kwargs)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    rows = []

    def add(name, model, args, dynamo, names, note, dynamic_hw=False, opset=None, external=False, fp16=False):
        torch.manual_seed(sum(map(ord, name)))
        for m in model.modules():  # BatchNorm's running statistics: not the identity, or BN would test nothing
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
        if fp16 and torch.cuda.is_available():
            # The same weights in float16 (what a GPU app ships): tests compare JavaCuda's float16 run of this
            # file with ORT CPU's float32 run of the float32 file.
            half = copy.deepcopy(model).cuda().half().eval()
            export(half, tuple(a.cuda().half() for a in args), os.path.join(out, name + "_fp16.onnx"), dynamo, names,
                   dynamic_hw, opset)
            onnx.checker.check_model(os.path.join(out, name + "_fp16.onnx"))
            print(f"{name}_fp16: {os.path.getsize(os.path.join(out, name + '_fp16.onnx'))} bytes")
            note += ", float16 twin " + name + "_fp16.onnx"
        path = os.path.join(out, name + ".onnx")
        export(model, args, path, dynamo, names, dynamic_hw, opset)
        m = onnx.load(path)
        if external:
            onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location=name + ".onnx.data", size_threshold=256)
        onnx.checker.check_model(path)
        opsets = ",".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in m.opset_import)
        ops = sorted({n.op_type for n in m.graph.node})
        shapes = ";".join("x".join(str(d) for d in a.shape) for a in args)
        rows.append("\t".join([name + ".onnx", "dynamo" if dynamo else "torchscript", opsets, shapes, note,
                               " ".join(ops)]))
        print(f"{name}: {os.path.getsize(path)} bytes, {len(m.graph.node)} nodes, ops {ops}")

    add("espcn_x2", Espcn(), (torch.rand(1, 3, 32, 48),), False, (["frame"], ["upscaled"]), "super-resolution",
        fp16=True)
    add("unet_small", UNet(), (torch.rand(1, 3, 32, 32),), True, (["image"], ["logits"]),
        "segmentation, dynamic height/width", dynamic_hw=True, fp16=True)
    add("resnet_small", ResNetSmall(), (torch.rand(2, 3, 64, 64),), False, (["image"], ["logits"]), "classifier",
        fp16=True)
    add("mobilenetv3_small", MobileNetV3Small(), (torch.rand(1, 3, 64, 64),), True, (["image"], ["logits"]),
        "classifier, depthwise + SE + Hardswish", fp16=True)
    add("style_transfer", StyleTransfer(), (torch.rand(1, 3, 48, 48),), False, (["image"], ["styled"]),
        "style transfer, weights in an external data file", external=True, fp16=True)
    add("vit_tiny", VitBlockNet(), (torch.rand(1, 3, 32, 32),), True, (["image"], ["logits"]),
        "vision transformer", fp16=True)
    add("flow_warp", FlowWarp(), (torch.rand(1, 3, 24, 32), torch.randn(1, 2, 24, 32) * 2), True,
        (["frame", "flow"], ["warped"]), "optical-flow warp (GridSample)", opset=20)
    add("resnet_small_dynamo", ResNetSmall(), (torch.rand(1, 3, 64, 64),), True, (["image"], ["logits"]),
        "classifier, newer exporter")
    with open(os.path.join(out, "models.tsv"), "w") as f:
        f.write("# file\texporter\topsets\tinput shapes\twhat\tops  (written by tools/models/export_torch.py, torch "
                + torch.__version__ + ")\n")
        f.write("\n".join(rows) + "\n")
    try:
        import numpy as np
        import onnxruntime as ort
        for row in rows:
            file = row.split("\t")[0]
            s = ort.InferenceSession(os.path.join(out, file), providers=["CPUExecutionProvider"])
            feeds = {i.name: np.random.rand(*[d if isinstance(d, int) else 32 for d in i.shape]).astype(np.float32)
                     for i in s.get_inputs()}
            outs = s.run(None, feeds)
            print(f"ORT CPU {file}: {[o.shape for o in outs]}")
    except ImportError:
        print("onnxruntime not installed: the models were not run")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models")
