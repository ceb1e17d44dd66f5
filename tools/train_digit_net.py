"""Train the small figure reader of grid labels (``core/georef/models/digit_net.onnx``; dev only).

Run from the repository root (needs requirements-train.txt: torch, onnx)::

    .venv/bin/python -m tools.train_digit_net [--steps 1000] [--batch 32]

Training data are rendered on the fly, never read from a sheet: strings of 2 to 7 figures
(grid-like multiples of a round step, or random; sometimes grouped by three with a space)
in the fonts of :mod:`core.synth` (Liberation, DejaVu serif and sans, regular, bold,
italic, condensed, and EB Garamond's old-style figures), 7 to 30 px high once cut, on the
ink darkness the label reader sees (:func:`core.georef.label_verify` cuts each word from
its strip, lines removed), with what surrounds labels by a frame: the grid line's tick
through the figures (kept, or removed with a gap left in the figures), frame lines above or
below, pieces of neighbouring words, specks, blur, faint ink, noise and JPEG. Each sample
goes through :func:`core.georef.digit_net.net_input`, as at run time. Loss: CTC.

Fixed seeds (NumPy 0 for training data, 1 for the validation set; torch 0), 2 threads, a
fixed number of steps. The model is exported to ONNX (logits ``(N, 11, 1, T)``), checked
against cv2.dnn, and its string accuracy on 2000 validation words is printed per font.
"""

from __future__ import annotations

import argparse
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
from core.georef.digit_net import (  # noqa: E402
    INPUT_H,
    INPUT_W,
    MODEL_PATH,
    STEP,
    best_path,
    net_input,
    read_logits,
)
from core.synth.text import Lettering  # noqa: E402

#: (font family, style) of core.synth.text rendered.
FONTS = (("liberation", "serif"), ("liberation", "serif-bold"), ("liberation", "serif-italic"),
         ("liberation", "sans"), ("dejavu", "serif"), ("dejavu", "serif-bold"),
         ("dejavu", "sans"), ("condensed", "serif"), ("sans", "serif-bold"),
         ("garamond", "serif"), ("garamond", "serif-bold"), ("garamond", "serif-italic"),
         ("liberation", "oldstyle"))
STEPS_OF_GRID = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def random_text(rng: np.random.Generator) -> str:
    """A string of figures as grid labels print them (sometimes grouped by three)."""
    if rng.random() < 0.6:
        step = int(rng.choice(STEPS_OF_GRID))
        top = 10 ** int(rng.integers(2, 8))
        m = int(rng.integers(max(1, -(-10 // step)), max(2, (top - 1) // step + 1)))
        text = str(m * step)
    else:
        n = int(rng.integers(2, 8))
        text = str(int(rng.integers(1, 10))) + "".join(str(int(d))
                                                       for d in rng.integers(0, 10, n - 1))
    if len(text) >= 4 and rng.random() < 0.15:
        head = len(text) % 3 or 3
        text = " ".join([text[:head]] + [text[i:i + 3] for i in range(head, len(text), 3)])
    return text


def _line(canvas: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], ink: int,
          thick: int) -> None:
    cv2.line(canvas, (round(p0[0]), round(p0[1])), (round(p1[0]), round(p1[1])), ink, thick,
             cv2.LINE_AA)


def sample(rng: np.random.Generator, letters: dict) -> tuple[np.ndarray, str, str]:
    """One training word: (net input, figures, font name)."""
    family, style = FONTS[int(rng.integers(len(FONTS)))]
    lettering = letters.setdefault(family, Lettering(family=family))
    text = random_text(rng)
    size = float(rng.uniform(24, 48))
    patch = lettering.render([(text, 1.0, 0.0)], style, size,
                             float(rng.uniform(0, 0.12)) if rng.random() < 0.3 else 0.0)
    ph, pw = patch.shape
    hc = ph / rng.uniform(0.35, 0.8)                    # the cut word's height
    wc = pw + rng.uniform(0.3, 1.2) * hc
    canvas = np.zeros((int(hc), int(wc)), np.uint8)
    x0 = int(rng.uniform(0.1, 0.9) * (wc - pw))
    y0 = int(np.clip(hc / 2 - ph / 2 + rng.uniform(-0.12, 0.12) * hc, 0, hc - ph))
    strength = rng.uniform(0.35, 1.0)
    canvas[y0:y0 + ph, x0:x0 + pw] = (patch * strength).astype(np.uint8)
    thick = max(1, round(size / 24 * rng.uniform(0.7, 2.5)))
    if rng.random() < 0.3:                     # a neighbouring word cut by the window
        other = lettering.render([(random_text(rng), 1.0, 0.0)], style, size)
        side = x0 - other.shape[1] - int(rng.uniform(0.3, 1.0) * ph) if rng.random() < 0.5 \
            else x0 + pw + int(rng.uniform(0.3, 1.0) * ph)
        a, b = max(0, side), min(canvas.shape[1], side + other.shape[1])
        h = min(other.shape[0], canvas.shape[0] - y0)
        if b > a and h > 0:
            canvas[y0:y0 + h, a:b] = np.maximum(canvas[y0:y0 + h, a:b],
                                                other[:h, a - side:b - side])
    if rng.random() < 0.6:                     # the grid line's tick through the figures
        x = x0 + pw / 2 + rng.uniform(-0.2, 0.2) * pw
        ya, yb = rng.uniform(-0.1, 0.5) * hc, rng.uniform(0.5, 1.1) * hc
        tilt = rng.uniform(-0.05, 0.05) * hc
        _line(canvas, (x - tilt, ya), (x + tilt, yb), int(rng.uniform(120, 255) * strength),
              thick)
        if rng.random() < 0.5:                 # removed with the long strokes: a gap
            _line(canvas, (x - tilt, ya), (x + tilt, yb), 0, thick + 2)
    for _ in range(int(rng.integers(0, 3))):   # frame lines above or below
        y = rng.choice([rng.uniform(0, y0), rng.uniform(y0 + ph, hc)])
        _line(canvas, (0, y), (wc, y + rng.uniform(-2, 2)), int(rng.uniform(100, 255)), thick)
    for _ in range(int(rng.poisson(1.0))):     # specks
        cv2.circle(canvas, (int(rng.uniform(0, wc)), int(rng.uniform(0, hc))),
                   int(rng.integers(1, 3)), int(rng.uniform(80, 255)), -1)
    sigma = rng.uniform(0.0, 1.5)
    if sigma > 0.3:
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    scale = rng.uniform(7, 30) / ph                     # the figures' height once cut, px
    small = cv2.resize(canvas, (max(4, round(wc * scale)), max(4, round(hc * scale))),
                       interpolation=cv2.INTER_AREA)
    noise = rng.normal(rng.uniform(0, 15), rng.uniform(0, 12), small.shape)
    small = np.clip(small + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", 255 - small, [cv2.IMWRITE_JPEG_QUALITY,
                                                     int(rng.integers(40, 95))])
        small = 255 - cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return net_input(small), text.replace(" ", ""), f"{family}/{style}"


def conv(cin: int, cout: int, k: tuple[int, int] = (3, 3)) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=(k[0] // 2, k[1] // 2)),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class DigitNet(nn.Module):
    """Input ``(N, 1, 32, 128)``; output logits ``(N, 11, 1, 32)``: one column step per 4
    input pixels."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            conv(1, 16), nn.MaxPool2d(2),                        # 16 x 64
            conv(16, 32), nn.MaxPool2d(2),                       # 8 x 32
            conv(32, 64), conv(64, 64), nn.MaxPool2d((2, 1)),    # 4 x 32
            nn.Conv2d(64, 96, (4, 1)), nn.BatchNorm2d(96), nn.ReLU(inplace=True),
            conv(96, 96, (1, 5)), nn.Conv2d(96, 11, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def batch(rng: np.random.Generator, letters: dict, n: int) -> tuple:
    items = [sample(rng, letters) for _ in range(n)]
    x = torch.from_numpy(np.stack([i[0] for i in items])[:, None])
    targets = [torch.tensor([1 + int(c) for c in i[1]]) for i in items]
    return x, targets, [i[1] for i in items], [i[2] for i in items]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    rng, letters = np.random.default_rng(0), {}
    model = DigitNet()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=args.steps)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    t_out = INPUT_W // STEP
    start = time.perf_counter()
    for step in range(args.steps):
        model.train()
        x, targets, _, _ = batch(rng, letters, args.batch)
        logp = model(x)[:, :, 0, :].permute(2, 0, 1).log_softmax(2)       # (T, N, C)
        loss = ctc(logp, torch.cat(targets), torch.full((len(targets),), t_out),
                   torch.tensor([len(t) for t in targets]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step} loss {loss.item():.3f} {time.perf_counter() - start:.0f} s",
                  flush=True)
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp.onnx")
    torch.onnx.export(model, torch.zeros(1, 1, INPUT_H, INPUT_W), str(tmp), dynamo=False,
                      opset_version=13, input_names=["ink"], output_names=["logits"],
                      dynamic_axes={"ink": {0: "n"}, "logits": {0: "n"}})
    tmp.replace(args.out)
    vrng = np.random.default_rng(1)
    x, _, texts, fonts = batch(vrng, letters, 2000)
    with torch.no_grad():
        want = model(x[:64]).numpy()
    net = cv2.dnn.readNetFromONNX(str(args.out))
    net.setInput(x[:64].numpy())
    print(f"cv2.dnn vs torch: max difference {np.abs(net.forward() - want).max():.2e}")
    logp = read_logits(x[:, 0].numpy(), args.out)
    right = np.array([best_path(lp) == t for lp, t in zip(logp, texts, strict=True)])
    print(f"validation: {right.mean():.3f} of {len(right)} words read exactly")
    for font in sorted(set(fonts)):
        sel = np.array([f == font for f in fonts])
        print(f"  {font:24s} {right[sel].mean():.3f} ({sel.sum()})")


if __name__ == "__main__":
    main()
