"""Progress reporting and cancellation for long jobs, shared by the CLI and the plugin.

A job takes ``progress: ProgressCallback | None`` and calls it with a fraction in [0, 1]
and a short message. A caller that wants to cancel (the plugin's QgsTask) raises
:class:`Cancelled` from inside the callback; the job unwinds and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[float, str], None]


class Cancelled(Exception):  # noqa: N818 (reads as "the job was cancelled")
    """Raised from a progress callback to stop a job."""


def report(callback: ProgressCallback | None, fraction: float, message: str = "") -> None:
    """Call ``callback`` if there is one, with the fraction clipped to [0, 1]."""
    if callback is not None:
        callback(min(1.0, max(0.0, fraction)), message)


def sub_progress(callback: ProgressCallback | None, start: float,
                 end: float) -> ProgressCallback | None:
    """A callback mapping a step's own [0, 1] onto [start, end] of the parent's."""
    if callback is None:
        return None

    def scaled(fraction: float, message: str = "") -> None:
        report(callback, start + (end - start) * fraction, message)

    return scaled
