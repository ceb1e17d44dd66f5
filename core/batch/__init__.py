"""Directory modes: one task per sheet, in this process or on a Dask cluster.

:func:`run_batch` applies a work function to every sheet of a collection, going on past
failures; with :class:`BatchOptions` it spreads the sheets over the processes of a local
Dask cluster (``--workers N``) or of an existing one (``--scheduler tcp://HOST:PORT``),
skips the sheets whose outputs are complete and newer than their inputs, and writes the
collection summary (``summary.csv``, ``summary.html`` and thumbnails). Without either, the
faster of one process and a local cluster is chosen (:mod:`.plan`). A run survives faults
under it: killed workers, stop signals to the process group, a lost cluster
(:mod:`.cluster`, :mod:`.execute`, :mod:`.stopping`). See docs/whole-atlases.md and
docs/atlas-runs.md.
"""

from .options import BatchOptions, add_batch_options, batch_options
from .run import run_batch
from .sheet import Outcome, SheetReport

__all__ = ["BatchOptions", "Outcome", "SheetReport", "add_batch_options", "batch_options",
           "run_batch"]
