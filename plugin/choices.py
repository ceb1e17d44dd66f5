"""The choice lists of the forms: the keys and their order come from core, only the
translated labels from here (a key core adds later shows under its own name)."""

from __future__ import annotations

from .i18n import tr


def _choices(name: str, labels: dict[str, str]) -> list[tuple[str, str]]:
    """``(label, key)`` for each key of ``core.georef.<name>``, in core's order; without
    core's packages (the algorithm cannot run then, and says why) the labels' own keys, so
    the form can still be built."""
    try:
        from ..core import georef

        keys = getattr(georef, name)
    except ImportError:
        keys = labels
    return [(labels.get(key, key), key) for key in keys]


def transforms() -> list[tuple[str, str]]:
    """(label, kind) of every transform core fits."""
    return _choices("KINDS", {
        "helmert": tr("Helmert (shift, rotation, one scale)"),
        "affine": tr("Affine (keeps the scan's pixels)"), "projective": tr("Projective"),
        "poly2": tr("Polynomial, order 2"), "poly3": tr("Polynomial, order 3"),
        "tps": tr("Thin plate spline")})


def outlier_methods() -> list[tuple[str, str]]:
    """(label, method) of every outlier rejection core has."""
    return _choices("METHODS", {"magsac": "MAGSAC++", "ransac": "RANSAC", "none": tr("None")})


def resamplings() -> list[tuple[str, str]]:
    """(label, name) of every resampling core has."""
    return _choices("RESAMPLING", {"near": tr("Nearest neighbour"), "bilinear": tr("Bilinear"),
                                   "cubic": tr("Cubic"), "lanczos": tr("Lanczos")})
