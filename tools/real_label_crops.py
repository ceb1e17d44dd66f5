"""Real grid labels cut from the shared Jacoubet sheets, for fine-tuning and measuring the
numeral reader (dev only; ``../shared/data/jacoubet-1836``, never copied into the repo).

The printed value of every line is known from the hand-placed crossings (``NNN-GT.points``:
the grid coordinate that stays constant along the line, printed without its sign). The
sheet goes through the reader's own steps (graticule detection, :func:`core.gridlabels.
words.margin_words`), and at each line end the word that is the label is taken: the one
centred on its line (within a third of its length) whose length fits the value's figures
(at least 0.45 of a text height per figure), near the line's outermost crossing (0.12
cell), and of those the one the given model reads the value in best (a weak model still
tells a label from a frame line or a word); its way up is the one the
way Jacoubet's engraver printed it (column labels upright on the north-up sheet, row labels
read from outside the frame: their top points out of the map). These rules of one atlas make
the ground truth of these three sheets only: the reader itself knows nothing of them.

Run: ``.venv/bin/python -m tools.real_label_crops MODEL OUT.npz`` (sheets 020, 021, 049).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
JACOUBET = ROOT.parent / "shared" / "data" / "jacoubet-1836"
#: Line ends whose picked word was checked by eye and is not the label.
REJECTS = Path(__file__).with_name("real_label_rejects.txt")
#: Of the words near a line end, the label is the one the model reads the value in best,
#: if at least this probable (else the line end gives no label).
MIN_P = 1e-4


def _points(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split(",") for line in path.read_text().splitlines()
            if line and not line.startswith(("#", "mapX"))]
    a = np.array([[float(v) for v in r[:4]] for r in rows])
    return a[:, 2:4] * [1, -1] - 0.5, a[:, 0:2]          # detection convention, grid


def sheet_crops(sheet: str, model: Path | None = None) -> list[dict]:
    """The labels of one sheet: ``image`` (the word's text upright, uint8 darkness),
    ``text`` (the printed value), ``family``, ``line``, ``end``."""
    import core.gridlabels.numerals as num
    from core.graticule import detect_on_sheet
    from core.graticule.result import index_shift
    from core.gridlabels.numerals import pair_probabilities
    from core.gridlabels.reader import _read
    from core.gridlabels.words import margin_words, sheet_gray

    if model is not None:
        num.MODEL_PATH = model
    path = JACOUBET / f"{sheet}-INPUT.jpg"
    pixel, grid = _points(JACOUBET / f"{sheet}-GT.points")
    g = detect_on_sheet(str(path), "compute")
    gray, reduce = sheet_gray(path, g)
    words = margin_words(gray, reduce, g)
    logp = _read(words)
    shift = index_shift(g)
    truth = {}
    for f in (0, 1):
        for k in set((g.index[:, f] + shift[f]).tolist()):
            on = g.points[(g.index[:, f] + shift[f]) == k]
            vals = [grid[int(np.argmin(np.hypot(*(pixel - q).T)))] for q in on
                    if np.hypot(*(pixel - q).T).min() < 0.2 * g.columns.spacing_px]
            if vals:
                v = np.array(vals)
                ax = int(np.argmin(v.std(axis=0)))
                truth[(f, k)] = str(round(abs(float(np.median(v[:, ax])))))
    fams = (g.columns, g.rows)
    # north and east on the sheet, from the hand-placed crossings (grid = A @ pixel + c)
    design = np.column_stack([pixel, np.ones(len(pixel))])
    a = np.linalg.lstsq(design, grid, rcond=None)[0][:2].T         # d grid / d pixel
    inv = np.linalg.inv(a)
    east, north = (inv[:, 0] / np.hypot(*inv[:, 0]), inv[:, 1] / np.hypot(*inv[:, 1]))
    centre = pixel.mean(axis=0)
    best: dict[tuple[int, int, int], tuple[float, dict]] = {}
    for i, w in enumerate(words):
        text = truth.get((w.family, w.line))
        if text is None:
            continue
        fam = fams[w.family]
        t = np.radians(fam.normal_angle_deg)
        cx, cy = (w.box[0] + w.box[2]) / 2, (w.box[1] + w.box[3]) / 2
        across = abs(cx * np.cos(t) + cy * np.sin(t) - fam.line_position(w.line))
        length = max(w.box[2] - w.box[0], w.box[3] - w.box[1])
        if across > length / 3 or length < 0.45 * len(text) * w.height:
            continue
        centre_w = np.array([cx, cy])
        # the label stands by the frame: near the line's outermost crossing at this end
        on = g.points[(g.index[:, w.family] + shift[w.family]) == w.line]
        end_point = on[int(np.argmax((on - centre) @ (centre_w - centre)))]
        if np.hypot(*(centre_w - end_point)) > 0.12 * fam.spacing_px:
            continue
        is_northing = abs(float(north @ _normal(fam))) > 0.7       # lines across north
        up = north if not is_northing else east * np.sign((centre_w - centre) @ east)
        o = int(np.argmax([np.dot(u, up) for u in w.ups]))
        p = pair_probabilities(logp[i], np.array([o]), [text])[0]
        key = (w.family, w.line, w.end)
        if p >= MIN_P and (key not in best or p > best[key][0]):
            best[key] = (float(p), {"image": w.images[o], "text": text, "family": w.family,
                                    "line": w.line, "end": w.end, "p": float(p)})
    return [v for _, v in best.values()]


def _normal(fam) -> np.ndarray:
    t = np.radians(fam.normal_angle_deg)
    return np.array([np.cos(t), np.sin(t)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--sheets", default="020,021,049")
    args = ap.parse_args()
    images, texts, sheets = [], [], []
    ends = []
    rejects = {tuple(line.split()) for line in REJECTS.read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    for sheet in args.sheets.split(","):
        crops = [c for c in sheet_crops(sheet, args.model)
                 if (sheet, str(c["family"]), str(c["line"]), str(c["end"])) not in rejects]
        print(f"{sheet}: {len(crops)} labels")
        for c in crops:
            images.append(c["image"])
            texts.append(c["text"])
            sheets.append(sheet)
            ends.append((c["family"], c["line"], c["end"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, images=np.array(images, dtype=object), texts=np.array(texts),
                        sheets=np.array(sheets), ends=np.array(ends))


if __name__ == "__main__":
    main()
