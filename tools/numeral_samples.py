"""Training words for the numeral reader (``core/gridlabels/models/numeral_net.onnx``; dev only).

Each sample is a grid value as maps print them, rendered in one of the typefaces Debian
ships: every font file found under the font folders but those of the held-out label styles
(fonts-paratype and fonts-crosextra-caladea are never drawn, so the ``plain`` benchmark
styles measure typefaces nothing was trained on). Figures are lining or old-style (the
OpenType ``onum`` feature, or the font's own default, such as EB Garamond's); roman,
italic, bold, condensed or stretched, sometimes slanted, thin or thick. They are drawn on
paper with what surrounds grid labels on a sheet (the grid line's tick through the figures,
frame lines above or below, a neighbouring word, hatching, specks, broken strokes),
blurred, reduced to a text height of 4 to 48 px, with noise and JPEG. A share of the
words are shown turned half a turn (the reader looks at every word both ways up: turned,
``6008`` reads ``8009`` and ``2750`` reads nothing) or are map words of letters (read as
nothing), so that the way up that is wrong, or a street name, does not read as a grid value
with confidence. The word then goes
through the same steps as on a sheet: the long strokes removed
(:func:`core.gridlabels.strips.strip_ink`), the word cut from its box
(:func:`core.gridlabels.numerals.word_image`, the box jittered as the word finder misplaces
it) and made the network's input (:func:`~core.gridlabels.numerals.net_input`).

Pixel coordinates: x right, y down.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from core.gridlabels.numerals import net_input, word_image
from core.gridlabels.strips import strip_ink

FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))
#: Never trained on: the held-out label styles' fonts (core.synth.text.HELDOUT_LABEL_FONTS:
#: paratype, crosextra), math and symbol fonts.
EXCLUDED = ("paratype", "crosextra", "urw-base35", "/Type1/", "lyx", "lm-math", "Symbol",
            "D050000L")
STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000)
#: Shares of the samples shown turned half a turn, and of map words of letters.
TURNED = 0.15
LETTERS = 0.08
#: Map words (no figures) the reader must read as nothing.
MAP_WORDS = ("Rue", "PLAN", "Lycée", "Quai", "PARIS", "Place", "Boulevard", "Théâtre", "NORD",
             "SUD", "Église", "Marché", "Seine", "Pont", "de la", "Ecole", "FLEUVE", "Ambassade",
             "Poste", "Mairie", "Av.", "St", "Cour", "Impasse", "Hôtel", "Jardin", "Caserne",
             "Métre", "Échelle", "Feuille", "A", "B", "C", "D", "IV", "XII", "Bd", "Pl.")
#: How figures read turned half a turn (the others read as nothing).
_TURNED_FIGURE = {"0": "0", "1": "1", "6": "9", "8": "8", "9": "6"}


def turned_text(text: str) -> str:
    """What ``text`` reads turned half a turn: its figures that read as figures so
    (``6008`` -> ``8009``), else nothing."""
    if not text or any(c not in _TURNED_FIGURE for c in text) or text.endswith("0"):
        return ""                # a leading zero turned up: no printed value reads so
    return "".join(_TURNED_FIGURE[c] for c in reversed(text))


@dataclass(frozen=True)
class FontSpec:
    """A font file and the figures drawn with it (``onum``: old-style via OpenType)."""

    path: str
    onum: bool

    @property
    def name(self) -> str:
        return Path(self.path).stem + ("+onum" if self.onum else "")


def _digits_image(path: str, features: list[str] | None) -> np.ndarray | None:
    try:
        font = ImageFont.truetype(path, 40)
        im = Image.new("L", (520, 80), 0)
        ImageDraw.Draw(im).text((5, 5), "0123456789", fill=255, font=font, features=features)
    except (OSError, ValueError, KeyError):
        return None
    return np.asarray(im)


@functools.lru_cache(maxsize=1)
def training_fonts() -> tuple[FontSpec, ...]:
    """Every usable font file (figures that differ from each other), with an ``onum``
    variant where the font has old-style figures of its own."""
    specs = []
    for root in FONT_ROOTS:
        for path in sorted(root.rglob("*")):
            p = str(path)
            if path.suffix.lower() not in (".ttf", ".otf") or any(e in p for e in EXCLUDED):
                continue
            plain = _digits_image(p, None)
            if plain is None or plain.sum() == 0:
                continue
            font = ImageFont.truetype(p, 40)
            glyphs = []
            for d in "0123456789":
                im = Image.new("L", (60, 80), 0)
                ImageDraw.Draw(im).text((5, 5), d, fill=255, font=font)
                glyphs.append(np.asarray(im))
            if len({g.tobytes() for g in glyphs}) < 10:
                continue                      # missing figures drawn as one box
            specs.append(FontSpec(p, False))
            old = _digits_image(p, ["onum"])
            if old is not None and (old != plain).mean() > 0.01:
                specs.append(FontSpec(p, True))
    return tuple(specs)


def _family(spec: FontSpec) -> str:
    return Path(spec.path).parent.name


@functools.lru_cache(maxsize=1)
def _by_family() -> dict[str, list[FontSpec]]:
    out: dict[str, list[FontSpec]] = {}
    for s in training_fonts():
        out.setdefault(_family(s), []).append(s)
    return out


def pick_font(rng: np.random.Generator) -> FontSpec:
    """A font: a family (font folder) at random, then one of its files."""
    fams = _by_family()
    names = sorted(fams)
    fam = fams[names[int(rng.integers(len(names)))]]
    return fam[int(rng.integers(len(fam)))]


def grid_value_text(rng: np.random.Generator) -> tuple[str, str, str]:
    """(figures printed, what follows them, the target string): a multiple of a round
    step of 2 to 7 figures, maybe negative, grouped by three, with a unit, or with small
    raised trailing zeros (returned as the second part: drawn small and raised)."""
    if rng.random() < 0.7:
        step = int(rng.choice(STEPS))
        top = 10 ** int(rng.integers(2, 8))
        lo = max(1, -(-10 // step))
        hi = max(lo + 1, (top - 1) // step + 1)
        value = int(rng.integers(lo, hi)) * step
    else:
        n = int(rng.integers(2, 8))
        value = int(rng.integers(10 ** (n - 1), 10 ** n))
    text = str(value)
    sign = "-" if rng.random() < 0.1 else ""
    u = rng.random()
    if u < 0.06 and len(text) > 3 and text.endswith("000"):
        return sign + text[:-3], "000", sign + text              # raised zeros
    if len(text) >= 4 and u < 0.25:
        head = len(text) % 3 or 3
        shown = " ".join([text[:head]] + [text[i:i + 3] for i in range(head, len(text), 3)])
        return sign + shown, "", sign + text
    if u < 0.32:
        return sign + text + str(rng.choice([" km", " m", "km"])), "", sign + text
    return sign + text, "", sign + text


def _render(spec: FontSpec, text: str, size: int) -> np.ndarray:
    """The text's ink (uint8, 255 ink) at font size ``size`` px, tight."""
    font = ImageFont.truetype(spec.path, size)
    feats = ["onum"] if spec.onum else None
    left, top, right, bottom = font.getbbox(text, features=feats)
    im = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(im).text((2 - left, 2 - top), text, fill=255, font=font, features=feats)
    return np.asarray(im)


def _word_ink(rng: np.random.Generator, spec: FontSpec, size: int, main: str,
              raised: str) -> np.ndarray:
    """The word's ink: the main figures, then small raised zeros if any; maybe slanted,
    condensed or stretched, thinner or bolder."""
    ink = _render(spec, main, size)
    if raised:
        small = _render(spec, raised, max(6, int(size * 0.55)))
        h = ink.shape[0]
        out = np.zeros((h, ink.shape[1] + small.shape[1] + size // 10), np.uint8)
        out[:, :ink.shape[1]] = ink
        out[:small.shape[0], ink.shape[1] + size // 10:] = small[:h]
        ink = out
    h, w = ink.shape
    sx = float(rng.uniform(0.7, 1.25)) if rng.random() < 0.4 else 1.0
    shear = float(rng.uniform(-0.25, 0.25)) if rng.random() < 0.25 else 0.0
    if sx != 1.0 or shear:
        m = np.array([[sx, -shear, max(0.0, shear) * h], [0.0, 1.0, 0.0]])
        ink = cv2.warpAffine(ink, m, (int(w * sx + abs(shear) * h) + 2, h))
    if rng.random() < 0.3:
        k = np.ones((2, 2), np.uint8)
        ink = cv2.dilate(ink, k) if rng.random() < 0.5 else cv2.erode(ink, k)
    return ink


def scene(rng: np.random.Generator) -> tuple[np.ndarray, str, str]:
    """One training word: (net input ``(INPUT_H, INPUT_W)`` float32, target string,
    font name)."""
    spec = pick_font(rng)
    main, raised, target = grid_value_text(rng)
    if rng.random() < LETTERS:
        main, raised, target = str(rng.choice(MAP_WORDS)), "", ""
    size = int(rng.integers(40, 90))
    ink = _word_ink(rng, spec, size, main, raised)
    th, tw = ink.shape
    # the canvas around the word (high resolution), the word somewhere in it
    ch = int(th * rng.uniform(2.6, 4.0))
    cw = int(tw + th * rng.uniform(1.0, 4.0))
    canvas = np.zeros((ch, cw), np.float32)          # ink coverage, 0-1
    x0 = int(rng.uniform(0.15, 0.85) * (cw - tw))
    y0 = int(np.clip(ch / 2 - th / 2 + rng.uniform(-0.1, 0.1) * th, 0, ch - th))
    word = ink.astype(np.float32) / 255.0
    if rng.random() < 0.3:                           # broken strokes, worn engraving
        holes = (rng.random(word.shape) < 0.004).astype(np.uint8)
        holes = cv2.dilate(holes, np.ones((int(size / 12) + 1,) * 2, np.uint8))
        word *= 1.0 - holes
    canvas[y0:y0 + th, x0:x0 + tw] = word
    stroke = max(1, round(size / float(rng.uniform(12, 30))))
    cx = x0 + tw / 2 + rng.uniform(-0.15, 0.15) * tw
    if rng.random() < 0.6:                           # the grid line's tick, or the line
        a = rng.uniform(-0.2, 0.6) * ch if rng.random() < 0.5 else -1
        b = rng.uniform(0.4, 1.2) * ch
        cv2.line(canvas, (int(cx), int(a)), (int(cx + rng.uniform(-0.03, 0.03) * ch), int(b)),
                 float(rng.uniform(0.6, 1.0)), stroke, cv2.LINE_AA)
    for _ in range(int(rng.choice([0, 1, 1, 2]))):  # frame lines above or below
        gap = rng.uniform(0.1, 0.8) * th
        y = y0 + th + gap if rng.random() < 0.5 else y0 - gap
        tilt = rng.uniform(-0.02, 0.02) * cw
        cv2.line(canvas, (0, int(y)), (cw, int(y + tilt)), float(rng.uniform(0.6, 1.0)),
                 max(1, int(stroke * rng.uniform(0.8, 2.5))), cv2.LINE_AA)
    if rng.random() < 0.3:                           # a neighbouring word cut by the window
        other = _render(pick_font(rng), str(rng.choice(["Rue", "A", "B", "27", "Quai", "de",
                                                        "1836", "N", "S", "C", "Pl."])), size)
        ox = x0 - other.shape[1] - int(rng.uniform(0.6, 2.0) * th) if rng.random() < 0.5 \
            else x0 + tw + int(rng.uniform(0.6, 2.0) * th)
        oy = int(rng.uniform(-0.5, 0.5) * th) + y0
        _paste(canvas, other.astype(np.float32) / 255.0, ox, oy)
    if rng.random() < 0.15:                          # hatching in part of the window
        mask = np.zeros_like(canvas)
        step = int(rng.uniform(0.15, 0.4) * th) + 2
        for k in range(-ch, cw, step):
            cv2.line(mask, (k, ch), (k + ch, 0), 1.0, max(1, stroke // 2))
        side = rng.random() < 0.5
        cut = int(rng.uniform(0.0, 0.3) * cw)
        region = (slice(None), slice(0, cut)) if side else (slice(None), slice(cw - cut, cw))
        canvas[region] = np.maximum(canvas[region], mask[region])
    for _ in range(int(rng.poisson(1.5))):           # specks
        cv2.circle(canvas, (int(rng.uniform(0, cw)), int(rng.uniform(0, ch))),
                   int(rng.integers(1, max(2, stroke + 1))), float(rng.uniform(0.3, 1.0)), -1)
    # reduce to the size on the sheet: text height 4 to 48 px, mostly small
    target_h = float(np.exp(rng.uniform(np.log(4.0), np.log(48.0))))
    k = target_h / th
    blur = rng.uniform(0.0, 1.6)
    if blur > 0.3:
        canvas = cv2.GaussianBlur(canvas, (0, 0), blur / k)
    small = cv2.resize(canvas, (max(8, int(cw * k)), max(8, int(ch * k))),
                       interpolation=cv2.INTER_AREA)
    paper = rng.uniform(150, 235)
    contrast = rng.uniform(0.3, 1.0) * (paper - rng.uniform(10, 60))
    gray = paper - contrast * small
    gray += cv2.resize(rng.normal(0, rng.uniform(0, 12), (8, 8)).astype(np.float32),
                       small.shape[::-1], interpolation=cv2.INTER_CUBIC)     # stains
    gray += rng.normal(0, rng.uniform(0, 8), gray.shape)
    gray = np.clip(gray, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        gray = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    # as on a sheet: long strokes removed, the word cut from its (jittered) box
    long_px = max(12, int(target_h * rng.uniform(4, 8)))
    _, dark = strip_ink(gray, long_px)
    h = th * k
    box = np.array([x0 * k, y0 * k, (x0 + tw) * k, (y0 + th) * k])
    box += rng.normal(0, 0.08, 4) * h
    if rng.random() < TURNED:
        return net_input(word_image(dark, box, 2)), turned_text(target), spec.name + " turned"
    return net_input(word_image(dark, box, 0)), target, spec.name


def _paste(canvas: np.ndarray, patch: np.ndarray, x: int, y: int) -> None:
    h, w = patch.shape
    a, b = max(0, x), min(canvas.shape[1], x + w)
    c, d = max(0, y), min(canvas.shape[0], y + h)
    if b > a and d > c:
        canvas[c:d, a:b] = np.maximum(canvas[c:d, a:b], patch[c - y:d - y, a - x:b - x])
