"""Two-fold cross-validation on the real 1925 crop: closed shapes from a learned edge map
(dev only; an experiment, no model is committed from it: the shipped edge network of the
shapes level is trained on the crop's left half only, by ``tools/train_edges_net.py``).

Run from the repository root (needs requirements-train.txt: torch)::

    .venv/bin/python -m tools.crossval_real_edges [--minutes 27] [--crop DIR] [--out JSON]

A small full-resolution edge network (:class:`EdgeNet`) is trained on one half of the
crop (columns left of the middle, or right of it, 64 px kept apart from the other half)
to predict ``SHAPES-EDGE-GT.png`` dilated to 3 px (weighted binary cross-entropy, pixels
more than 4 px outside the map mask ignored), for ``--minutes`` per fold, the two folds
in two processes of one thread each. Each model predicts the half it did not see; the edge
probability above a threshold is thinned to one pixel (``core.blocks.thinning``, spurs
pruned as at the shapes level) and cut into closed shapes by the shapes level's own
regions step (:func:`core.blocks.shapes_from_lines`). Scores follow the real-crop
protocol (:mod:`core.blocks.evaluate`): per held-out half, with the classical line network
(``segment_sheet(level="shapes")``) on the same half, and over the whole crop from the two
held-out predictions side by side. Training is not bit-reproducible (thread scheduling);
expect a spread of about 0.01 in PQ between runs.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
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
from core.blocks import BlockSettings, segment_sheet, shapes_from_lines  # noqa: E402
from core.blocks.evaluate import closed_shapes_reference, shapes_quality  # noqa: E402
from core.blocks.net import NetGeometry, tiled_probability  # noqa: E402
from core.blocks.pipeline import edge_lines  # noqa: E402
from core.imageio import read_image, read_mask  # noqa: E402
from tools.train_blocks_net import batch, conv, to_input  # noqa: E402
from tools.train_edges_net import weighted_bce_step  # noqa: E402

DEFAULT_CROP = ROOT.parent / "shared" / "data" / "paris-1925-sheet1-crop"
DEFAULT_OUT = ROOT / "bench-output" / "crossval-real-edges.json"
GAP = 64                     #: px between the training half and the held-out half
THRESHOLDS = (0.15, 0.2, 0.3, 0.4, 0.5)   #: edge probabilities scored
PATCH, BATCH, LEARNING_RATE, POS_WEIGHT = 192, 8, 2e-3, 4.0
#: prediction tiles: full resolution, 1024 px with 64 px margins
TILING = NetGeometry(input_reduce=1, output_stride=1, input_multiple=8, tile=1024, overlap=64)


class EdgeNet(nn.Module):
    """A 4-level U-Net at full resolution (16/32/48/64 channels, dilated bottom at 1/8):
    input ``(N, 3, H, W)`` RGB in [-0.5, 0.5]; output ``(N, 1, H, W)`` edge logits."""

    def __init__(self) -> None:
        super().__init__()
        self.enc1 = conv(3, 16)
        self.enc2 = nn.Sequential(conv(16, 32), conv(32, 32))
        self.enc3 = nn.Sequential(conv(32, 48), conv(48, 48))
        self.bottom = nn.Sequential(conv(48, 64), conv(64, 64, 2), conv(64, 64, 4))
        self.dec3 = nn.Sequential(conv(64 + 48, 48), conv(48, 48))
        self.dec2 = nn.Sequential(conv(48 + 32, 32), conv(32, 32))
        self.dec1 = conv(32 + 16, 16)
        self.head = nn.Conv2d(16, 1, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def up(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
            return nn.functional.interpolate(t, size=like.shape[-2:], mode="bilinear",
                                             align_corners=False)

        a = self.enc1(x)
        b = self.enc2(self.pool(a))
        c = self.enc3(self.pool(b))
        d = self.bottom(self.pool(c))
        c = self.dec3(torch.cat([up(d, c), c], 1))
        b = self.dec2(torch.cat([up(c, b), b], 1))
        return self.head(self.dec1(torch.cat([up(b, a), a], 1)))


def fold_columns(width: int, fold: int) -> tuple[slice, slice]:
    """``(training columns, held-out columns)`` of ``fold`` (0: train left, test right)."""
    half = width // 2
    left, right = slice(0, half), slice(half, width)
    if fold == 0:
        return slice(0, half - GAP), right
    return slice(half + GAP, width), left


def predict_tiled(model: nn.Module, rgb: np.ndarray) -> np.ndarray:
    """Edge probability (float32, 0-1) of a whole RGB image, in overlapping tiles
    (:func:`core.blocks.net.tiled_probability`, 1024 px tiles, 64 px margins dropped)."""

    def run(tile: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(np.ascontiguousarray(to_input(tile)[None]))
        h, w = x.shape[-2:]
        x = nn.functional.pad(x, (0, -w % 8, 0, -h % 8), mode="replicate")
        return torch.sigmoid(model(x))[0, 0, :h, :w].numpy()

    with torch.no_grad():
        return tiled_probability(run, TILING, rgb)


def train_fold(crop: Path, fold: int, minutes: float) -> tuple[np.ndarray, int]:
    """Train on ``fold``'s training half; ``(held-out half's edge probability uint8 0-255,
    steps)``."""
    torch.set_num_threads(1)
    torch.manual_seed(fold)
    rng = np.random.default_rng(fold)
    rgb = read_image(crop / "INPUT.jpg")
    mask = read_mask(crop / "INPUT-MASK.png", rgb.shape[:2])
    edges = cv2.imread(str(crop / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE) > 0
    target = cv2.dilate(edges.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
    valid = cv2.dilate(mask.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(np.float32)
    train, test = fold_columns(rgb.shape[1], fold)
    data = [(rgb[:, train], target[:, train], valid[:, train])]
    model = EdgeNet()
    optimiser = torch.optim.AdamW(model.parameters(), LEARNING_RATE, weight_decay=1e-4)
    pos_weight = torch.tensor(POS_WEIGHT)
    start, steps = time.time(), 0
    while (elapsed := time.time() - start) < minutes * 60:
        for group in optimiser.param_groups:   # cosine decay to 10 % over the time budget
            group["lr"] = LEARNING_RATE * (0.1 + 0.45 * (1 + np.cos(np.pi * elapsed
                                                                     / (minutes * 60))))
        x, y, w = batch(data, rng, BATCH, PATCH)
        loss = weighted_bce_step(model, optimiser, x, y, w, pos_weight)
        steps += 1
        if steps % 200 == 0:
            print(f"fold {fold}: step {steps}, loss {loss.item():.4f}, {elapsed:.0f} s",
                  flush=True)
    model.eval()
    prob = predict_tiled(model, rgb[:, test])
    return np.round(prob * 255).astype(np.uint8), steps


def shapes_from_edge_probability(prob: np.ndarray, mask: np.ndarray, threshold: float,
                                 settings: BlockSettings | None = None) -> np.ndarray:
    """Closed shapes (bool) of an edge probability map (uint8 0-255): pixels above
    ``threshold`` (0-1), thinned to one pixel, spurs pruned, then the shapes level's
    regions step."""
    s = settings or BlockSettings.for_level("shapes")
    return shapes_from_lines(edge_lines(prob, threshold, s), mask, s)[0] > 0


def score(reference: tuple[np.ndarray, np.ndarray], prediction: np.ndarray) -> dict:
    """PQ, SQ, RQ and counts of a bool prediction against ``closed_shapes_reference``'s
    ``(labels, ignored)`` (the real-crop protocol)."""
    r = shapes_quality(*reference, prediction)
    return {"pq": round(r.pq, 4), "sq": round(r.sq, 4), "rq": round(r.rq, 4),
            "matched": r.n_matched, "reference": r.n_ref, "predicted": r.n_pred}


def format_row(name: str, q: dict) -> str:
    """One printed line of scores."""
    return (f"{name:<44} PQ {q['pq']:.3f}  SQ {q['sq']:.3f}  RQ {q['rq']:.3f}  "
            f"{q['matched']}/{q['reference']}, {q['predicted']} predicted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crop", type=Path, default=DEFAULT_CROP,
                        help="directory with INPUT.jpg, INPUT-MASK.png, SHAPES-EDGE-GT.png")
    parser.add_argument("--minutes", type=float, default=27.0, help="training time per fold")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON of the scores")
    args = parser.parse_args()
    for name in ("INPUT.jpg", "INPUT-MASK.png", "SHAPES-EDGE-GT.png"):
        if not (args.crop / name).is_file():
            sys.exit(f"error: {args.crop / name} not found; give the real crop with --crop")
    start = time.time()
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        runs = pool.starmap(train_fold, [(args.crop, fold, args.minutes) for fold in (0, 1)])
    print(f"trained 2 folds ({runs[0][1]} and {runs[1][1]} steps) in {time.time() - start:.0f} s")
    rgb = read_image(args.crop / "INPUT.jpg")
    mask = read_mask(args.crop / "INPUT-MASK.png", rgb.shape[:2])
    edges = cv2.imread(str(args.crop / "SHAPES-EDGE-GT.png"), cv2.IMREAD_GRAYSCALE)
    classical = segment_sheet(rgb, mask, level="shapes").shapes > 0
    del rgb
    whole_prob = np.zeros(mask.shape, np.uint8)
    results: dict = {"minutes_per_fold": args.minutes, "steps": [runs[0][1], runs[1][1]],
                     "folds": [], "whole_crop": {}}
    for fold, (prob, _) in enumerate(runs):
        test = fold_columns(mask.shape[1], fold)[1]
        whole_prob[:, test] = prob
        m = mask[:, test]
        reference = closed_shapes_reference(edges[:, test], m)
        entry = {"held_out_columns": [test.start, test.stop],
                 "line_network": score(reference, classical[:, test]), "edge_net": {}}
        print(format_row(f"fold {fold}, held-out half, line network", entry["line_network"]))
        for t in THRESHOLDS:
            q = score(reference, shapes_from_edge_probability(prob, m, t))
            entry["edge_net"][str(t)] = q
            print(format_row(f"fold {fold}, held-out half, edge net > {t}", q))
        results["folds"].append(entry)
    reference = closed_shapes_reference(edges, mask)
    results["whole_crop"]["line_network"] = q = score(reference, classical)
    print(format_row("whole crop, line network", q))
    for t in THRESHOLDS:
        q = score(reference, shapes_from_edge_probability(whole_prob, mask, t))
        results["whole_crop"][f"edge_net_{t}"] = q
        print(format_row(f"whole crop, held-out edge nets > {t}", q))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.out} ({time.time() - start:.0f} s in all)")


if __name__ == "__main__":
    main()
