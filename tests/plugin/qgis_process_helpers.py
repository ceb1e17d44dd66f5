"""Run the plugin in QGIS's own runtime: ``qgis_process`` with the zip installed in a
temporary profile.

``qgis_process`` runs QGIS's embedded Python, the system one (``/usr/bin/python3`` on
Debian) with Debian's packages: the plugin's "Debian route". Nothing of the project's
``.venv`` reaches it: PYTHONPATH, PYTHONHOME, VIRTUAL_ENV and the venv's ``bin`` are left
out of its environment, and HOME is a temporary folder (so no ``~/.local`` packages either).

Debian's ``/usr/bin/qgis_process`` wrapper sources ``/etc/default/qgis``, whose
``QGIS_OPTS=--noversioncheck`` makes it fail ("Command --noversioncheck not known!"); the
tests call ``qgis_process.bin`` itself (the wrapper only adds GRASS's libraries to
LD_LIBRARY_PATH, which the plugin does not use).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

QGIS_PROCESS = Path("/usr/bin/qgis_process.bin")
PROVIDER = "graticule_georeferencer"
CRASH_CODES = (134, 139)  # a shell's 128 + SIGABRT / SIGSEGV
# variables that would put the venv (or another Python) into QGIS's process
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "QGIS_CUSTOM_CONFIG_PATH", "QGIS_OPTS",
            "QGIS_PLUGINPATH", "PYTHONSTARTUP")


def crashed(returncode: int) -> bool:
    """True when a process ended by a signal (negative code) or a shell's crash code."""
    return returncode < 0 or returncode in CRASH_CODES


def check_completed(run: subprocess.CompletedProcess, what: str) -> None:
    """Fail the calling test unless ``run`` exited 0; the message gives the exit code (and
    says "crashed" for a signal) and the last lines of stderr."""
    if run.returncode == 0:
        return
    tail = "\n".join((run.stderr or "").strip().splitlines()[-25:])
    kind = "crashed" if crashed(run.returncode) else "failed"
    pytest.fail(f"{what} {kind} with exit code {run.returncode}; stderr ends:\n{tail}",
                pytrace=False)


class QgisProcess:
    """``qgis_process.bin`` with the plugin of a zip installed in a temporary profile.

    Parameters
    ----------
    home : Path
        The temporary HOME; QGIS's default profile is
        ``home/.local/share/QGIS/QGIS3/profiles/default``.
    """

    def __init__(self, home: Path, workers: int = 2) -> None:
        self.home = home
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qgis_process")
        self.profile = home / ".local" / "share" / "QGIS" / "QGIS3" / "profiles" / "default"
        self.plugins = self.profile / "python" / "plugins"

    def env(self) -> dict[str, str]:
        """The environment of every call: the system Python only, offscreen, own HOME."""
        venv_bin = str(Path(sys.prefix) / "bin")
        env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if p and p != venv_bin)
        runtime = self.home / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        env.update(HOME=str(self.home), QT_QPA_PLATFORM="offscreen",
                   XDG_RUNTIME_DIR=str(runtime))
        return env

    def call(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """Run ``qgis_process.bin ARGS``; a crash or a non-zero exit fails the test."""
        run = subprocess.run([str(QGIS_PROCESS), *args], capture_output=True, text=True,
                             env=self.env(), cwd=self.home, timeout=timeout, check=False)
        check_completed(run, "qgis_process " + " ".join(args[:3]))
        return run

    def install(self, plugin_zip: Path) -> None:
        """Unzip the plugin into the profile and enable it."""
        self.plugins.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(plugin_zip) as archive:
            archive.extractall(self.plugins)
        self.call("plugins", "enable", PROVIDER)

    def algorithms(self) -> list[str]:
        """The ids of the provider's algorithms, as ``qgis_process list`` gives them."""
        listing = json.loads(self.call("--json", "list").stdout)
        return sorted(listing["providers"][PROVIDER]["algorithms"])

    def run(self, algorithm: str, **parameters) -> dict:
        """Run ``PROVIDER:algorithm`` with ``--NAME=value`` parameters; its results."""
        args = [f"--{name}={value}" for name, value in parameters.items()]
        run = self.call("--json", "run", f"{PROVIDER}:{algorithm}", *args)
        return json.loads(run.stdout)["results"]

    def submit(self, algorithm: str, **parameters) -> Future:
        """:meth:`run` in the background (``workers`` runs at a time, in submission order);
        ``future.result()`` gives the results or raises the test failure of the run."""
        return self.pool.submit(self.run, algorithm, **parameters)

    def submit_after(self, before: Future, algorithm: str, parameters) -> Future:
        """Run ``algorithm`` with ``parameters(results of before)`` in the background; submit
        ``before`` first (a worker waits for it, which the submission order keeps safe)."""
        return self.pool.submit(lambda: self.run(algorithm, **parameters(before.result())))

    def close(self) -> None:
        """Wait for the runs submitted and stop the workers."""
        self.pool.shutdown(wait=True, cancel_futures=True)
