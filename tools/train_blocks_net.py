"""Train the small block-interior network of ``core.blocks`` on ``core.synth`` sheets (dev only).

Run from the repository root (needs requirements-train.txt: torch, onnx)::

    .venv/bin/python -m tools.train_blocks_net [--sheets 32] [--steps 3000] [--minutes 30]

The committed model (models/MODEL.md, ``make train-blocks-net``) is the second model
fine-tuned with ``--init block_net_v2.onnx --lr 1e-3 --sheets 64 --steps 600 --wise 0.5`` (recipe
``random``); the second model is ``--recipe varied --sheets 48 --steps 2600 --stop-step
2160 --minutes 60`` (``unet5``); the first model was ``--arch unet3 --recipe plain
--steps 4500 --minutes 31``. The default recipe, ``random``, draws every training
sheet in a random style of :func:`core.synth.styles.random_style` (domain randomization);
no recipe ever draws the held-out style (``core.synth`` ``style="heldout"``) that
``benchmarks/bench_blocks.py`` validates on. ``--init MODEL.onnx`` fine-tunes an exported
model instead of starting from scratch. ``--target shapes`` trains the same network on
the interiors of every closed shape (``SyntheticSheet.shapes_mask()`` eroded by
``SHAPE_INSET`` px): an experiment reported in docs/maparea-blocks.md, no model committed.

Sheets are generated in memory with ``core.synth.generate_sheet`` (seeds
``sheet_seed(RUN_SEED, k)``, difficulty ``run_difficulty(k)``, JPEG round trip), so the
training data never overlaps the evaluation sheets (run seed 0). The sheet is reduced
``--reduce`` times (INTER_AREA); the network predicts, per reduced pixel, the probability
that it lies on a building block (``NNN-BLOCKS-GT.png`` reduced the same way), trained
with binary cross-entropy on random patches (flips, quarter turns, tone jitter), pixels
outside the map area ignored. The model is exported to ONNX (sigmoid included) for
``cv2.dnn`` and checked against torch on a held-out sheet.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from core.atomic import write_text_atomic  # noqa: E402
from core.synth import generate_sheet, run_difficulty, sheet_seed  # noqa: E402
from core.synth.params import is_heldout  # noqa: E402
from core.synth.styles import random_style  # noqa: E402

RUN_SEED = 101          #: run seed of the training sheets (evaluation sheets use run seed 0)
EVAL_RUN_SEED = 0
DEFAULT_OUT = ROOT / "core" / "blocks" / "models" / "block_net.onnx"
SHAPES_OUT = ROOT / "core" / "blocks" / "models" / "shape_net.onnx"
SHAPE_INSET = 3   #: --target shapes: shape interiors eroded by this (px), so that neighbours
                  #: stay apart on the coarse output grid


def conv(cin: int, cout: int, dilation: int = 1) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=dilation, dilation=dilation,
                                   bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class BlockNet(nn.Module):
    """A 3-level U-Net (8/16/32 channels) with a dilated bottom at 1/8: input ``(N, 3, H, W)``
    RGB scaled to [-0.5, 0.5], ``H`` and ``W`` multiples of 8; output ``(N, 1, H, W)``
    block-interior logits."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        w1, w2, w3 = width, 2 * width, 4 * width
        self.enc1 = nn.Sequential(conv(3, w1), conv(w1, w1))
        self.enc2 = nn.Sequential(conv(w1, w2), conv(w2, w2))
        self.enc3 = nn.Sequential(conv(w2, w3), conv(w3, w3))
        self.bottom = nn.Sequential(conv(w3, w3), conv(w3, w3, 2), conv(w3, w3, 4))
        self.pool = nn.MaxPool2d(2)
        self.up3 = nn.ConvTranspose2d(w3, w3, 2, stride=2)
        self.dec3 = conv(2 * w3, w3)
        self.up2 = nn.ConvTranspose2d(w3, w2, 2, stride=2)
        self.dec2 = conv(2 * w2, w2)
        self.up1 = nn.ConvTranspose2d(w2, w1, 2, stride=2)
        self.dec1 = conv(2 * w1, w1)
        self.head = nn.Conv2d(w1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        b = self.bottom(self.pool(e3))
        d3 = self.dec3(torch.cat([self.up3(b), e3], 1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


class BlockNet2(nn.Module):
    """Input at 1/2, output at 1/4: a 3x3 stem at 1/2 and a stride-2 convolution (thin
    outlines are still visible at 1/2), then a 4-level U-Net (8/16/32/32 channels) with a
    dilated bottom at 1/64 of the sheet (dilations 1, 2, 4; receptive field about 1100 sheet
    px). Input ``(N, 3, H, W)`` RGB in [-0.5, 0.5], ``H`` and ``W`` multiples of 32; output
    ``(N, 1, H / 2, W / 2)`` block-interior logits."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        w1, w2, w3 = width, 2 * width, 4 * width
        self.stem = conv(3, w1)
        self.down = nn.Sequential(nn.Conv2d(w1, w1, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(w1), nn.ReLU(inplace=True))
        self.enc1 = conv(w1, w1)
        self.enc2 = nn.Sequential(conv(w1, w2), conv(w2, w2))
        self.enc3 = nn.Sequential(conv(w2, w3), conv(w3, w3))
        self.enc4 = nn.Sequential(conv(w3, w3), conv(w3, w3))
        self.bottom = nn.Sequential(conv(w3, w3), conv(w3, w3, 2), conv(w3, w3, 4))
        self.pool = nn.MaxPool2d(2)
        self.up4 = nn.ConvTranspose2d(w3, w3, 2, stride=2)
        self.dec4 = conv(2 * w3, w3)
        self.up3 = nn.ConvTranspose2d(w3, w3, 2, stride=2)
        self.dec3 = conv(2 * w3, w3)
        self.up2 = nn.ConvTranspose2d(w3, w2, 2, stride=2)
        self.dec2 = conv(2 * w2, w2)
        self.up1 = nn.ConvTranspose2d(w2, w1, 2, stride=2)
        self.dec1 = conv(2 * w1, w1)
        self.head = nn.Conv2d(w1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(self.down(self.stem(x)))
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        e4 = self.enc4(self.pool(e3))
        b = self.bottom(self.pool(e4))
        d4 = self.dec4(torch.cat([self.up4(b), e4], 1))
        d3 = self.dec3(torch.cat([self.up3(d4), e3], 1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


#: architecture name -> (class, input multiple, output stride relative to the input,
#: tile and overlap of core.blocks.net in input pixels: the overlap covers most of the
#: receptive field)
ARCHS = {"unet3": (BlockNet, 8, 1, 512, 48), "unet5": (BlockNet2, 32, 2, 1536, 128)}


class WithSigmoid(nn.Module):
    """The exported model: probabilities instead of logits."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net(x))


def sheet_style(seed: int, scale_range: tuple[float, float] | None = None) -> dict:
    """Drawing-style overrides of the ``varied`` recipe, drawn from the sheet seed: outlines
    1-3 px (1 px is the real atlas's look), from empty to densely subdivided blocks, more or
    less hatching, gardens, faded or lighter ink, sparse to dense lettering; with
    ``scale_range``, a drawing scale (street widths, block sizes) drawn from it."""
    rng = np.random.default_rng([seed, 7])
    ink = float(rng.uniform(25.0, 90.0))
    style = {"outline_width_px": int(rng.choice([1, 2, 3], p=[0.4, 0.4, 0.2])),
             "subdivision_fraction": float(rng.uniform(0.0, 0.6)),
             "hatch_fraction": float(rng.uniform(0.1, 0.6)),
             "garden_fraction": float(rng.uniform(0.0, 0.1)),
             "ink_fade": float(rng.uniform(0.0, 0.4)),
             "text_density": float(rng.uniform(0.4, 1.6)),
             "ink_rgb": (ink + 8.0, ink + 4.0, ink - 6.0)}
    if scale_range is not None:
        style["content_scale"] = float(rng.uniform(*scale_range))
    return style


def stroke_variant(image: np.ndarray, style: dict, seed: int) -> np.ndarray | None:
    """A full-resolution copy with thinner (2x2 dilation of the image: dark strokes lose a
    pixel) or bolder (2x2 erosion) strokes, or None; drawn from the sheet seed."""
    u = np.random.default_rng([seed, 11]).random()
    kernel = np.ones((2, 2), np.uint8)
    if u < 0.4 and style["outline_width_px"] >= 2:
        return cv2.dilate(image, kernel)
    if u > 0.8:
        return cv2.erode(image, kernel)
    return None


def training_style(recipe: str, seed: int,
                   scale_range: tuple[float, float] | None) -> dict:
    """The drawing-style overrides of one training sheet; never the held-out style that
    ``benchmarks/bench_blocks.py`` validates on (refused here whatever the recipe)."""
    style = ({} if recipe == "plain" else sheet_style(seed, scale_range)
             if recipe == "varied" else random_style(seed, scale_range))
    if is_heldout(style):
        raise SystemExit("refusing to train on a held-out style (core.synth STYLES "
                         "'heldout*'): they are kept for validation")
    return style


def make_data(count: int, size: int, reduce: int, run_seed: int, first: int = 0,
              recipe: str = "plain", out_stride: int = 1,
              scale_range: tuple[float, float] | None = None,
              target_kind: str = "blocks") -> list[tuple]:
    """``(rgb uint8 at 1/reduce, target float32 0..1, valid bool)`` (target and valid at
    1/(reduce * out_stride)) of ``count`` sheets; the ``varied`` and ``random`` recipes
    draw a drawing style per sheet (``random``: :func:`core.synth.styles.random_style`,
    domain randomization) and add a thinner or bolder copy of some sheets."""
    data = []
    for k in range(first, first + count):
        seed = sheet_seed(run_seed, k)
        style = training_style(recipe, seed, scale_range)
        sheet = generate_sheet(seed, size, difficulty=run_difficulty(k), jpeg_roundtrip=True,
                               **style)
        assert sheet.params["style"] == "default" and not is_heldout(sheet.params)
        images = [sheet.image]
        if recipe != "plain":
            variant = stroke_variant(sheet.image, style, seed)
            if variant is not None:
                images.append(variant)
        small = (size // reduce, size // reduce)
        tiny = (size // (reduce * out_stride), size // (reduce * out_stride))
        if target_kind == "shapes":
            inset = cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                              (2 * SHAPE_INSET + 1, 2 * SHAPE_INSET + 1))
            truth = cv2.erode(sheet.shapes_mask().astype(np.uint8), inset)
        else:
            truth = sheet.blocks_mask
        target = cv2.resize(truth.astype(np.float32), tiny,
                            interpolation=cv2.INTER_AREA)
        valid = cv2.resize(sheet.map_mask.astype(np.float32), tiny,
                           interpolation=cv2.INTER_AREA) > 0.5
        for image in images:
            rgb = cv2.resize(image, small, interpolation=cv2.INTER_AREA)
            data.append((rgb, target, valid))
        extra = (f", outline {style['outline_width_px']} px, subdivision "
                 f"{style['subdivision_fraction']:.2f}, water "
                 f"{style.get('water_style', 'banks')}, font "
                 f"{style.get('lettering_font', 'liberation')}, JPEG "
                 f"{sheet.params['jpeg_quality']}, scale {sheet.params['content_scale']:.2f}, "
                 f"{len(images)} image(s)") if style else ""
        print(f"sheet {k}: seed {seed}, difficulty {run_difficulty(k):.2f}, "
              f"{target[valid].mean():.2f} block{extra}", flush=True)
    return data


def check_disjoint(run_seed: int, count: int) -> None:
    """Refuse training sheets that share a seed with the evaluation sheets (run seed 0)."""
    train = {sheet_seed(run_seed, k) for k in range(count + 2)}
    evaluation = {sheet_seed(EVAL_RUN_SEED, k) for k in range(64)}
    if run_seed == EVAL_RUN_SEED or train & evaluation:
        raise SystemExit("training seeds overlap the evaluation sheets; pick another run seed")


def load_onnx_weights(model: nn.Module, path: Path) -> None:
    """Start ``model`` from an exported model of the same architecture (``--init``).

    The export folded each batch norm into its convolution, so each convolution takes the
    folded weights and its batch norm becomes the identity plus the folded bias (mean 0,
    variance 1 - eps, scale 1); those batch norms keep these statistics during the
    fine-tuning (``model.frozen_bn``, see :func:`train_mode`), so the start is exactly the
    exported model. Convolutions are paired with the ONNX Conv/ConvTranspose nodes in
    forward order (shapes checked)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    nodes = [[inits[x] for x in n.input if x in inits] for n in graph.node
             if n.op_type in ("Conv", "ConvTranspose")]
    order: list[nn.Module] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod))
             for m in model.modules() if isinstance(m, nn.Conv2d | nn.ConvTranspose2d)]
    with torch.no_grad():
        model.eval()(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    norm_after = {}
    for m in model.modules():
        if isinstance(m, nn.Sequential):
            for a, b in zip(list(m)[:-1], list(m)[1:], strict=True):
                if isinstance(b, nn.BatchNorm2d):
                    norm_after[a] = b
    if len(order) != len(nodes):
        raise SystemExit(f"--init {path}: {len(nodes)} convolutions, the model has "
                         f"{len(order)}")
    with torch.no_grad():
        for conv_, (weight, bias) in zip(order, nodes, strict=True):
            if tuple(conv_.weight.shape) != weight.shape:
                raise SystemExit(f"--init {path}: another architecture ({weight.shape} "
                                 f"for {tuple(conv_.weight.shape)})")
            conv_.weight.copy_(torch.from_numpy(np.array(weight)))
            bn = norm_after.get(conv_)
            if bn is None:
                conv_.bias.copy_(torch.from_numpy(np.array(bias)))
            else:
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(np.array(bias)))
    model.frozen_bn = True
    train_mode(model)


def interpolate_weights(model: nn.Module, initial: dict, alpha: float) -> None:
    """``model``'s floating-point weights become ``alpha`` x its own + (1 - ``alpha``) x
    ``initial`` (a state dict of the same model: weight-space ensembling, WiSE-FT)."""
    state = model.state_dict()
    with torch.no_grad():
        for k, v in state.items():
            if v.is_floating_point():
                v.copy_(alpha * v + (1.0 - alpha) * initial[k])


def train_mode(model: nn.Module) -> None:
    """Training mode; batch norms stay in inference mode when ``model.frozen_bn``."""
    model.train()
    if getattr(model, "frozen_bn", False):
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()


def to_input(rgb: np.ndarray) -> np.ndarray:
    """``(..., H, W, 3) uint8`` -> ``(..., 3, H, W) float32`` in [-0.5, 0.5] (as in core.blocks)."""
    return np.moveaxis(rgb.astype(np.float32) / 255.0 - 0.5, -1, -3)


def tone_jitter(im: np.ndarray, rng: np.random.Generator, *, contrast: tuple[float, float],
                shift: float, tint: float, blur_sigma: float, noise: float,
                p_effect: float = 0.3, gamma: tuple[float, float] | None = None,
                p_grey: float = 0.0) -> np.ndarray:
    """Tone jitter of float32 RGB 0-255: grey with probability ``p_grey``, a ``gamma``
    range, contrast (``contrast`` range) and brightness (+-``shift``), a per-channel tint
    (+-``tint``), then each with probability ``p_effect`` a 3x3 blur (sigma 0.3 to
    ``blur_sigma``) and Gaussian noise (sigma 2 to ``noise``). Not clipped."""
    if p_grey and rng.random() < p_grey:
        im = np.repeat(im.mean(axis=2, keepdims=True), 3, axis=2)
    if gamma is not None:
        im = 255.0 * (np.clip(im, 0, 255) / 255.0) ** rng.uniform(*gamma)
    im = (im - 128) * rng.uniform(*contrast) + 128 + rng.uniform(-shift, shift)
    im = im * rng.uniform(1 - tint, 1 + tint, size=3)
    if rng.random() < p_effect:
        im = cv2.GaussianBlur(im, (3, 3), rng.uniform(0.3, blur_sigma))
    if rng.random() < p_effect:
        im = im + rng.normal(0, rng.uniform(2, noise), im.shape)
    return im


def jitter_plain(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Tone jitter of the ``plain`` recipe: contrast, brightness, per-channel tint, blur or
    noise."""
    return tone_jitter(im, rng, contrast=(0.75, 1.25), shift=25, tint=0.1, blur_sigma=1.0,
                       noise=8)


def jitter_varied(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Tone jitter of the ``varied`` recipe: the plain one with a wider contrast range (faint
    scans), gamma, grey (other paper colours) and stronger blur."""
    return tone_jitter(im, rng, contrast=(0.55, 1.25), shift=25, tint=0.1, blur_sigma=1.2,
                       noise=8, gamma=(0.7, 1.4), p_grey=0.3)


def batch(data: list, rng: np.random.Generator, n: int, patch: int, recipe: str = "plain",
          out_stride: int = 1, edge_weight: float = 0.0) -> tuple:
    """A random batch of augmented patches: inputs, targets, weights (torch tensors).
    ``patch`` is in output pixels; inputs are ``out_stride`` times larger. Street pixels
    within 2 output pixels of a block weigh ``1 + edge_weight`` (keeps narrow streets
    open between blocks)."""
    xs, ys, ws = [], [], []
    while len(xs) < n:
        rgb, target, valid = data[rng.integers(len(data))]
        y0 = rng.integers(0, target.shape[0] - patch + 1)
        x0 = rng.integers(0, target.shape[1] - patch + 1)
        sl = (slice(y0, y0 + patch), slice(x0, x0 + patch))
        v = valid[sl]
        if v.mean() < 0.3:
            continue
        f = out_stride
        im = rgb[f * y0:f * (y0 + patch), f * x0:f * (x0 + patch)].astype(np.float32)
        t = target[sl]
        im = jitter_plain(im, rng) if recipe == "plain" else jitter_varied(im, rng)
        im = np.clip(im, 0, 255)
        k = rng.integers(4)
        im, t, v = np.rot90(im, k), np.rot90(t, k), np.rot90(v, k)
        if rng.random() < 0.5:
            im, t, v = im[:, ::-1], t[:, ::-1], v[:, ::-1]
        xs.append(np.moveaxis(im / 255.0 - 0.5, -1, 0))
        ys.append(t[None])
        if edge_weight > 0:
            near = cv2.dilate((t > 0.5).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
            v = v * (1.0 + edge_weight * (near & (t < 0.5)))
        ws.append(v[None])
    as_t = [torch.from_numpy(np.ascontiguousarray(np.stack(a), dtype=np.float32))
            for a in (xs, ys, ws)]
    return tuple(as_t)


def full_prediction(model: nn.Module, rgb: np.ndarray, multiple: int = 8) -> np.ndarray:
    """Probabilities on a whole (reduced) sheet cropped to a multiple of ``multiple``."""
    h, w = (rgb.shape[0] // multiple) * multiple, (rgb.shape[1] // multiple) * multiple
    with torch.no_grad():
        x = torch.from_numpy(np.ascontiguousarray(to_input(rgb[:h, :w])[None]))
        return torch.sigmoid(model(x))[0, 0].numpy()


def evaluate(model: nn.Module, data: list, multiple: int = 8) -> tuple[float, float]:
    """Pixel accuracy and block IoU (threshold 0.5) over the map area of held-out sheets."""
    model.eval()
    right = total = inter = union = 0
    for rgb, target, valid in data:
        p = full_prediction(model, rgb, multiple) > 0.5
        h, w = p.shape
        t, v = target[:h, :w] > 0.5, valid[:h, :w]
        right += int(((p == t) & v).sum())
        total += int(v.sum())
        inter += int((p & t & v).sum())
        union += int(((p | t) & v).sum())
    train_mode(model)
    return right / max(total, 1), inter / max(union, 1)


def export(model: nn.Module, out: Path, check_rgb: np.ndarray, geometry: dict) -> None:
    """Write the ONNX model (sigmoid included) and its geometry (``out`` with suffix .json,
    read by ``core.blocks.net``), and check cv2.dnn against torch."""
    model.eval()
    wrapped = WithSigmoid(model).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 256, 256)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(wrapped, dummy, str(tmp), dynamo=False, opset_version=13,
                      input_names=["rgb"], output_names=["block"],
                      dynamic_axes={"rgb": {2: "h", 3: "w"}, "block": {2: "h", 3: "w"}})
    tmp.replace(out)
    write_text_atomic(out.with_suffix(".json"), json.dumps(geometry) + "\n")
    m = geometry["input_multiple"]
    crop = check_rgb[:min(512, check_rgb.shape[0] // m * m), :min(512, check_rgb.shape[1] // m * m)]
    x = np.ascontiguousarray(to_input(crop)[None])
    net = cv2.dnn.readNetFromONNX(str(out))
    net.setInput(x)
    got = net.forward()[0, 0]
    with torch.no_grad():
        want = wrapped(torch.from_numpy(x))[0, 0].numpy()
    print(f"exported {out} ({out.stat().st_size / 1e6:.2f} MB); cv2.dnn vs torch max "
          f"difference {np.abs(got - want).max():.2e}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=32, help="training sheets (default 32)")
    ap.add_argument("--val-sheets", type=int, default=3, help="held-out sheets (default 3)")
    ap.add_argument("--size", type=int, default=3000, help="sheet size, pixels (default 3000)")
    ap.add_argument("--arch", choices=sorted(ARCHS), default="unet5",
                    help="unet5 (default: input 1/2, output 1/4) or unet3 (the first model: "
                         "input and output 1/4)")
    ap.add_argument("--recipe", choices=("random", "varied", "plain"), default="random",
                    help="random (default: domain randomization, core.synth.styles."
                         "random_style per sheet, thinner/bolder copies, grey and gamma "
                         "jitter), varied (the second model's narrower styles) or plain (the "
                         "first model's data)")
    ap.add_argument("--reduce", type=int, default=None,
                    help="input reduction factor (default 2 for unet5, 4 for unet3)")
    ap.add_argument("--run-seed", type=int, default=RUN_SEED)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--minutes", type=float, default=30.0, help="stop training after this")
    ap.add_argument("--stop-step", type=int, default=None,
                    help="stop after this step (the learning-rate schedule still spans "
                         "--steps): reproduces a run that --minutes stopped early")
    ap.add_argument("--batch", type=int, default=None, help="default 8 (unet5), 12 (unet3)")
    ap.add_argument("--patch", type=int, default=None,
                    help="patch size, output pixels (default 192 for unet5, 160 for unet3)")
    ap.add_argument("--width", type=int, default=8, help="channels of the first level")
    ap.add_argument("--scale-range", type=float, nargs=2, default=None,
                    metavar=("LO", "HI"), help="varied and random recipes: draw each sheet's "
                    "content_scale from [LO, HI] (default 0.6 1.4 for random, 0.7 1.1 for "
                    "varied; 1 1: always 1)")
    ap.add_argument("--edge-weight", type=float, default=None,
                    help="extra loss weight of street pixels next to blocks (default 2 for "
                         "unet5, 0 for unet3)")
    ap.add_argument("--target", choices=("blocks", "shapes"), default="blocks",
                    help="blocks (default: block interiors) or shapes (the interiors of "
                         "every closed shape, eroded by SHAPE_INSET px)")
    ap.add_argument("--init", type=Path, default=None,
                    help="start from this exported model (same --arch) and fine-tune it, "
                         "its batch norms frozen (default: from scratch)")
    ap.add_argument("--wise", type=float, default=None, metavar="ALPHA",
                    help="with --init: export ALPHA x the fine-tuned weights + (1 - ALPHA) x "
                         "the initial ones (weight-space ensembling, WiSE-FT; exact since "
                         "the batch norms stay frozen)")
    ap.add_argument("--lr", type=float, default=3e-3,
                    help="peak learning rate of the one-cycle schedule (default 3e-3)")
    ap.add_argument("--out", type=Path, default=None,
                    help="default core/blocks/models/block_net.onnx (shape_net.onnx with "
                         "--target shapes)")
    args = ap.parse_args()
    net_class, multiple, out_stride, tile, overlap = ARCHS[args.arch]
    first_model = args.arch == "unet3"
    reduce = args.reduce or (4 if first_model else 2)
    n_batch = args.batch or (12 if first_model else 8)
    patch = args.patch or (160 if first_model else 192)
    edge_weight = args.edge_weight if args.edge_weight is not None else (
        0.0 if first_model else 2.0)
    scale_range = tuple(args.scale_range or ((0.6, 1.4) if args.recipe == "random"
                                             else (0.7, 1.1)))
    scale_range = None if scale_range == (1.0, 1.0) else scale_range

    check_disjoint(args.run_seed, args.sheets + args.val_sheets)
    torch.set_num_threads(2)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    data = make_data(args.sheets, args.size, reduce, args.run_seed, recipe=args.recipe,
                     out_stride=out_stride, scale_range=scale_range, target_kind=args.target)
    val = make_data(args.val_sheets, args.size, reduce, args.run_seed, first=args.sheets,
                    out_stride=out_stride, target_kind=args.target)
    print(f"data: {time.perf_counter() - t0:.0f} s, {len(data)} training images", flush=True)

    model = net_class(args.width)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)
    if args.wise is not None and (args.init is None or not 0.0 <= args.wise <= 1.0):
        raise SystemExit("--wise needs --init and a value between 0 and 1")
    if args.init is not None:
        load_onnx_weights(model, args.init)
        initial = {k: v.detach().clone() for k, v in model.state_dict().items()}
        acc, iou = evaluate(model, val, multiple)
        print(f"start ({args.init}): held-out pixel accuracy {acc:.4f}, block IoU {iou:.4f}",
              flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps,
                                                pct_start=0.1)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    t1 = time.perf_counter()
    running = 0.0
    for step in range(1, args.steps + 1):
        x, y, w = batch(data, rng, n_batch, patch, args.recipe, out_stride, edge_weight)
        loss = (loss_fn(model(x), y) * w).sum() / w.sum().clamp(min=1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running += float(loss.detach())
        minutes = (time.perf_counter() - t1) / 60
        if step % 100 == 0:
            print(f"step {step}: loss {running / 100:.4f}  {minutes:.1f} min", flush=True)
            running = 0.0
        if step % 1000 == 0 or minutes > args.minutes:
            acc, iou = evaluate(model, val, multiple)
            print(f"held-out: pixel accuracy {acc:.4f}, block IoU {iou:.4f}", flush=True)
        if minutes > args.minutes:
            print(f"time limit reached at step {step}", flush=True)
            break
        if step == args.stop_step:
            acc, iou = evaluate(model, val, multiple)
            print(f"stopped at step {step}; held-out: pixel accuracy {acc:.4f}, "
                  f"block IoU {iou:.4f}", flush=True)
            break
    print(f"training: {(time.perf_counter() - t1) / 60:.1f} min", flush=True)
    if args.wise is not None:
        interpolate_weights(model, initial, args.wise)
        acc, iou = evaluate(model, val, multiple)
        print(f"weights {args.wise} x fine-tuned + {1 - args.wise:g} x initial: held-out "
              f"pixel accuracy {acc:.4f}, block IoU {iou:.4f}", flush=True)
    out = args.out or (SHAPES_OUT if args.target == "shapes" else DEFAULT_OUT)
    export(model, out, val[0][0], {
        "input_reduce": reduce, "output_stride": out_stride, "input_multiple": multiple,
        "tile": tile, "overlap": overlap})


if __name__ == "__main__":
    main()
