"""Atlas runs that survive faults: the nine cases of issue 36, held or broken.

    .venv/bin/python -m benchmarks.bench_faults [--count 4] [--size 2500] [--only N ...]

Runs every case of benchmarks/fault_cases.py (kill -9 of workers, Ctrl-C and SIGHUP to the
process group, a scheduler or every worker of an external cluster dying, two runs into one
folder, a corrupt JPEG, a full disk for one sheet and for a GeoPackage) with real
processes, on two collections:

- generated: ``--count`` sheets of ``--size`` px made by ``core.synth`` with grid values
  printed in the margins (bench-output/faults/sheets-*; georeferenced from their GCP files,
  or from the values printed on them where the case needs the label reader);
- shared: the three real sheets of Jacoubet's 1836 atlas (../shared/data/jacoubet-1836,
  3400 x 4130 px; their hand-placed GCPs, or ``--crs CRS.proj --spacing 250`` alone).

Prints one line per case and collection: held, BROKEN (with what broke) or not run (the
full-disk cases mount a small tmpfs, which needs root). Exit status 1 when a case broke.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.fault_cases import CASES, Sheets, describe, run_case

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GRATICULE_SHARED", REPO.parent / "shared"))


def generated(count: int, size: int, seed: int) -> Sheets:
    """``count`` generated sheets with printed grid values (made once, then reused)."""
    folder = REPO / "bench-output" / "faults" / f"sheets-{size}-s{seed}-n{count}"
    if len(list(folder.glob("*-INPUT.jpg"))) < count:
        print(f"generating {count} sheets of {size} px ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "core.synth", str(folder), "--count", str(count),
                        "--size", str(size), "--seed", str(seed), "--spacing",
                        str(size // 5), "--difficulty", "0.1", "--labels", "full"],
                       check=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
    return Sheets(folder, ("--crs", "paris-atlas", "--gcps-only"),
                  ("--crs", "paris-atlas", "--no-gcps"))


def jacoubet(work: Path) -> Sheets | None:
    """The three Jacoubet sheets, with their hand GCPs as NNN.points beside them."""
    src = SHARED / "data" / "jacoubet-1836"
    if not src.is_dir():
        return None
    folder = work / "jacoubet"
    folder.mkdir(parents=True, exist_ok=True)
    for image in sorted(src.glob("*-INPUT.jpg")):
        for name, target in ((image.name, image), (f"{image.name[:3]}.points",
                                                   src / f"{image.name[:3]}-GT.points")):
            link = folder / name
            if not link.exists():
                link.symlink_to(target)
    crs = (src / "CRS.proj").read_text().strip()
    return Sheets(folder, ("--crs", crs, "--gcps-only"),
                  ("--crs", crs, "--spacing", "250", "--no-gcps"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_faults",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4, help="generated sheets (default 4)")
    ap.add_argument("--size", type=int, default=2500, help="their side, px (default 2500)")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--only", type=int, nargs="*", help="case numbers to run (1-9)")
    ap.add_argument("--no-shared", action="store_true", help="generated sheets only")
    args = ap.parse_args(argv)

    work = REPO / "bench-output" / "faults"
    sets = {"generated": generated(args.count, args.size, args.seed)}
    if not args.no_shared:
        shared = jacoubet(work)
        if shared is None:
            print(f"note: {SHARED} not found, shared sheets left out", file=sys.stderr)
        else:
            sets["shared (Jacoubet)"] = shared
    cases = [c for k, c in enumerate(CASES, 1) if not args.only or k in args.only]
    print(f"{len(cases)} fault cases on {', '.join(sets)}; {os.cpu_count()} CPUs, load "
          f"average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}")
    broken = 0
    for label, sheets in sets.items():
        print(f"\n{label}: {len(sheets.paths)} sheets in {sheets.folder}")
        for case in cases:
            res = run_case(case, sheets, work / "runs" / label.split()[0] / case.__name__)
            print(describe(res), flush=True)
            broken += res.held is False
    print(f"\n{broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
