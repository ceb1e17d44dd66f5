"""The choice lists of the forms: the keys and their order come from core, only the
translated labels from here (a key core adds later shows under its own name)."""

from __future__ import annotations

from .i18n import tr


def transform_labels() -> dict[str, str]:
    """core transform kind -> label."""
    return {"helmert": tr("Helmert (shift, rotation, one scale)"),
            "affine": tr("Affine (keeps the scan's pixels)"),
            "projective": tr("Projective"), "poly2": tr("Polynomial, order 2"),
            "poly3": tr("Polynomial, order 3"), "tps": tr("Thin plate spline")}


def outlier_labels() -> dict[str, str]:
    """core outlier method -> label."""
    return {"magsac": "MAGSAC++", "ransac": "RANSAC", "none": tr("None")}


def resampling_labels() -> dict[str, str]:
    """core resampling -> label."""
    return {"near": tr("Nearest neighbour"), "bilinear": tr("Bilinear"), "cubic": tr("Cubic"),
            "lanczos": tr("Lanczos")}


def choices(keys, labels: dict[str, str]) -> list[tuple[str, str]]:
    """``(label, key)`` for each of core's ``keys``, in core's order."""
    return [(labels.get(key, key), key) for key in keys]


def _core_keys(name: str, labels: dict[str, str]) -> list[tuple[str, str]]:
    """Choices from ``core.georef.<name>``; without core's packages (the algorithm cannot
    run then, and says why) the labels' own keys, so the form can still be built."""
    try:
        from ..core import georef
    except ImportError:
        return choices(labels, labels)
    return choices(getattr(georef, name), labels)


def transforms() -> list[tuple[str, str]]:
    """(label, kind) of every transform core fits."""
    return _core_keys("KINDS", transform_labels())


def outlier_methods() -> list[tuple[str, str]]:
    """(label, method) of every outlier rejection core has."""
    return _core_keys("METHODS", outlier_labels())


def resamplings() -> list[tuple[str, str]]:
    """(label, name) of every resampling core has."""
    return _core_keys("RESAMPLING", resampling_labels())
