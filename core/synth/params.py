"""Generation parameters of a synthetic sheet and how difficulty maps to them.

Every random choice that shapes a sheet is drawn here from the sheet seed, then overrides
are applied, so overriding one parameter leaves all others unchanged. ``difficulty`` in
[0, 1]: 0 is a clean axis-aligned sheet with strong lines; 1 has faint, interrupted, warped
lines with distractors, heavy clutter and damage.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

#: Styles of the grid values printed in the margins (:mod:`.gridlabels`), or inside the map
#: along the lines (``inside``: :mod:`.gridlabels_inside`).
LABEL_STYLES = ("none", "full", "grouped", "thousands", "km", "raised", "unsigned", "oldstyle",
                "inside", "plain", "plain-km")
#: The label fonts of the held-out styles ``plain`` and ``plain-km`` (never trained on).
PLAIN_LABEL_FONTS = ("pt-serif", "pt-sans", "caladea")

PARIS_GRID_CRS = ("+proj=omerc +gamma=0.00047289 +lonc=2.33652533 +lon_0=2.33652533 "
                  "+lat_0=48.83635864 +lat_ts=48.83635864 +x_0=0 +y_0=0 +ellps=GRS80 +no_defs")
ORIENTATIONS = ("axis", "tilted", "rot90")
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0
WATER_STYLES = ("banks", "horizontal", "wavy", "stipple", "cross", "none")
LETTERING_FONTS = ("liberation", "dejavu", "sans", "condensed", "garamond")
#: street layouts: "grid" (planned: a binary space partition, core.synth.blocks) and
#: "organic" (a grown town: Voronoi blocks and radiating boulevards, core.synth.organic)
STREET_LAYOUTS = ("grid", "organic")
#: Named drawing styles: overrides applied after the seed's own draws (explicit overrides
#: still win). The ``heldout*`` styles are validation styles that training never draws
#: (tools/train_blocks_net.py refuses them). ``heldout``: water in wavy horizontal lines,
#: hatching turned 30 degrees, wider and bolder, outlines with small regular gaps, EB
#: Garamond lettering (Debian fonts-ebgaramond), bluish-white paper with brown ink and many
#: stains, JPEG 60 (the layout of the default style). ``heldout-organic``: that drawing
#: on another layout too, a grown town (irregular Voronoi blocks, bent boulevards leaving
#: round squares) instead of the planned grid: nothing of it is what training draws.
STYLES: dict[str, dict] = {
    "default": {},
    "heldout": {"water_style": "wavy", "hatch_angle_offset": 30.0,
                "hatch_spacing_factor": 1.45, "hatch_width_px": 1.6,
                "outline_dash_px": (70.0, 3.0), "lettering_font": "garamond",
                "lettering_scale": 1.1, "paper_rgb": (236.0, 235.0, 226.0),
                "ink_rgb": (72.0, 52.0, 40.0), "stains": 6, "foxing": 60,
                "blur_sigma": 0.7, "jpeg_quality": 60},
}
STYLES["heldout-organic"] = {**STYLES["heldout"], "street_layout": "organic"}
#: the fields that make a held-out style unique (training must draw none of these values)
HELDOUT_MARKERS = {k: STYLES["heldout-organic"][k]
                   for k in ("water_style", "lettering_font", "street_layout")}
MIN_SIZE = 256
MAX_SIZE = 40000


def sheet_seed(run_seed: int, index: int) -> int:
    """The seed of sheet ``index`` of a run with ``run_seed`` (independent of the run length)."""
    ss = np.random.SeedSequence([int(run_seed) & 0xFFFFFFFF, int(index) & 0xFFFFFFFF, 0x5EED])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def run_difficulty(index: int) -> float:
    """Default difficulty of sheet ``index`` of a run: a golden-ratio sequence over [0, 1].

    Sheet 0 is the easiest (0.0); any 20 consecutive sheets span the range evenly.
    """
    return float((int(index) * GOLDEN) % 1.0)


def _lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


@dataclass
class SheetParams:
    """Everything that shapes one sheet (written to NNN.json).

    Pixel sizes are in output pixels; ``content_scale`` scales the drawing (streets, text)
    independently of the graticule spacing (1.0 = the 1:5000 atlas scanned at 300 dpi).
    """

    seed: int
    width: int
    height: int
    difficulty: float
    spacing_px: float = 2363.0
    grid_spacing_m: float = 1000.0
    grid_crs: str = PARIS_GRID_CRS
    # orientation and grid placement
    orientation: str = "axis"
    quarter_turns: int = 0
    tilt_deg: float = 0.0
    aspect: float = 0.0
    centre_easting: float = 0.0
    centre_northing: float = 0.0
    # graticule look
    grid_alpha: float = 0.7
    grid_width_px: int = 1
    grid_gap_fraction: float = 0.0
    grid_gap_length_px: tuple[float, float] = (30.0, 300.0)
    grid_fade: float = 0.0
    distractors_per_line: float = 0.0
    visible_clearance_px: float = 4.0
    # paper deformation
    warp_amplitude_px: float = 1.0
    fold: bool = True
    fold_position: float = 0.5
    fold_amplitude_px: float = 0.0
    fold_width_px: float = 12.0
    # map frame and content ("full", or "graticule": paper and graticule only)
    content: str = "full"
    content_scale: float = 1.0
    margins: tuple[float, float, float, float] = (0.08, 0.08, 0.08, 0.08)
    frame_shape: str = "rectangle"
    frame_notch: tuple[float, float] = (0.0, 0.0)
    frame_notch_corner: int = 0
    frame_width_px: float = 3.0
    outline_width_px: int = 2
    river: bool = True
    railways: int = 1
    red_boundaries: int = 2
    district_labels: int = 2
    text_density: float = 1.0
    hatch_fraction: float = 0.3
    subdivision_fraction: float = 0.3
    garden_fraction: float = 0.04
    broken_outline_fraction: float = 0.05
    open_space_fraction: float = 0.04
    # paper and scan
    paper_rgb: tuple[float, float, float] = (231.0, 222.0, 192.0)
    ink_rgb: tuple[float, float, float] = (48.0, 44.0, 36.0)
    red_rgb: tuple[float, float, float] = (205.0, 62.0, 52.0)
    stains: int = 2
    foxing: int = 20
    noise_sigma: float = 3.0
    ink_fade: float = 0.1
    blur_sigma: float = 0.5
    jpeg_quality: int = 90
    # drawing style (core.synth defaults reproduce the generator's own look; see STYLES)
    style: str = "default"
    water_style: str = "banks"
    hatch_angle_offset: float = 0.0
    hatch_spacing_factor: float = 1.0
    hatch_width_px: float = 1.0
    outline_dash_px: tuple[float, float] = (0.0, 0.0)
    lettering_font: str = "liberation"
    lettering_scale: float = 1.0
    street_layout: str = "grid"
    # derived seed for the drawing (kept so a JSON reproduces the sheet)
    content_seed: int = 0
    # grid values printed in the margins (core.synth.gridlabels); "none" by default
    margin_labels: str = "none"
    label_sides: int = 4
    label_font: str = "serif"
    label_size_px: float = 48.0
    label_turned: bool = True
    label_missing: float = 0.0
    label_distractors: int = 0

    def to_dict(self) -> dict:
        """Plain JSON-ready values (tuples become lists)."""
        d = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


FIELD_NAMES = {f.name for f in dataclasses.fields(SheetParams)}


def _size(size: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(size, int | np.integer):
        w = h = int(size)
    else:
        try:
            w, h = (int(v) for v in size)
        except (TypeError, ValueError):
            raise InputError(f"size must be an integer or (width, height), not {size!r}") \
                from None
    for v in (w, h):
        if not MIN_SIZE <= v <= MAX_SIZE:
            raise InputError(f"sheet size {w} x {h} px is out of range; give sizes between "
                             f"{MIN_SIZE} and {MAX_SIZE} px")
    return w, h


def is_heldout(overrides: dict) -> bool:
    """True if drawing-style ``overrides`` name the held-out style or one of its markers
    (:data:`HELDOUT_MARKERS`): what training must never draw."""
    if str(overrides.get("style", "default")).startswith("heldout"):
        return True
    return any(overrides.get(k) == v for k, v in HELDOUT_MARKERS.items())


def make_params(seed: int, size: int | tuple[int, int] = 10000, *,
                difficulty: float | None = None, spacing_px: float = 2363.0,
                **overrides) -> SheetParams:
    """Draw a sheet's parameters from ``seed`` and ``difficulty``, then apply ``overrides``.

    ``difficulty`` None draws one from the seed. ``overrides`` may set any
    :class:`SheetParams` field (e.g. ``orientation="rot90"``, ``tilt_deg=12``,
    ``jpeg_quality=95``); an unknown name is an InputError. ``style`` names a preset of
    :data:`STYLES` applied before the other overrides (the same seed draws the same layout
    in every style).
    """
    width, height = _size(size)
    unknown = sorted(set(overrides) - FIELD_NAMES)
    if unknown:
        raise InputError(f"unknown sheet parameter(s) {', '.join(unknown)}; valid names are the "
                         f"fields of core.synth.SheetParams")
    if not (isinstance(seed, int | np.integer) and 0 <= int(seed) < 2**63):
        raise InputError(f"seed must be a non-negative integer, not {seed!r}")
    if not (np.isfinite(spacing_px) and 20.0 <= float(spacing_px) <= 100000.0):
        raise InputError(f"spacing {spacing_px!r} px is out of range; give 20 to 100000 px")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 1]))
    d = float(rng.uniform(0.0, 1.0)) if difficulty is None else float(difficulty)
    if not 0.0 <= d <= 1.0:
        raise InputError(f"difficulty must be between 0 and 1, not {difficulty!r}")

    p = SheetParams(seed=int(seed), width=width, height=height, difficulty=d,
                    spacing_px=float(spacing_px))
    # Orientation: only axis-aligned at difficulty 0, a 40/30/30 mix from difficulty 0.2.
    other = 0.3 * min(1.0, d / 0.2)
    u = rng.random()
    p.orientation = "tilted" if u < other else "rot90" if u < 2 * other else "axis"
    p.orientation = overrides.get("orientation", p.orientation)
    small_tilt = float(rng.uniform(-0.4, 0.4)) * d
    big_tilt = float(rng.uniform(3.0, 25.0) * rng.choice([-1.0, 1.0]))
    turns = int(rng.choice([1, 3, 2], p=[0.45, 0.45, 0.1]))
    p.tilt_deg = big_tilt if p.orientation == "tilted" else small_tilt
    p.quarter_turns = turns if p.orientation == "rot90" else 0
    p.aspect = float(rng.uniform(-0.004, 0.004) * d)
    p.centre_easting = float(rng.uniform(-4000.0, 4000.0))
    p.centre_northing = float(rng.uniform(-3000.0, 3000.0))

    # Graticule look
    p.grid_alpha = float(np.clip(_lerp(0.8, 0.33, d) * rng.uniform(0.9, 1.1), 0.2, 0.9))
    p.grid_width_px = int(rng.choice([1, 2, 3],
                                     p=[0.35 + 0.45 * d, 0.45 - 0.25 * d, 0.2 - 0.2 * d]))
    p.grid_gap_fraction = float(_lerp(0.0, 0.18, d) * rng.uniform(0.5, 1.0)) if d > 0.1 else 0.0
    p.grid_fade = float(_lerp(0.0, 0.6, d) * rng.uniform(0.5, 1.0))
    p.distractors_per_line = float(_lerp(0.0, 2.5, d) * rng.uniform(0.5, 1.0))

    # Paper deformation
    p.warp_amplitude_px = float(_lerp(0.3, 6.0, d) * rng.uniform(0.6, 1.0))
    p.fold = bool(overrides.get("fold", rng.random() < 0.85))
    p.fold_position = float(rng.uniform(0.4, 0.6))
    p.fold_amplitude_px = float(_lerp(0.0, 2.5, d) * rng.uniform(0.3, 1.0)) if p.fold else 0.0
    p.fold_width_px = float(rng.uniform(10.0, 25.0))

    # Frame and content
    p.margins = tuple(float(v) for v in rng.uniform(0.03, 0.10, size=4))
    p.frame_shape = "notched" if rng.random() < 0.35 else "rectangle"
    p.frame_notch = (float(rng.uniform(0.15, 0.45)), float(rng.uniform(0.15, 0.45)))
    p.frame_notch_corner = int(rng.integers(0, 4))
    p.frame_width_px = float(rng.uniform(2.0, 4.5))
    p.outline_width_px = int(rng.choice([2, 3], p=[0.75, 0.25]))
    p.river = bool(rng.random() < 0.65)
    p.railways = int(rng.choice([0, 1, 2], p=[0.3, 0.5, 0.2]))
    p.red_boundaries = int(rng.integers(1, 4))
    p.district_labels = int(rng.integers(1, 4))
    p.text_density = float(_lerp(0.6, 1.4, d) * rng.uniform(0.8, 1.2))
    p.hatch_fraction = float(_lerp(0.15, 0.45, d) * rng.uniform(0.7, 1.3))
    p.subdivision_fraction = float(_lerp(0.2, 0.6, d) * rng.uniform(0.7, 1.3))
    p.garden_fraction = float(rng.uniform(0.02, 0.07))
    p.broken_outline_fraction = float(_lerp(0.02, 0.3, d) * rng.uniform(0.5, 1.0))
    p.open_space_fraction = float(rng.uniform(0.02, 0.06))

    # Paper, ink, scan
    light = rng.normal(0.0, 4.0)
    yellow = rng.uniform(-4.0, 9.0)
    tone = rng.normal(0.0, 1.5, size=3)
    p.paper_rgb = tuple(float(v) for v in np.clip(
        np.array([231.0, 222.0, 193.0]) + light + tone + np.array([0.2, 0.0, -1.0]) * yellow,
        150, 250))
    ink = rng.uniform(25.0, 60.0)
    p.ink_rgb = (float(ink + 8), float(ink + 4), float(ink - 6))
    p.red_rgb = (float(rng.uniform(185, 215)), float(rng.uniform(45, 75)),
                 float(rng.uniform(40, 65)))
    p.stains = int(rng.poisson(_lerp(0.5, 8.0, d)))
    p.foxing = int(rng.poisson(_lerp(5.0, 120.0, d)))
    p.noise_sigma = float(_lerp(2.0, 6.0, d))
    p.ink_fade = float(_lerp(0.05, 0.35, d) * rng.uniform(0.5, 1.0))
    p.blur_sigma = float(rng.uniform(0.3, 0.65))
    p.jpeg_quality = int(np.clip(round(_lerp(95.0, 70.0, d) + rng.uniform(-3, 3)), 70, 95))
    p.content_seed = int(rng.integers(0, 2**62))

    # Margin labels: their own stream, so the parameters above stay as they were
    lab = np.random.default_rng(np.random.SeedSequence([int(seed), 2]))
    p.label_sides = int(lab.choice([2, 4]))
    p.label_font = str(lab.choice(["serif", "sans", "serif-bold", "serif-italic"]))
    p.label_size_px = float(lab.uniform(36.0, 64.0))
    p.label_turned = bool(lab.random() < 0.6)
    p.label_missing = float(lab.uniform(0.0, 0.25))
    p.label_distractors = int(lab.integers(0, 3))

    style = overrides.get("style", "default")
    _one_of("style", style, STYLES)
    for k, v in {**STYLES[style], **overrides}.items():
        setattr(p, k, v)
    if p.margin_labels in ("plain", "plain-km") and "label_font" not in overrides:
        p.label_font = str(lab.choice(PLAIN_LABEL_FONTS))   # (drawn last: others unchanged)
    _validate(p)
    return p


def _one_of(name: str, value: object, choices) -> None:
    """InputError naming the field ``name`` when ``value`` is not one of ``choices``."""
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(choices)}, not {value!r}")


def _validate(p: SheetParams) -> None:
    """Check override values that would break the generator; InputError naming the field."""
    if p.orientation not in ORIENTATIONS:
        raise InputError(f"orientation must be one of {', '.join(ORIENTATIONS)}, "
                         f"not {p.orientation!r}")
    p.quarter_turns = int(p.quarter_turns) % 4
    if not -90.0 <= p.tilt_deg <= 90.0:
        raise InputError(f"tilt_deg must be between -90 and 90, not {p.tilt_deg}")
    if not 0.02 <= p.content_scale <= 10.0:
        raise InputError(f"content_scale must be between 0.02 and 10, not {p.content_scale}")
    if not 1 <= int(p.jpeg_quality) <= 100:
        raise InputError(f"jpeg_quality must be between 1 and 100, not {p.jpeg_quality}")
    if p.fold_width_px < 4 * abs(p.fold_amplitude_px) or p.fold_width_px <= 0:
        raise InputError("fold_width_px must be at least 4 x fold_amplitude_px "
                         "(a sharper fold cannot be inverted exactly)")
    if p.warp_amplitude_px < 0 or p.warp_amplitude_px > 0.01 * max(p.width, p.height) + 5:
        raise InputError(f"warp_amplitude_px {p.warp_amplitude_px} is out of range; give "
                         f"0 to 1% of the sheet size")
    if p.grid_width_px not in (1, 2, 3, 4, 5):
        raise InputError(f"grid_width_px must be 1 to 5, not {p.grid_width_px}")
    if p.content not in ("full", "graticule"):
        raise InputError(f"content must be 'full' or 'graticule', not {p.content!r}")
    if p.frame_shape not in ("rectangle", "notched"):
        raise InputError(f"frame_shape must be 'rectangle' or 'notched', not {p.frame_shape!r}")
    p.jpeg_quality = int(p.jpeg_quality)
    _one_of("margin_labels", p.margin_labels, LABEL_STYLES)
    _one_of("water_style", p.water_style, WATER_STYLES)
    _one_of("street_layout", p.street_layout, STREET_LAYOUTS)
    _one_of("lettering_font", p.lettering_font, LETTERING_FONTS)
    if not (0.3 <= p.hatch_spacing_factor <= 4.0 and 0.5 <= p.hatch_width_px <= 6.0
            and 0.3 <= p.lettering_scale <= 3.0):
        raise InputError("hatch_spacing_factor must be 0.3-4, hatch_width_px 0.5-6 and "
                         "lettering_scale 0.3-3")
    dash, gap = (float(v) for v in p.outline_dash_px)
    if gap < 0 or dash < 0 or (gap > 0 and dash < 2 * gap):
        raise InputError("outline_dash_px must be (dash, gap) px with dash >= 2 x gap, or "
                         "(0, 0) for solid outlines")
    if p.label_sides not in (2, 4):
        raise InputError(f"label_sides must be 2 or 4, not {p.label_sides}")
    if p.margin_labels in ("plain", "plain-km"):
        if p.label_font not in PLAIN_LABEL_FONTS:
            raise InputError(f"label_font of the plain styles must be one of "
                             f"{', '.join(PLAIN_LABEL_FONTS)}, not {p.label_font!r}")
    elif p.label_font not in ("serif", "sans", "serif-bold", "serif-italic"):
        raise InputError(f"label_font must be serif, sans, serif-bold or serif-italic, not "
                         f"{p.label_font!r}")
