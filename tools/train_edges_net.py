"""Train the small edge network of the shapes level on the LEFT half of the real crop (dev only).

Run from the repository root (needs requirements-train.txt: torch, onnx)::

    .venv/bin/python -m tools.train_edges_net [--minutes 16] [--steps 6000] [--synth 6]
    [--threads 2]

(the base model: ``--minutes 90 --steps 9000 --synth 6 --threads 1``, as ``make
train-edges-net-base`` runs it; see models/EDGE_MODEL.md). ``--init MODEL.onnx --whole-left``
fine-tunes an exported model on the whole left half, the validation strip included, keeping
its threshold; the committed model is the base fine-tuned so with ``--lr 5e-4 --steps 4000
--minutes 40 --threads 1 --grid-lines 0.5 --thick-outlines 0.25 --outline-gaps 0.3`` (``make
train-edges-net``): half the patches crossed by light straight lines
(:func:`draw_grid_lines`), so that a graticule line does not open the outline it crosses; a
quarter with their outlines inked thick (:func:`draw_thick_outlines`), so that a heavy
outline is one edge on its centre line; 30 % with short gaps in them
(:func:`break_outlines`), so that an ink dropout does not open a shape.

Protocol of issue 19: ``../shared/data/paris-1925-sheet1-crop`` is split at x = 4500; only
the columns left of ``SPLIT - GAP`` (4436) are read for training and for the choice of the
threshold; the right half (x >= 4500) is the test set, scored by
``benchmarks/bench_real_shapes.py``. Inside the left half, columns ``[VAL_START, 4436)``
are an inner validation strip (never trained on: the training columns stop ``GAP`` px
before it) on which the edge threshold is chosen: the one giving the best closed-shapes
PQ (``core.blocks.evaluate``) among :data:`THRESHOLDS`.

The network (:class:`EdgeNet`) reads the full-resolution sheet, works at half resolution
(a stride-2 stem, then a 4-level U-Net, 8/16/24/32 channels) and gives, per 2 x 2 pixels,
the probability of a closed-shape edge: ``SHAPES-EDGE-GT.png`` dilated to 3 px and
max-pooled to half resolution. Loss: binary cross-entropy (edges weighted ``POS_WEIGHT``),
pixels more than 4 px outside the map mask ignored. Besides the crop, ``--synth`` generated
sheets (``core.synth``, run seed ``SYNTH_RUN_SEED``, disjoint from the evaluation sheets of
run seed 0) give edges around every closed shape (``SyntheticSheet.shapes_mask()``), drawn
for ``--synth-share`` of the patches. Fixed seeds (torch 0, NumPy 0), 2 threads; the
learning rate follows a cosine over ``max(step / --steps, elapsed / --minutes)``, so a run
stopped by its time budget is not bit-reproducible.

The model is exported to ONNX (sigmoid included) with its geometry file (``edge_net.json``,
with the chosen ``threshold``), checked against cv2.dnn, and the validation strip is
predicted with ``core.blocks`` itself (OpenCV DNN), as at run time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from benchmarks.bench_real_shapes import SPLIT  # noqa: E402
from core.atomic import write_text_atomic  # noqa: E402
from core.blocks import BlockSettings  # noqa: E402
from core.blocks.evaluate import closed_shapes_reference, shapes_quality  # noqa: E402
from core.blocks.net import EDGE_MODEL_PATH, edge_probability  # noqa: E402
from core.blocks.pipeline import edge_lines, shapes_from_lines  # noqa: E402
from core.imageio import read_image, read_mask  # noqa: E402
from core.synth import generate_sheet, run_difficulty, sheet_seed  # noqa: E402
from tools.train_blocks_net import (  # noqa: E402
    WithSigmoid,
    load_onnx_weights,
    tone_jitter,
)

DEFAULT_CROP = ROOT.parent / "shared" / "data" / "paris-1925-sheet1-crop"
GAP = 64                #: px kept between training columns and any column scored
VAL_START = 3700        #: inner validation strip of the left half: [VAL_START, SPLIT - GAP)
SYNTH_RUN_SEED = 103    #: run seed of the generated sheets (evaluation sheets: run seed 0)
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6)   #: edge probabilities tried on the validation strip
PATCH, BATCH, LEARNING_RATE, POS_WEIGHT = 384, 8, 3e-3, 4.0
GEOMETRY = {"input_reduce": 1, "output_stride": 2, "input_multiple": 16, "tile": 2048,
            "overlap": 96}


def conv(cin: int, cout: int, dilation: int = 1, stride: int = 1) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation,
                                   dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class EdgeNet(nn.Module):
    """Full-resolution input, half-resolution output: a stride-2 3x3 stem, then a 4-level
    U-Net (8/16/24/32 channels, dilated bottom at 1/16, transposed-convolution upsampling).
    Input ``(N, 3, H, W)`` RGB in [-0.5, 0.5], ``H`` and ``W`` multiples of 16; output
    ``(N, 1, H / 2, W / 2)`` edge logits."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv(3, 8, stride=2)
        self.enc1 = conv(8, 8)
        self.enc2 = nn.Sequential(conv(8, 16), conv(16, 16))
        self.enc3 = nn.Sequential(conv(16, 24), conv(24, 24))
        self.bottom = nn.Sequential(conv(24, 32), conv(32, 32, 2), conv(32, 32, 4))
        self.pool = nn.MaxPool2d(2)
        self.up3 = nn.ConvTranspose2d(32, 24, 2, stride=2)
        self.dec3 = conv(48, 24)
        self.up2 = nn.ConvTranspose2d(24, 16, 2, stride=2)
        self.dec2 = conv(32, 16)
        self.up1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.dec1 = conv(16, 8)
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(self.stem(x))
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        b = self.bottom(self.pool(e3))
        d3 = self.dec3(torch.cat([self.up3(b), e3], 1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], 1))
        return self.head(self.dec1(torch.cat([self.up1(d2), e1], 1)))


def half_targets(edges: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(target, weight)`` float32 at half resolution of full-resolution edges and map mask
    (bool): edges dilated to 3 px then max-pooled 2 x 2; weight 1 within 4 px of the map."""
    dil = cv2.dilate(edges.astype(np.uint8), np.ones((3, 3), np.uint8))
    valid = cv2.dilate(mask.astype(np.uint8), np.ones((9, 9), np.uint8))
    h, w = edges.shape[0] // 2, edges.shape[1] // 2

    def pool(a: np.ndarray) -> np.ndarray:
        return a[:2 * h, :2 * w].reshape(h, 2, w, 2).max(axis=(1, 3)).astype(np.float32)

    return pool(dil), pool(valid)


def crop_data(crop: Path, whole_left: bool = False) -> tuple[tuple, tuple]:
    """Training ``(rgb, target, weight, edges)`` (columns ``[0, VAL_START - GAP)``; with
    ``whole_left`` ``[0, SPLIT - GAP)``, the validation strip too) and validation
    ``(rgb, edges, mask)`` (columns ``[VAL_START, SPLIT - GAP)``) of the crop's left half.
    Nothing right of ``SPLIT - GAP`` is kept."""
    stop = SPLIT - GAP
    rgb = np.ascontiguousarray(read_image(crop / "INPUT.jpg")[:, :stop])
    mask = read_mask(crop / "INPUT-MASK.png")[:, :stop]
    edges = cv2.imread(str(crop / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE)[:, :stop] > 0
    train = slice(0, stop if whole_left else VAL_START - GAP)
    target, weight = half_targets(edges[:, train], mask[:, train])
    val = slice(VAL_START, stop)
    return ((np.ascontiguousarray(rgb[:, train]), target, weight,
             np.ascontiguousarray(edges[:, train])),
            (np.ascontiguousarray(rgb[:, val]), edges[:, val], mask[:, val]))


def synth_data(count: int, size: int) -> list[tuple]:
    """``(rgb, target, weight, edges)`` of ``count`` generated sheets (run seed
    ``SYNTH_RUN_SEED``): the edges are the pixels next to a closed shape but outside it."""
    train = {sheet_seed(SYNTH_RUN_SEED, k) for k in range(count)}
    if train & {sheet_seed(0, k) for k in range(64)}:
        raise SystemExit("generated training seeds overlap the evaluation sheets")
    out = []
    for k in range(count):
        sheet = generate_sheet(sheet_seed(SYNTH_RUN_SEED, k), size,
                               difficulty=run_difficulty(k), jpeg_roundtrip=True)
        shapes = sheet.shapes_mask().astype(np.uint8)
        edges = (cv2.dilate(shapes, np.ones((3, 3), np.uint8)) > 0) & (shapes == 0)
        edges &= sheet.map_mask
        out.append((sheet.image, *half_targets(edges, sheet.map_mask), edges))
    return out


def weighted_bce_step(model: nn.Module, optimiser: torch.optim.Optimizer, x: torch.Tensor,
                      y: torch.Tensor, w: torch.Tensor, pos_weight: torch.Tensor
                      ) -> torch.Tensor:
    """One optimiser step on the binary cross-entropy of the edge logits ``model(x)``
    against ``y`` (both ``(N, 1, H, W)``), weighted per pixel by ``w`` (0 = ignored) and
    ``pos_weight`` on edge pixels; returns the loss."""
    loss = nn.functional.binary_cross_entropy_with_logits(
        model(x), y, pos_weight=pos_weight, reduction="none")
    loss = (loss * w).sum() / w.sum().clamp(min=1.0)
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    return loss

def jitter(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Tone jitter (float32 RGB 0-255): contrast, brightness, tint, gamma, blur or noise."""
    return np.clip(tone_jitter(im, rng, contrast=(0.75, 1.2), shift=20, tint=0.08,
                               blur_sigma=0.9, noise=6, p_effect=0.25, gamma=(0.8, 1.25)),
                   0, 255)


def draw_grid_lines(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``im`` (float32 RGB 0-255, modified in place and returned) crossed by one or two
    thin straight lines at random angles, 1-2 px, anti-aliased, darkening the paper and
    the ink under them by 15-45 % with a random tint: graticule-like lines, which are not
    edges and must not open the outlines they cross (the target is left as it is)."""
    h, w = im.shape[:2]
    for _ in range(int(rng.integers(1, 3))):
        line = np.zeros((h, w), np.uint8)
        a = rng.uniform(0, np.pi)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        dx, dy = np.cos(a) * 2 * (h + w), np.sin(a) * 2 * (h + w)
        cv2.line(line, (int(cx - dx), int(cy - dy)), (int(cx + dx), int(cy + dy)), 255,
                 int(rng.integers(1, 3)), cv2.LINE_AA)
        dark = rng.uniform(0.15, 0.45) * rng.uniform(0.7, 1.0, 3).astype(np.float32)
        im *= 1.0 - (line.astype(np.float32) / 255.0)[..., None] * dark
    return im


def draw_thick_outlines(im: np.ndarray, edges: np.ndarray, rng: np.random.Generator
                        ) -> np.ndarray:
    """``im`` (float32 RGB 0-255, modified in place and returned) with its one-pixel
    reference ``edges`` (bool, same height and width) inked over as thick dark outlines,
    2-4 px wide, one dark colour at 75-100 % opacity, edges softened: a clean, heavily drawn
    map, whose outline is one edge on its centre line (the target is left as it is)."""
    k = int(rng.integers(2, 5))
    band = cv2.dilate(edges.astype(np.uint8), np.ones((k, k), np.uint8)).astype(np.float32)
    band = cv2.GaussianBlur(band, (0, 0), 0.5)[..., None] * rng.uniform(0.75, 1.0)
    ink = (rng.uniform(0, 80) + rng.uniform(-15, 15, 3)).astype(np.float32)
    im *= 1.0 - band
    im += band * np.clip(ink, 0, 255)
    return im


def break_outlines(im: np.ndarray, edges: np.ndarray, rng: np.random.Generator
                   ) -> np.ndarray:
    """``im`` (float32 RGB 0-255, modified in place and returned) with one to four short
    gaps, 6-14 px across, painted in the paper's colour (the patch's 85th percentile) over
    its outlines (``edges``, one pixel, bool): ink dropouts, which do not open a closed
    shape (the target is left as it is)."""
    ys, xs = np.nonzero(edges)
    if len(ys) == 0:
        return im
    gaps = np.zeros(edges.shape, np.uint8)
    for i in rng.integers(0, len(ys), int(rng.integers(1, 5))):
        cv2.circle(gaps, (int(xs[i]), int(ys[i])), int(rng.integers(3, 8)), 255, -1,
                   cv2.LINE_AA)
    g = (gaps.astype(np.float32) / 255.0)[..., None]
    paper = np.percentile(im.reshape(-1, 3), 85, axis=0).astype(np.float32)
    im *= 1.0 - g
    im += g * paper
    return im


class Drawings(NamedTuple):
    """Shares of the patches drawn over before the tone jitter (targets unchanged), in
    this order: ``thick_outlines`` (:func:`draw_thick_outlines`), ``outline_gaps``
    (:func:`break_outlines`), ``grid_lines`` (:func:`draw_grid_lines`, the lines last).
    A zero share draws no random number, so runs without it replay as before."""

    grid_lines: float = 0.0
    thick_outlines: float = 0.0
    outline_gaps: float = 0.0


NO_DRAWINGS = Drawings()


def sample(data: tuple, rng: np.random.Generator, drawings: Drawings = NO_DRAWINGS
           ) -> tuple | None:
    """One augmented ``(input CHW, target 1HW, weight 1HW)`` patch of ``data``, or None
    when it is mostly outside the map; drawn over as ``drawings`` says."""
    rgb, target, weight, edges = data
    p = PATCH // 2
    y0 = int(rng.integers(0, target.shape[0] - p + 1))
    x0 = int(rng.integers(0, target.shape[1] - p + 1))
    sl = (slice(y0, y0 + p), slice(x0, x0 + p))
    w = weight[sl]
    if w.mean() < 0.3:
        return None
    full = (slice(2 * y0, 2 * y0 + PATCH), slice(2 * x0, 2 * x0 + PATCH))
    im = rgb[full].astype(np.float32)
    d = drawings
    if d.thick_outlines > 0 and rng.random() < d.thick_outlines:
        im = draw_thick_outlines(im, edges[full], rng)
    if d.outline_gaps > 0 and rng.random() < d.outline_gaps:
        im = break_outlines(im, edges[full], rng)
    if d.grid_lines > 0 and rng.random() < d.grid_lines:
        im = draw_grid_lines(im, rng)
    im = jitter(im, rng)
    t = target[sl]
    k = int(rng.integers(4))
    im, t, w = np.rot90(im, k), np.rot90(t, k), np.rot90(w, k)
    if rng.random() < 0.5:
        im, t, w = im[:, ::-1], t[:, ::-1], w[:, ::-1]
    return np.moveaxis(im / 255.0 - 0.5, -1, 0), t[None], w[None]


def batch(real: tuple, synth: list, share: float, rng: np.random.Generator,
          drawings: Drawings = NO_DRAWINGS) -> tuple:
    """A batch of ``BATCH`` patches (torch tensors), each from a generated sheet with
    probability ``share``, else from the crop's training columns (``drawings``: see
    :func:`sample`)."""
    items: list[tuple] = []
    while len(items) < BATCH:
        data = synth[int(rng.integers(len(synth)))] if synth and rng.random() < share else real
        item = sample(data, rng, drawings)
        if item is not None:
            items.append(item)
    return tuple(torch.from_numpy(np.ascontiguousarray(np.stack(a), dtype=np.float32))
                 for a in zip(*items, strict=True))


def export(model: nn.Module, out: Path, geometry: dict, check_rgb: np.ndarray) -> float:
    """Write the ONNX model and its geometry file; the max difference cv2.dnn vs torch on a
    512 px crop of ``check_rgb``."""
    wrapped = WithSigmoid(model).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(wrapped, torch.zeros(1, 3, 256, 256), str(tmp), dynamo=False,
                      opset_version=13, input_names=["rgb"], output_names=["edge"],
                      dynamic_axes={"rgb": {2: "h", 3: "w"}, "edge": {2: "h", 3: "w"}})
    tmp.replace(out)
    write_text_atomic(out.with_suffix(".json"), json.dumps(geometry) + "\n")
    x = np.ascontiguousarray(np.moveaxis(check_rgb[:512, :512].astype(np.float32) / 255.0
                                         - 0.5, -1, 0)[None])
    net = cv2.dnn.readNetFromONNX(str(out))
    net.setInput(x)
    got = net.forward()[0, 0]
    with torch.no_grad():
        want = wrapped(torch.from_numpy(x))[0, 0].numpy()
    return float(np.abs(got - want).max())


def choose_threshold(val: tuple, out: Path) -> tuple[tuple[float, bool], dict]:
    """The threshold of :data:`THRESHOLDS`, and whether to close the gaps of the thinned
    edges (``BlockSettings.edge_close_gaps``), with the best closed-shapes PQ on the
    validation strip (predicted with ``core.blocks`` and the exported model, averaged over
    the default ``BlockSettings.edge_views``, as at run time); every score."""
    rgb, edges, mask = val
    prob = edge_probability(rgb, path=out, views=BlockSettings().edge_views)
    reference = closed_shapes_reference(edges.astype(np.uint8), mask)
    scores = {}
    for close in (False, True):
        s = BlockSettings.for_level("shapes", edge_close_gaps=close)
        for t in THRESHOLDS:
            shapes, _ = shapes_from_lines(edge_lines(prob, t, s), mask, s)
            r = shapes_quality(*reference, shapes > 0)
            scores[(t, close)] = {"pq": round(r.pq, 4), "sq": round(r.sq, 4),
                                  "rq": round(r.rq, 4), "matched": r.n_matched,
                                  "reference": r.n_ref, "predicted": r.n_pred}
            print(f"validation strip, threshold {t}, gaps closed {close}: PQ {r.pq:.3f} "
                  f"SQ {r.sq:.3f} RQ {r.rq:.3f} ({r.n_matched}/{r.n_ref}, {r.n_pred} "
                  "predicted)", flush=True)
    best = max(scores, key=lambda k: scores[k]["pq"])
    return best, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crop", type=Path, default=DEFAULT_CROP,
                    help="directory with INPUT.jpg, INPUT-MASK.png, SHAPES-EDGE-GT.png")
    ap.add_argument("--minutes", type=float, default=16.0, help="training time budget")
    ap.add_argument("--steps", type=int, default=6000, help="learning-rate schedule length")
    ap.add_argument("--synth", type=int, default=6, help="generated sheets (0: none)")
    ap.add_argument("--synth-size", type=int, default=2000, help="their size, px")
    ap.add_argument("--synth-share", type=float, default=0.25,
                    help="share of the patches drawn from generated sheets")
    ap.add_argument("--out", type=Path, default=EDGE_MODEL_PATH)
    ap.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    ap.add_argument("--init", type=Path, default=None,
                    help="start from this exported model (fine-tuning; its batch norms stay "
                         "as exported)")
    ap.add_argument("--lr", type=float, default=LEARNING_RATE,
                    help=f"peak learning rate (default {LEARNING_RATE})")
    ap.add_argument("--whole-left", action="store_true",
                    help="with --init: train on the validation strip too (columns 0-"
                         f"{SPLIT - GAP}); the threshold is then the --init model's, chosen "
                         "on that strip before")
    ap.add_argument("--grid-lines", type=float, default=0.0,
                    help="share of the patches crossed by light straight lines, target "
                         "unchanged (default 0: none)")
    ap.add_argument("--thick-outlines", type=float, default=0.0,
                    help="share of the patches whose outlines are inked 2-4 px thick, "
                         "target unchanged (default 0: none)")
    ap.add_argument("--outline-gaps", type=float, default=0.0,
                    help="share of the patches whose outlines get 1-4 short gaps, target "
                         "unchanged (default 0: none)")
    args = ap.parse_args()
    if args.whole_left and args.init is None:
        sys.exit("error: --whole-left needs --init (the model whose threshold was chosen on "
                 "the validation strip)")
    for name in ("INPUT.jpg", "INPUT-MASK.png", "SHAPES-EDGE-GT.png"):
        if not (args.crop / name).is_file():
            sys.exit(f"error: {args.crop / name} not found; give the real crop with --crop")
    drawings = Drawings(args.grid_lines, args.thick_outlines, args.outline_gaps)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    real, val = crop_data(args.crop, args.whole_left)
    synth = synth_data(args.synth, args.synth_size) if args.synth > 0 else []
    print(f"data: {time.perf_counter() - t0:.0f} s; crop training columns 0-"
          f"{SPLIT - GAP if args.whole_left else VAL_START - GAP}, validation "
          f"{'none' if args.whole_left else f'{VAL_START}-{SPLIT - GAP}'}; {len(synth)} "
          "generated sheets", flush=True)
    model = EdgeNet()
    if args.init is not None:
        load_onnx_weights(model, args.init)
        init_threshold = json.loads(args.init.with_suffix(".json").read_text())["threshold"]
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), args.lr, weight_decay=1e-4)
    pos_weight = torch.tensor(POS_WEIGHT)
    start, step, running = time.perf_counter(), 0, 0.0
    budget = args.minutes * 60
    while (progress := max(step / args.steps, (time.perf_counter() - start) / budget)) < 1:
        warm = min(1.0, (step + 1) / 200)
        for group in opt.param_groups:
            group["lr"] = args.lr * warm * (0.05 + 0.475 * (1 + np.cos(np.pi * progress)))
        x, y, w = batch(real, synth, args.synth_share, rng, drawings)
        loss = weighted_bce_step(model, opt, x, y, w, pos_weight)
        step += 1
        running += float(loss.detach())
        if step % 100 == 0:
            print(f"step {step}: loss {running / 100:.4f}  "
                  f"{(time.perf_counter() - start) / 60:.1f} min", flush=True)
            running = 0.0
    model.eval()
    geometry = dict(GEOMETRY, threshold=init_threshold if args.whole_left else 0.5)
    diff = export(model, args.out, geometry, real[0])
    print(f"trained {step} steps in {(time.perf_counter() - start) / 60:.1f} min; exported "
          f"{args.out} ({args.out.stat().st_size / 1e6:.2f} MB); cv2.dnn vs torch max "
          f"difference {diff:.2e}", flush=True)
    if args.whole_left:
        print(f"threshold {init_threshold} (the --init model's); the validation strip was "
              "trained on, so it is not scored", flush=True)
        return
    (threshold, close), scores = choose_threshold(val, args.out)
    geometry["threshold"] = threshold
    write_text_atomic(args.out.with_suffix(".json"), json.dumps(geometry) + "\n")
    print(f"threshold {threshold}, gaps closed {close} (validation strip PQ "
          f"{scores[(threshold, close)]['pq']:.3f}); wrote {args.out.with_suffix('.json')}",
          flush=True)


if __name__ == "__main__":
    main()
