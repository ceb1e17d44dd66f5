"""Train the numeral reader of grid values (``core/gridlabels/models/numeral_net.onnx``; dev only).

Run from the repository root (needs requirements-train.txt: torch, onnx; and the training
fonts, ``make train-numeral-net`` installs both)::

    .venv/bin/python -m tools.train_numeral_net [--steps 4000] [--batch 48] [--out PATH]

Training words are rendered on the fly (:mod:`tools.numeral_samples`: grid values in every
Debian font but the held-out ones, lining and old-style figures, with ticks, frame lines,
neighbouring words, blur, noise and JPEG, cut as the reader cuts words on a sheet). Loss:
CTC over blank, 0-9 and the minus sign.

Fine-tuning (``--init MODEL.onnx --real LABELS.npz --real-sheets 020,049``): the model
given (converted with onnx2torch, its batch norms folded into the convolutions) goes on
learning from batches half rendered, half real labels of the sheets named
(:mod:`tools.real_label_crops`), each real label rescaled to 0.45-1.6 times its size,
shifted in its window, blurred, with noise and JPEG. Leaving a sheet out of
``--real-sheets`` keeps it for measuring. Fixed seeds (NumPy 0 for the
training words, 1 for the validation words; torch 0), a fixed number of steps, one-cycle
learning rate. The model is exported to ONNX (logits ``(N, 12, 1, T)``), checked against
cv2.dnn, and its exact-string accuracy on 3000 validation words is printed, overall, by
text height and for old-style figures.
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
from core.gridlabels.numerals import (  # noqa: E402
    INPUT_H,
    INPUT_W,
    MODEL_PATH,
    N_CLASSES,
    STEP,
    SYMBOLS,
    best_path,
    net_input,
    read_logits,
)
from tools.numeral_samples import TURNED, scene, turned_text  # noqa: E402


def conv(cin: int, cout: int, k: tuple[int, int] = (3, 3)) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=(k[0] // 2, k[1] // 2)),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class NumeralNet(nn.Module):
    """Input ``(N, 1, 32, 192)``; output logits ``(N, 12, 1, 48)``: one column step per 4
    input pixels, classes blank, 0-9, minus."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            conv(1, 16), nn.MaxPool2d(2),                        # 16 x 96
            conv(16, 32), nn.MaxPool2d(2),                       # 8 x 48
            conv(32, 48), conv(48, 48), nn.MaxPool2d((2, 1)),    # 4 x 48
            nn.Conv2d(48, 96, (4, 1)), nn.BatchNorm2d(96), nn.ReLU(inplace=True),
            conv(96, 96, (1, 5)), conv(96, 96, (1, 5)), nn.Dropout(0.1),
            nn.Conv2d(96, N_CLASSES, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


class Words(torch.utils.data.IterableDataset):
    """Endless batches of rendered words (seeded per worker), a share of them real labels
    (``real``: (images, texts))."""

    def __init__(self, seed: int, batch: int, real: tuple | None = None,
                 real_share: float = 0.0, real_turned: float = TURNED) -> None:
        self.seed, self.batch, self.real, self.real_share = seed, batch, real, real_share
        self.real_turned = real_turned

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, 0 if info is None else info.id])
        while True:
            yield make_batch(rng, self.batch, self.real, self.real_share, self.real_turned)


def real_sample(rng: np.random.Generator, real: tuple, turned: float = TURNED
                ) -> tuple[np.ndarray, str, str]:
    """One real label, changed as another scan would show it (``turned``: the share shown
    turned half a turn)."""
    images, texts = real
    i = int(rng.integers(len(images)))
    img = images[i].astype(np.float32)
    h, w = img.shape
    # the window shifted: up to a tenth of its height off each side
    cut = rng.integers(-int(0.1 * h) - 1, int(0.1 * h) + 2, 4)
    pad = np.zeros((h + 2 * h, w + 2 * h), np.float32)
    pad[h:2 * h, h:h + w] = img
    img = pad[h + cut[0]:2 * h - cut[1], h + cut[2]:h + w - cut[3]]
    k = float(np.exp(rng.uniform(np.log(0.45), np.log(1.6))))
    img = cv2.resize(img, (max(4, round(img.shape[1] * k)), max(4, round(img.shape[0] * k))),
                     interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    img = img * rng.uniform(0.5, 1.2) + rng.normal(0, rng.uniform(0, 15), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", 255 - img, [cv2.IMWRITE_JPEG_QUALITY,
                                                   int(rng.integers(30, 95))])
        img = 255 - cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    if rng.random() < turned:
        return net_input(np.ascontiguousarray(img[::-1, ::-1])), turned_text(str(texts[i])), \
            "real turned"
    return net_input(img), str(texts[i]), "real"


def make_batch(rng: np.random.Generator, n: int, real: tuple | None = None,
               real_share: float = 0.0, real_turned: float = TURNED) -> tuple:
    n_real = round(n * real_share) if real is not None else 0
    items = [real_sample(rng, real, real_turned) for _ in range(n_real)] + [scene(rng)
                                                               for _ in range(n - n_real)]
    x = torch.from_numpy(np.stack([i[0] for i in items])[:, None])
    targets = [torch.tensor([1 + SYMBOLS.index(c) for c in i[1]], dtype=torch.long)
               for i in items]
    return x, targets, [i[1] for i in items], [i[2] for i in items]


def export(model: nn.Module, path: Path) -> None:
    """Write ``model`` (in eval mode for the export) as ONNX at ``path`` (atomically)."""
    was = model.training
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(model, torch.zeros(1, 1, INPUT_H, INPUT_W), str(tmp), dynamo=False,
                      opset_version=13, input_names=["ink"], output_names=["logits"],
                      dynamic_axes={"ink": {0: "n"}, "logits": {0: "n"}})
    tmp.replace(path)
    model.train(was)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=48)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--snapshot-every", type=int, default=1000,
                    help="also export the model every N steps (OUT with .stepN)")
    ap.add_argument("--init", type=Path, help="fine-tune this ONNX model")
    ap.add_argument("--real", type=Path, help="real labels (tools.real_label_crops)")
    ap.add_argument("--real-sheets", default="", help="sheets of --real to learn from")
    ap.add_argument("--real-share", type=float, default=0.5)
    ap.add_argument("--real-turned", type=float, default=TURNED,
                    help="share of the real labels shown turned half a turn")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    real = None
    if args.real is not None:
        data = np.load(args.real, allow_pickle=True)
        keep = np.isin(data["sheets"], args.real_sheets.split(","))
        real = (list(data["images"][keep]), list(data["texts"][keep]))
        print(f"{int(keep.sum())} real labels of sheets {args.real_sheets}", flush=True)
    if args.init is not None:
        import onnx2torch

        model = onnx2torch.convert(str(args.init))
    else:
        model = NumeralNet()
    print(f"{sum(p.numel() for p in model.parameters())} parameters", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.steps,
                                                pct_start=0.15 if args.init is None
                                                else 0.05)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    t_out = INPUT_W // STEP
    loader = torch.utils.data.DataLoader(Words(0, args.batch, real, args.real_share,
                                               args.real_turned),
                                         batch_size=None,
                                         num_workers=args.workers, prefetch_factor=4
                                         if args.workers else None)
    start = time.perf_counter()
    losses = []
    for step, (x, targets, _, _) in enumerate(loader):
        if step >= args.steps:
            break
        model.train()
        logp = model(x)[:, :, 0, :].permute(2, 0, 1).log_softmax(2)       # (T, N, C)
        loss = ctc(logp, torch.cat(targets), torch.full((len(targets),), t_out),
                   torch.tensor([len(t) for t in targets]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        if step % 100 == 0 or step == args.steps - 1:
            print(f"step {step} loss {np.mean(losses[-100:]):.3f} "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
        if args.snapshot_every and step and step % args.snapshot_every == 0:
            export(model, args.out.with_suffix(f".step{step}.onnx"))
    export(model, args.out)
    model.eval()
    vrng = np.random.default_rng(1)
    x, _, texts, fonts = make_batch(vrng, 3000)
    with torch.no_grad():
        want = model(x[:64]).numpy()
    net = cv2.dnn.readNetFromONNX(str(args.out))
    net.setInput(x[:64].numpy())
    print(f"cv2.dnn vs torch: max difference {np.abs(net.forward() - want).max():.2e}")
    logp = read_logits(x[:, 0].numpy(), args.out)
    right = np.array([best_path(lp) == t for lp, t in zip(logp, texts, strict=True)])
    print(f"validation: {right.mean():.3f} of {len(right)} words read exactly")
    old = np.array(["+onum" in f or "Garamond" in f for f in fonts])
    print(f"  old-style figures {right[old].mean():.3f} ({old.sum()}), lining "
          f"{right[~old].mean():.3f} ({(~old).sum()})")


if __name__ == "__main__":
    main()
