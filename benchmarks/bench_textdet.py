"""Speed of the text-detection metrics on generated data (targets in docs/metrics-textdet.md).

1000 images with 20 GT words each (seeded): words on text lines, some rotated, 10 % ``###``;
detections are jittered copies, splits, merges, misses and false positives with slightly
wrong transcriptions. The files are written as RRC text files to a temporary directory and
read back, then each metric runs alone on freshly loaded images (so each pays for the shared
polygon clipping). Targets: iou, deteval and tiou under 10 s each, cleval under 30 s.

Run: ``.venv/bin/python -m benchmarks.bench_textdet [--images N] [--words N] [--seed S]``
"""

from __future__ import annotations

import argparse
import math
import random
import string
import tempfile
import time
from pathlib import Path

from core.metrics.textdet import load_dataset
from core.metrics.textdet.evaluate import METRICS

TARGET_SECONDS = {"iou": 10.0, "deteval": 10.0, "tiou": 10.0, "cleval": 30.0}


def _quad(cx: float, cy: float, w: float, h: float, angle: float) -> list[int]:
    """Clockwise (y down) corners from the top-left of a w x h box rotated about its centre."""
    c, s = math.cos(angle), math.sin(angle)
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return [round(v) for dx, dy in corners for v in (cx + dx * c - dy * s, cy + dx * s + dy * c)]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits)
                   for _ in range(rng.randint(3, 10)))


def _typo(rng: random.Random, text: str) -> str:
    if rng.random() < 0.7 or len(text) < 2:
        return text
    i = rng.randrange(len(text))
    return text[:i] + rng.choice(string.ascii_lowercase) + text[i + 1:]


def _line(points: list[int], text: str) -> str:
    return ",".join(map(str, points)) + "," + text


def generate_image(rng: random.Random, words: int) -> tuple[list[str], list[str]]:
    """GT and detection lines of one image: ``words`` GT words on rows of a 2000 px page."""
    gt, det = [], []
    x, y, h = 20.0, 40.0, rng.uniform(20, 40)
    for _ in range(words):
        text = _word(rng)
        w = h * 0.6 * len(text)
        if x + w > 1980:
            x, y, h = 20.0, y + 2.5 * h, rng.uniform(20, 40)
        angle = math.radians(rng.uniform(-30, 30)) if rng.random() < 0.2 else 0.0
        cx, cy = x + w / 2, y + h / 2
        dont_care = rng.random() < 0.1
        gt.append(_line(_quad(cx, cy, w, h, angle), "###" if dont_care else text))
        kind = rng.random()
        if kind < 0.55:  # jittered copy
            det.append(_line(_quad(cx + rng.uniform(-3, 3), cy + rng.uniform(-2, 2),
                                   w * rng.uniform(0.9, 1.1), h * rng.uniform(0.9, 1.1), angle),
                             _typo(rng, text)))
        elif kind < 0.7:  # split in two
            half = len(text) // 2
            for part, shift in ((text[:half], -w / 4), (text[half:], w / 4)):
                det.append(_line(_quad(cx + shift * math.cos(angle), cy + shift * math.sin(angle),
                                       w / 2, h, angle), part))
        elif kind < 0.8:  # merged with the next word: a long box starting here
            det.append(_line(_quad(cx + w / 2, cy, 2 * w, h, angle), text + " " + _word(rng)))
        elif kind < 0.9:  # missed
            pass
        else:  # duplicate
            det += [_line(_quad(cx, cy, w, h, angle), text)] * 2
        if rng.random() < 0.1:  # false positive somewhere, sometimes tall
            fw, fh = (rng.uniform(20, 200), rng.uniform(15, 40))
            if rng.random() < 0.3:
                fw, fh = fh, fw * 2
            det.append(_line(_quad(rng.uniform(100, 1900), rng.uniform(100, 1900), fw, fh, 0.0),
                             _word(rng)))
        x += w + h
    rng.shuffle(det)
    return gt, det


def write_dataset(root: Path, images: int, words: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gt_dir, res_dir = root / "gt", root / "res"
    gt_dir.mkdir()
    res_dir.mkdir()
    for k in range(1, images + 1):
        gt, det = generate_image(rng, words)
        (gt_dir / f"gt_img_{k}.txt").write_text("\n".join(gt) + "\n", encoding="utf-8")
        (res_dir / f"res_img_{k}.txt").write_text("\n".join(det) + "\n", encoding="utf-8")
    return gt_dir, res_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--words", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2019)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gt_dir, res_dir = write_dataset(Path(tmp), args.images, args.words, args.seed)
        t0 = time.perf_counter()
        images = load_dataset(gt_dir, res_dir)
        load_s = time.perf_counter() - t0
        n_det = sum(len(im.det) for im in images)
        print(f"textdet benchmark: {len(images)} images, {args.words} GT words each,"
              f" {n_det} detections (seed {args.seed})")
        print(f"  read + parse: {load_s:.2f} s")
        all_ok = True
        for name, evaluate in METRICS.items():
            images = load_dataset(gt_dir, res_dir)  # fresh: no cached geometry
            t0 = time.perf_counter()
            result = evaluate(images)
            seconds = time.perf_counter() - t0
            ok = seconds < TARGET_SECONDS[name]
            all_ok &= ok
            hmean = result.det.hmean if name == "cleval" else result.rates.hmean
            print(f"  {name:<8} {seconds:6.2f} s (target < {TARGET_SECONDS[name]:.0f} s:"
                  f" {'met' if ok else 'NOT MET'}), hmean {hmean:.4f}")
        print("all targets met" if all_ok else "some targets NOT met")


if __name__ == "__main__":
    main()
