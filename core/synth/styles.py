"""Random drawing styles for domain randomization (the block network's training sheets).

``random_style(seed)`` draws :func:`~core.synth.generate_sheet` overrides that vary every
part of the drawing the generator lets vary: water (lines along the banks, straight or
crossed hatching, stipple, none), hatching angle, spacing and weight, outline weight and
small gaps, lettering font family and size, ink and paper colours, stains, blur, noise,
JPEG quality and the drawing scale. It never yields the held-out validation style
(``style="heldout"``, :data:`~core.synth.params.STYLES`): its water technique (wavy
lines) and lettering font (EB Garamond) are never drawn, and this is asserted.
"""

from __future__ import annotations

import numpy as np

from .params import is_heldout

#: water techniques of the training styles (never ``wavy``, the held-out style's)
TRAIN_WATER = ("banks", "banks", "horizontal", "cross", "stipple", "none")
#: lettering font families of the training styles (never ``garamond``)
TRAIN_FONTS = ("liberation", "liberation", "dejavu", "sans", "condensed")


def random_style(seed: int, scale_range: tuple[float, float] | None = (0.6, 1.4)) -> dict:
    """Drawing-style overrides drawn from ``seed`` (same seed, same style).

    Outlines 1-3 px, with small regular gaps on a third of the sheets; subdivision 0-0.6,
    hatching 0.1-0.6 of the blocks, turned by -25..25 degrees, spacing x 0.8-1.7, lines
    0.8-2.2 px; water as above; lettering density 0.4-1.6 and size x 0.75-1.35 in one of
    :data:`TRAIN_FONTS`; ink grey 20-100 with a colour cast; paper 200-245 with a cast;
    0-10 stains; blur 0.2-1.1 px; noise 1-7; JPEG quality 30-95; ``content_scale`` from
    ``scale_range`` (None: the generator's 1).
    """
    rng = np.random.default_rng([int(seed), 7])
    ink = float(rng.uniform(20.0, 100.0))
    ink_cast = rng.normal(0.0, 6.0, 3) + np.array([8.0, 4.0, -6.0]) * rng.uniform(0.0, 2.0)
    paper = float(rng.uniform(200.0, 245.0))
    paper_cast = rng.normal(0.0, 4.0, 3) + np.array([0.3, 0.0, -1.0]) * rng.uniform(-5, 30)
    dashed = rng.random() < 0.35
    style = {
        "outline_width_px": int(rng.choice([1, 2, 3], p=[0.4, 0.4, 0.2])),
        "subdivision_fraction": float(rng.uniform(0.0, 0.6)),
        "hatch_fraction": float(rng.uniform(0.1, 0.6)),
        "garden_fraction": float(rng.uniform(0.0, 0.1)),
        "ink_fade": float(rng.uniform(0.0, 0.4)),
        "text_density": float(rng.uniform(0.4, 1.6)),
        "ink_rgb": tuple(float(v) for v in np.clip(ink + ink_cast, 0, 160)),
        "water_style": str(rng.choice(TRAIN_WATER)),
        "hatch_angle_offset": float(rng.uniform(-25.0, 25.0)),
        "hatch_spacing_factor": float(rng.uniform(0.8, 1.7)),
        "hatch_width_px": float(rng.uniform(0.8, 2.2)),
        "outline_dash_px": ((float(rng.uniform(30.0, 150.0)), float(rng.uniform(2.0, 5.0)))
                            if dashed else (0.0, 0.0)),
        "lettering_font": str(rng.choice(TRAIN_FONTS)),
        "lettering_scale": float(rng.uniform(0.75, 1.35)),
        "paper_rgb": tuple(float(v) for v in np.clip(paper + paper_cast, 150, 252)),
        "stains": int(rng.integers(0, 11)),
        "foxing": int(rng.integers(0, 150)),
        "blur_sigma": float(rng.uniform(0.2, 1.1)),
        "noise_sigma": float(rng.uniform(1.0, 7.0)),
        "jpeg_quality": int(rng.integers(30, 96)),
    }
    if scale_range is not None:
        style["content_scale"] = float(rng.uniform(*scale_range))
    assert not is_heldout(style), "a training style must never be the held-out style"
    return style
