"""A real Dask cluster for the cluster tests, and what they compare.

:class:`Cluster` starts a ``dask scheduler`` and ``dask worker`` processes (each worker in its
own empty folder, with nothing of the course in its environment), over plain TCP or, given
:class:`TLSFiles`, over TLS with certificates required of everyone.  :func:`results` is what a
graded course is compared by: ``grades.csv``, every score and comment in the gradebook and
every graded notebook.  Used by tests/test_grading_cluster.py, tests/test_grading_cluster_tls.py
and tests/benchmarks/bench_cluster.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import term_support
from term_support import A, NB, ok


def copy_course(template: Path, root: Path) -> Path:
    """A copy of an (ungraded) course, its configuration approved again (an approval names its
    course directory)."""
    shutil.copytree(template, root, symlinks=True)
    ok(root, "approve-config")
    return root


def gradebook_rows(root: Path) -> list[tuple]:
    """Every grade, comment and submission time of the course's gradebook, sorted."""
    from nbgrader.api import Gradebook

    rows = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        for sub in gb.assignment_submissions(A):
            for nb in sub.notebooks:
                for g in nb.grades:
                    rows.append((sub.student.id, nb.name, g.name, g.auto_score, g.manual_score,
                                 g.needs_manual_grade))
                for c in nb.comments:
                    rows.append((sub.student.id, nb.name, c.name, c.auto_comment))
            rows.append((sub.student.id, str(sub.timestamp)))
    return sorted(rows, key=repr)


def graded_outputs(root: Path) -> dict:
    """The graded notebooks' sources and outputs; the count of characters a flood printed before
    it was stopped (which depends on the machine's speed) left out."""
    out = {}
    for path in sorted((root / "autograded").glob(f"*/{A}/{NB}.ipynb")):
        text = re.sub(r"\.\.\. \(\d+ more characters not shown\)", "... (N more characters not shown)",
                      path.read_text(encoding="utf-8"))
        cells = json.loads(text)["cells"]
        out[path.parts[-3]] = [(c.get("source"), c.get("outputs")) for c in cells]
    return out


def results(root: Path) -> tuple[str, list, dict]:
    """``grades.csv``, the gradebook's rows and the graded notebooks: what two gradings of the
    same class must agree on."""
    text, _ = term_support.grades(root)
    return text, gradebook_rows(root), graded_outputs(root)


@dataclasses.dataclass(frozen=True)
class TLSFiles:
    """A private certificate authority's files: the scheduler's and workers' certificate
    (``cert``, ``key``) and the instructor's (``client_cert``, ``client_key``)."""

    ca: Path
    cert: Path
    key: Path
    client_cert: Path
    client_key: Path

    def security(self) -> Any:
        """The instructor's ``distributed.security.Security``."""
        from distributed.security import Security

        return Security(tls_ca_file=str(self.ca), tls_client_cert=str(self.client_cert),
                        tls_client_key=str(self.client_key), require_encryption=True)

    def node_arguments(self) -> list[str]:
        """The ``dask scheduler`` / ``dask worker`` options of docs/instructor/cluster.md."""
        return ["--tls-ca-file", str(self.ca), "--tls-cert", str(self.cert),
                "--tls-key", str(self.key)]


class Cluster:
    """A ``dask scheduler`` and ``dask worker`` processes, each worker in its own empty folder;
    with ``tls``, TLS with certificates (``tls://`` addresses) between them and for clients."""

    def __init__(self, workers: int = 2, tls: TLSFiles | None = None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="dask-test-"))
        self.tls = tls
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        scheduler_file = self.folder / "scheduler.json"
        self.scheduler = self._start([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                      "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(scheduler_file),
                                      *self._tls_arguments()], self.folder)
        try:
            deadline = time.monotonic() + 60
            while not scheduler_file.exists():
                assert time.monotonic() < deadline, "the scheduler did not start"
                assert self.scheduler.poll() is None, "the scheduler exited"
                time.sleep(0.2)
            time.sleep(0.2)
            self.address = json.loads(scheduler_file.read_text())["address"]
            for i in range(workers):
                self.add_worker(i)
            with self.client() as client:
                client.wait_for_workers(workers, timeout=120)
        except BaseException:
            self.close()
            raise

    @property
    def security(self) -> Any:
        """The instructor's TLS settings (``None`` over plain TCP)."""
        return self.tls.security() if self.tls is not None else None

    def client(self, timeout: float = 60) -> Any:
        """A ``distributed.Client`` of this cluster, as the instructor (with its certificate)."""
        from distributed import Client

        kwargs = {"security": self.security} if self.tls is not None else {}
        return Client(self.address, timeout=timeout, set_as_default=False, **kwargs)

    def _tls_arguments(self) -> list[str]:
        return self.tls.node_arguments() if self.tls is not None else []

    def _start(self, command: list[str], cwd: Path, env: dict | None = None) -> subprocess.Popen:
        proc = subprocess.Popen(command, cwd=str(cwd), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        return proc

    def add_worker(self, i: int) -> subprocess.Popen:
        home = self.folder / f"worker{i}"
        home.mkdir()
        # nothing of the course: no variable names its folder, none of the grading's settings
        env = {k: v for k, v in os.environ.items()
               if "pytest" not in v and not k.startswith("COURSE_") and k not in ("PWD", "OLDPWD")}
        env.update(HOME=str(home), TMPDIR=str(home), PWD=str(home))
        assert all("cluster-class" not in v for v in env.values())
        proc = self._start([sys.executable, "-m", "distributed.cli.dask_worker", self.address,
                            "--nthreads", "1", "--no-nanny", "--no-dashboard",
                            "--local-directory", str(home), "--name", f"worker{i}",
                            *self._tls_arguments()], home, env)
        self.workers.append(proc)
        return proc

    def close(self) -> None:
        """Stop the workers, then the scheduler (a worker whose scheduler went first waits for it
        until it is killed), each with SIGTERM, then SIGKILL after 15 s."""
        for group in (self.workers, [p for p in self.procs if p not in self.workers]):
            for proc in group:
                if proc.poll() is None:
                    try:
                        os.killpg(proc.pid, signal.SIGTERM)
                    except OSError:
                        pass
            for proc in group:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=15)
        shutil.rmtree(self.folder, ignore_errors=True)
