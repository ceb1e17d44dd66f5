"""Errors the user can fix, reported as one line without a traceback.

An :class:`InputError` is structured: besides its one-line message it says which option
(``field``) was at fault and with which ``value``. Options named inside the message are
written with :func:`option`, so each front end words them its own way: the command line as
flags (``--spacing``), the QGIS plugin as the labels of its form ("Grid spacing").

>>> err = InputError(f"{option('spacing')} must be a positive distance, not -3",
...                  field="spacing", value=-3)
>>> str(err)
'--spacing must be a positive distance, not -3'
>>> err.render(lambda name: {"spacing": "Grid spacing"}[name])
'Grid spacing must be a positive distance, not -3'
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MARK = "\x1f"
_REFERENCE = re.compile(f"{_MARK}([A-Za-z0-9_-]+){_MARK}")


def option(name: str) -> str:
    """A reference to option ``name`` inside a message (the CLI flag without its dashes,
    e.g. ``"spacing"``, ``"grid-crs"``); rendered by :meth:`InputError.render`."""
    return f"{_MARK}{name}{_MARK}"


def cli_flag(name: str) -> str:
    """How the command line words option ``name``: ``--name``."""
    return f"--{name}"


class InputError(Exception):
    """Bad input: the message is one line that says what is wrong and what to do.

    Parameters
    ----------
    message : str
        One line; options it names are written with :func:`option`.
    field : str, optional
        The option at fault (same names as :func:`option`), for a form to highlight.
    value : object, optional
        The value that was refused.

    Command-line tools print ``error: <str(exc)>`` and exit with status 2; the QGIS plugin
    shows ``exc.render(<its field labels>)``.
    """

    def __init__(self, message: str, *, field: str | None = None, value: object = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.value = value

    def render(self, name: Callable[[str], str] = cli_flag) -> str:
        """The message with every option reference worded by ``name(option)``."""
        return _REFERENCE.sub(lambda m: name(m.group(1)), self.message)

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self):
        # keep field and value when the error crosses a process boundary (workers)
        return (_rebuild, (type(self), self.message, self.field, self.value))


def _rebuild(cls: type[InputError], message: str, field: str | None,
             value: object) -> InputError:
    return cls(message, field=field, value=value)


class NoGraticuleError(InputError):
    """No graticule (grid of crossing lines) could be found on a sheet."""
