"""The options every directory mode shares: where the sheets run, and whether sheets already
done are done again."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from ..cli import number
from ..errors import InputError

#: Environment variable naming an existing Dask scheduler (Dask reads the same one).
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"


@dataclass(frozen=True)
class BatchOptions:
    """Where and how a directory of sheets is processed.

    Attributes
    ----------
    workers : int or None
        Worker processes of the local Dask cluster, one thread each; 1 runs the sheets one
        after another in this process (no cluster); None chooses the faster of the two
        from the cores, the sheets and ``work`` (:mod:`core.batch.plan`).
    scheduler : str or None
        Address of an existing Dask scheduler (``tcp://HOST:PORT``); its workers must have
        the project installed and see the same paths. ``workers`` is then unused.
    force : bool
        Redo sheets whose outputs are complete and newer than their inputs (else skipped).
    work : str or None
        What a sheet's work is, for the choice of ``workers`` None: a key of
        :data:`core.batch.plan.PROFILES` ("graticule", "georef", "maparea", "blocks",
        "shapes"); None is taken as "graticule".
    cluster_logs : bool
        Show the Dask cluster's own log lines and warnings (hidden by default).
    """

    workers: int | None = 1
    scheduler: str | None = None
    force: bool = False
    work: str | None = None
    cluster_logs: bool = False


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers``, ``--scheduler`` and ``--force`` to a command's parser."""
    g = parser.add_argument_group(
        "directory mode (see docs/whole-atlases.md)")
    g.add_argument("--workers", type=number("workers", minimum=1, maximum=4096, integer=True),
                   metavar="N",
                   help="sheets processed at once by a local Dask cluster of N processes, "
                        "one thread each; 1 = one after another in this process (default: "
                        "the faster of the two for this command, these sheets and the "
                        "cores, said at the start)")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on an existing Dask cluster whose workers have this project "
                        f"installed and see the same paths (default: ${SCHEDULER_ENV} when "
                        "set, else a local cluster)")
    g.add_argument("--force", action="store_true",
                   help="redo sheets whose outputs are complete and newer than the sheet "
                        "(default: skip them)")
    g.add_argument("--cluster-logs", action="store_true",
                   help="show the Dask cluster's own log lines and warnings (hidden by "
                        "default)")


def batch_options(args: argparse.Namespace, work: str | None = None) -> BatchOptions:
    """The :class:`BatchOptions` of parsed arguments (see :func:`add_batch_options`) for a
    command whose sheets' ``work`` is a key of :data:`core.batch.plan.PROFILES`.

    An explicit ``--workers`` wins over ``$DASK_SCHEDULER_ADDRESS``; ``--workers`` together
    with ``--scheduler`` is an InputError. Without either, ``workers`` is None: chosen when
    the sheets are known.
    """
    if args.scheduler and args.workers is not None:
        raise InputError("--workers starts a local cluster and --scheduler uses an existing "
                         "one; give only one of them", field="workers", value=args.workers)
    scheduler = args.scheduler
    if scheduler is None and args.workers is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if scheduler is not None and "://" not in scheduler and ":" not in scheduler:
        raise InputError(f"--scheduler {scheduler} is not an address; give tcp://HOST:PORT "
                         "as printed by `dask scheduler`", field="scheduler", value=scheduler)
    workers = None if args.workers is None else int(args.workers)
    return BatchOptions(workers=workers, scheduler=scheduler, force=bool(args.force),
                        work=work, cluster_logs=bool(getattr(args, "cluster_logs", False)))
