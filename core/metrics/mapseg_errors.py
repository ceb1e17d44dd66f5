"""The error raised when ``official=True`` meets an input on which the official tool fails."""

from __future__ import annotations

from ..errors import InputError


class OfficialToolFailure(InputError):  # noqa: N818 (reads as "the official tool fails")
    """``icdar21-mapseg-eval`` 1.0.4 crashes on this input, so there is no official value.

    Raised only in ``official=True`` mode; the default mode gives the correct value.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"the official icdar21-mapseg-eval 1.0.4 tool fails on this input "
                         f"({reason}); run without --official for the corrected value")
