"""Grading jobs on a Dask cluster: ``python -m course.grading autograde --cluster ADDRESS``.

The instructor's process stages and repairs every submission as the local pool does, makes one
:class:`~.data.AssignmentBundle` per assignment, sends each submission as a
:class:`~.data.GradingJob` to a Dask scheduler (``distributed.Client.submit`` of
:func:`~.data.run_job`), and writes each batch of results into the gradebook and ``autograded/``
as they come back (:mod:`.writer`).  The workers need the course's Python package (the same
version: a job checks it), bubblewrap, and nothing of the course folder.

**Why Dask distributed.**  It is an engine made for exactly this -- Python functions on data, run
on a pool of machines, the results back in the submitting process -- and one ``Client`` API
covers every deployment an instructor may have: a scheduler and workers started by hand
(``dask scheduler``, ``dask worker``), a batch system (dask-jobqueue's ``SLURMCluster``,
``PBSCluster``, ``HTCondorCluster`` start the workers as batch jobs), Kubernetes (the Dask
Kubernetes operator's ``KubeCluster``) and ``LocalCluster`` for tests.  A job whose worker dies
(a node lost, a pod evicted) is run again on another worker by the scheduler itself
(``distributed.scheduler.allowed-failures``); a job here is idempotent (it writes only its own
temporary folder, and only this process writes the course), so running it twice is harmless.
Compared with the alternatives:

* *Kubernetes Indexed Jobs* (one pod per submission, as TU Wien's Grader-Service does) need
  Kubernetes, a container image of the course, a way to hand each pod its submission and to
  collect its result (a volume, an object store), and their own retry bookkeeping; a pod start
  costs seconds against a job's fraction of a second; and nothing of it runs on Slurm or a
  laptop.
* *Celery* needs a broker (RabbitMQ, Redis) and a result backend to run and secure besides the
  workers, results come back through that backend rather than to the caller, and a task lost
  with its worker is redelivered only with late acknowledgement and a visibility timeout tuned
  to the longest job.

**TLS.**  Over ``tls://`` every connection is encrypted and both ends show a certificate signed
by the cluster's own certificate authority (Dask's ``--tls-*`` options and its
``distributed.comm.tls.*`` settings: docs/instructor/cluster.md, "TLS with certificates").
:func:`cluster_security` checks the settings against the address before anything is sent, and
:func:`connect` says what is wrong when the scheduler cannot be reached or refuses the
certificate, instead of Dask's traceback.

**Limits.**  Every limit of a submission is inside the job: the sandbox's caps and time limits,
and the wall-clock limit on the grading worker the job starts (killed with its sandboxes at
``submission_timeout + WORKER_MARGIN``), so a submission that hangs or floods its output ends
as locally, with the same record.

**Time limits.**  A job whose grading reached a time limit (a cell's, a test's search's, the
grader's wait for an answer: :func:`~.queue.time_limits_reached`) is sent again once every
other job has come back, one such job at a time, and its second grading is its grade, as the
local pool does (docs/instructor/grading-limits.md).  On a cluster, "alone" means that no other
job of this run is on the cluster meanwhile; a worker's machine may still be busy with other
work (another run, other users), which this run does not control.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

from ..term.course_dir import CourseLayout, gradebook
from ..term.results.report import GradeRecord, read_report
from .data import JobResult, build_bundle, make_job, run_job
from .writer import write_files, write_result

__all__ = ["run_cluster_jobs", "cluster_security", "connect", "CONNECT_TIMEOUT"]

#: Seconds to wait for the scheduler to answer, and for a first worker to join it.
CONNECT_TIMEOUT = 30
WORKERS_TIMEOUT = 120

#: Where an instructor reads how to give Dask the certificates.
TLS_DOCS = "docs/instructor/cluster.md, section \"TLS with certificates\""
#: Dask's settings of a client's TLS: (setting, its environment variable).
_TLS_SETTINGS = {
    "tls_ca_file": ("distributed.comm.tls.ca-file", "DASK_DISTRIBUTED__COMM__TLS__CA_FILE"),
    "tls_client_cert": ("distributed.comm.tls.client.cert", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"),
    "tls_client_key": ("distributed.comm.tls.client.key", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"),
}


def _workflow_error(message: str) -> Exception:
    from ..term.course_dir import WorkflowError

    return WorkflowError(message)


def _distributed() -> None:
    """Nothing if Dask distributed is installed, else a WorkflowError that says how to install it."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise _workflow_error("grading on a cluster needs Dask distributed: pip install "
                              "'course[cluster]' (or: pip install distributed)") from None


def cluster_security(address: str, security: Any = None) -> Any:
    """The TLS settings a client of the scheduler at ``address`` uses, checked against it.

    Parameters
    ----------
    address : str
        The scheduler's address, ``tls://host:port`` or ``tcp://host:port``.
    security : distributed.security.Security, optional
        Default: Dask's configuration (``distributed.comm.tls.*``,
        ``distributed.comm.require-encryption``; ``~/.config/dask/*.yaml`` or ``DASK_*``
        environment variables).

    Returns
    -------
    distributed.security.Security

    Raises
    ------
    WorkflowError
        If ``address`` is ``tls://`` and the settings lack the certificate authority or the
        client's certificate, or its files cannot be loaded; or if the settings require
        encryption and ``address`` is not ``tls://``.  Nothing is sent in any case.

    Examples
    --------
    >>> from distributed.security import Security
    >>> from course.grading.term.course_dir import WorkflowError
    >>> cluster_security("tcp://127.0.0.1:8786", Security(require_encryption=False)).require_encryption
    False
    >>> try:
    ...     cluster_security("tls://127.0.0.1:8786", Security(require_encryption=False))
    ... except WorkflowError as exc:
    ...     print("lack distributed.comm.tls.ca-file, distributed.comm.tls.client.cert:" in str(exc))
    True
    """
    _distributed()
    from distributed.comm import parse_address
    from distributed.security import Security

    if security is None:
        security = Security()
    scheme, _ = parse_address(address)
    if scheme == "tls":
        needed = ("tls_ca_file", "tls_client_cert")
        missing = [_TLS_SETTINGS[n][0] for n in needed if not getattr(security, n, None)]
        if missing:
            variables = ", ".join(v for _, v in _TLS_SETTINGS.values())
            raise _workflow_error(
                f"the scheduler's address {address} is tls:// but Dask's settings for this client "
                f"lack {', '.join(missing)}: give Dask the cluster's certificate authority and "
                f"your certificate and key (distributed.comm.tls.ca-file, "
                f"distributed.comm.tls.client.cert and .key, in ~/.config/dask/distributed.yaml, "
                f"or the variables {variables}); see {TLS_DOCS}")
        absent = [f"{setting} = {path}" for name, (setting, _) in _TLS_SETTINGS.items()
                  for path in [getattr(security, name, None)]
                  if path and "\n" not in path and not os.path.isfile(path)]   # (or the PEM text)
        if absent:
            raise _workflow_error(f"Dask's TLS settings for this client name files that do not exist: "
                                  f"{', '.join(absent)}; see {TLS_DOCS}")
        try:
            context = security.get_connection_args("client").get("ssl_context")
        except (OSError, ValueError) as exc:      # ssl.SSLError is an OSError
            raise _workflow_error(
                f"Dask's TLS settings for this client could not be loaded ({_reason(exc)}): "
                f"check the files named by distributed.comm.tls.ca-file, "
                f"distributed.comm.tls.client.cert and .key (the key must be the certificate's); "
                f"see {TLS_DOCS}") from None
        if context is None:                       # another kind of Security object
            raise _workflow_error(f"no TLS settings for a client of {address}; see {TLS_DOCS}")
    elif getattr(security, "require_encryption", False):
        raise _workflow_error(
            f"Dask's settings require encryption (distributed.comm.require-encryption) and "
            f"{address} is not encrypted: give the scheduler's tls:// address (nothing was "
            f"sent); see {TLS_DOCS}")
    return security


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in one line: a TLS error among ``exc``'s causes (an alert, a
    certificate refused), else the deepest cause that says something, else ``exc``."""
    import asyncio
    import ssl

    chain: list[BaseException] = []
    while exc is not None and all(exc is not e for e in chain):
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    telling = [e for e in chain if str(e).strip() and not isinstance(e, asyncio.CancelledError)]
    tls = [e for e in chain if isinstance(e, ssl.SSLError)]
    last = (tls or telling or chain)[-1]
    text = " ".join(str(last).split()) or type(last).__name__
    return f"{type(last).__name__}: {text}"[:300]


def connect(address: str, security: Any = None, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address`` (:func:`cluster_security`'s
    settings), or a WorkflowError that says why not and what to check.

    Raises
    ------
    WorkflowError
        If the settings do not fit the address (:func:`cluster_security`), or the scheduler
        cannot be reached or refuses this client (over TLS: a certificate its authority did not
        sign, or none).
    """
    _distributed()
    from distributed import Client
    from distributed.comm import parse_address

    security = cluster_security(address, security)
    try:
        return Client(address, timeout=timeout, set_as_default=False, security=security)
    except Exception as exc:  # noqa: BLE001 - OSError, a TLS alert, a timeout: all said the same way
        reason = _reason(exc)
    if parse_address(address)[0] == "tls":
        hint = ("check that the scheduler runs there with TLS, that distributed.comm.tls.ca-file is "
                "the certificate authority it was started with (--tls-ca-file), and that your "
                "certificate (distributed.comm.tls.client.cert) was signed by that authority: the "
                "scheduler refuses any other certificate, or none")
    else:
        hint = ("check the address and that the scheduler runs; a scheduler started with TLS "
                "(--tls-ca-file, --tls-cert, --tls-key) takes only a tls:// address and your "
                "certificate")
    raise _workflow_error(f"could not connect to the Dask scheduler at {address} ({reason}): "
                          f"{hint}; see {TLS_DOCS}") from None


def bundle_value(bundle: Any) -> Any:
    """The task that holds an assignment's bundle on the workers (see :func:`run_cluster_jobs`)."""
    return bundle


def _lost(job: tuple[str, str], why: str) -> JobResult:
    return JobResult(job[0], job[1], {"success": False, "error": why})


def run_cluster_jobs(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
                     cell_timeout: int, submission_timeout: float, done: Any, *, address: str,
                     sandbox: bool = True, begin: Any = None, log: Any = None,
                     security: Any = None) -> None:
    """Grade every staged job on the Dask cluster at ``address``; as :func:`~course.grading.
    autograde.queue.run_jobs` (same ``begin``/``done`` calls, same records, same interrupt).

    Parameters
    ----------
    address : str
        The scheduler's address, e.g. ``tcp://10.0.0.5:8786`` or ``tls://...``.
    security : distributed.security.Security, optional
        TLS settings (default: Dask's configuration, ``distributed.comm.tls.*``; checked by
        :func:`cluster_security`).
    """
    _distributed()
    from distributed import as_completed
    from .integrity import IntegrityError, IntegrityWatch
    from .queue import (_hand_grades, interrupted, not_graded, note_graded_again, record_outcome,
                        time_limits_reached)
    from .worker import lighter_nbgrader

    lighter_nbgrader()
    watch = IntegrityWatch(layout.root)
    lock = staging / ".gradebook.lock"
    previous = read_report(layout)
    bundles = {a: build_bundle(layout, a, cell_timeout=cell_timeout,
                               submission_timeout=submission_timeout, sandboxed=sandbox)
               for a in sorted({a for _, a in records})}
    client = connect(address, security)
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except Exception:  # noqa: BLE001 - TimeoutError (its kind differs between versions)
        client.close()
        raise _workflow_error(f"no worker joined the Dask scheduler at {address} within "
                            f"{WORKERS_TIMEOUT} s: start workers (docs/instructor/cluster.md)") from None
    futures: dict[Any, tuple[str, str]] = {}
    in_flight: set[tuple[str, str]] = set()
    finished: set[tuple[str, str]] = set()
    kept: dict[tuple[str, str], dict] = {}
    started: dict[tuple[str, str], float] = {}
    # jobs whose first grading reached a time limit: {job: (kept, timed, seconds)}
    again: dict[tuple[str, str], tuple[dict, list[str], float]] = {}
    run = uuid.uuid4().hex[:12]
    error = None
    try:
        # each bundle is a task of its own, not scattered data: if the workers holding it die,
        # the scheduler computes it again from its arguments (scattered data would be lost)
        shared = {a: client.submit(bundle_value, b, pure=False, key=f"course-bundle-{run}-{i}")
                  for i, (a, b) in enumerate(bundles.items())}
        for job, record in records.items():
            try:
                unchanged = previous.get(f"{job[0]}/{job[1]}", {}).get("submission_sha") == \
                    record.submission_sha
                kept[job] = _hand_grades(layout, job, lock) if unchanged else {}
                data = make_job(job[0], job[1], staging / job[0] / job[1])
            except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                record.status = "failed"
                record.reason = "; ".join(r for r in (record.reason, f"could not be graded: "
                                                      f"{type(exc).__name__}: {exc}") if r)
                finished.add(job)
                done(record)
                continue
            if begin is not None:
                begin(record)             # the report says "grading" until it is done
            in_flight.add(job)
            started[job] = time.perf_counter()
            future = client.submit(run_job, shared[job[1]], data, pure=False,
                                   key=f"course-grade-{run}-{len(futures)}")
            futures[future] = job
        if log is not None and futures:
            log(f"{len(futures)} submission(s) sent to the cluster at {address}")

        def result_of(future: Any) -> JobResult:
            job = futures[future]
            try:
                result = future.result()
                if (result.student, result.assignment) != job:
                    result = _lost(job, "the worker returned the result of another job")
            except Exception as exc:  # noqa: BLE001 - KilledWorker, a JobError: said in the record
                result = _lost(job, f"{type(exc).__name__}: {exc}")
            future.release()
            return result

        def record_results(results: list[JobResult], *, second: bool) -> Any:
            """Write a batch of results and their records (``done``); the tripwire's error or
            None.  In the first pass, a job whose grading reached a time limit is kept aside
            (not written, still in flight) for its second grading."""
            if not second:
                for result in list(results):
                    job = (result.student, result.assignment)
                    timed = time_limits_reached(result.message)
                    if timed:
                        again[job] = (kept.get(job, {}), timed,
                                      time.perf_counter() - started[job])
                        results.remove(result)
            # one gradebook session for the batch: only this process writes the gradebook
            with gradebook(layout) as gb:
                for result in results:
                    try:
                        write_result(gb, result)
                    except Exception as exc:  # noqa: BLE001 - the record says it
                        gb.db.rollback()
                        result.message = {"success": False, "error": f"its result could not be "
                                          f"written to the gradebook: {type(exc).__name__}: {exc}"}
            for result in results:
                job = (result.student, result.assignment)
                record = records[job]
                try:
                    write_files(layout.autograded, result)
                    before = again[job][2] if second else 0.0
                    record.seconds = round(before + time.perf_counter() - started[job], 2)
                    record_outcome(layout, record, result.message, kept.get(job, {}), lock)
                    if second:
                        note_graded_again(record, again[job][1],
                                          time_limits_reached(result.message))
                except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                    record.status = "failed"
                    record.reason = "; ".join(r for r in (record.reason, f"could not be graded: "
                                                          f"{type(exc).__name__}: {exc}") if r)
                in_flight.discard(job)
                finished.add(job)
                found = None
                try:
                    watch.check(f"{job[0]}/{job[1]}")
                except IntegrityError as exc:
                    found = exc
                done(record)
                if found is not None:
                    return found
            return None

        batches = as_completed(list(futures), loop=client.loop, with_results=False)
        for batch in batches.batches():
            error = record_results([result_of(future) for future in batch], second=False)
            if error is not None:
                client.cancel(list(futures))
                break
        # the second grading of the jobs whose first reached a time limit, after every other
        # job of the class and one at a time (no other job of this run on the cluster then;
        # what else the worker's machine runs is not this run's to decide)
        for job in sorted(again) if error is None else ():
            try:
                data = make_job(job[0], job[1], staging / job[0] / job[1])
            except Exception as exc:  # noqa: BLE001 - said in the record
                result = _lost(job, f"could not be sent again: {type(exc).__name__}: {exc}")
            else:
                started[job] = time.perf_counter()
                future = client.submit(run_job, shared[job[1]], data, pure=False,
                                       key=f"course-grade-{run}-again-{len(futures)}")
                futures[future] = job
                result = result_of(future)
            error = record_results([result], second=True)
            if error is not None:
                break
    except KeyboardInterrupt:
        try:
            client.cancel(list(futures))
        except Exception:  # noqa: BLE001 - stopping anyway
            pass
        interrupted(layout, in_flight, lock)
    finally:
        client.close()
    why = f"grading stopped: {error}" if error is not None else "the cluster did not return it"
    not_graded(records, finished, why, done)
    if error is not None:
        raise error
