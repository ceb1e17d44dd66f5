"""Errors the user can fix, reported as one line without a traceback."""


class InputError(Exception):
    """Bad input: the message is one line that says what is wrong and what to do.

    Command-line tools print it as ``error: <message>`` and exit with status 2;
    the QGIS plugin shows it in the message bar.
    """


class NoGraticuleError(InputError):
    """No graticule (grid of crossing lines) could be found on a sheet."""
