"""Grading on a Dask cluster over TLS with certificates, as docs/instructor/cluster.md says.

The page's own commands (its code blocks, run as written) make a private certificate authority
with a certificate for the scheduler and workers and one for the instructor, and a second
authority's (an outsider's).  A real ``dask scheduler`` and two ``dask worker`` processes are
started with ``--tls-ca-file/--tls-cert/--tls-key`` (tests/cluster_support.py).  Then:

* ``python -m course.grading autograde --cluster tls://...``, in its own process with the page's
  ``distributed.yaml`` (``DASK_CONFIG``), grades a small class to exactly the local pool's
  grades; one submission looks for the certificates and connects to the scheduler's port from
  its sandbox, and finds and reaches nothing;
* nobody without a certificate of the authority connects to the scheduler or to a worker: plain
  ``tcp://``, TLS with no certificate, with another authority's (refused within seconds), while
  the page's environment variables connect;
* ``autograde`` without the certificate, or with another authority's, fails with a message that
  says what to do (not Dask's traceback), and changes no grade; and, without a cluster, the
  settings a client gives are checked against the address before anything is sent (a setting or
  a file missing, a key not the certificate's, ``tcp://`` where encryption is required).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import term_support  # noqa: E402
from cluster_support import Cluster, TLSFiles, copy_course, results  # noqa: E402
from term_support import A, ROOT, due_date, ok, tiny_class  # noqa: E402


pytest.importorskip("distributed")

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

PAGE = ROOT / "docs" / "instructor" / "cluster.md"
#: Where the page's configuration says the instructor keeps the certificates.
PLACEHOLDER = "/home/instructor/grading-tls"
CELL_TIMEOUT = "4"
#: Seconds a client may take to be refused (each attempt is given 5).
REFUSED_WITHIN = 10


def page_block(needle: str) -> str:
    """The one fenced code block of the page that contains ``needle``."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    found = [b for b in blocks if needle in b]
    assert len(found) == 1, f"{len(found)} code blocks of {PAGE.name} contain {needle!r}"
    return found[0]


def make_certificates(folder: Path) -> Path:
    """Run the page's commands in ``folder``; the folder they leave the files in."""
    folder.mkdir(parents=True)
    done = subprocess.run(["sh", "-e", "-c", page_block("openssl req -x509")], cwd=folder,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    made = folder / "grading-tls"
    assert {p.name for p in made.glob("*.pem")} == {"ca.pem", "ca-key.pem", "node.pem",
                                                     "node-key.pem", "instructor.pem",
                                                     "instructor-key.pem"}
    assert all(p.stat().st_mode & 0o077 == 0 for p in made.glob("*-key.pem"))
    return made


def tls_files(made: Path) -> TLSFiles:
    return TLSFiles(made / "ca.pem", made / "node.pem", made / "node-key.pem",
                    made / "instructor.pem", made / "instructor-key.pem")


def page_environment(made: Path) -> dict[str, str]:
    """The page's ``export DASK_...=...`` lines, with the certificates' folder."""
    pairs = re.findall(r"^export (DASK_\w+)=(\S+)$", page_block("DASK_DISTRIBUTED__COMM__TLS__CA_FILE"),
                       re.M)
    assert len(pairs) == 4
    return {k: v.replace(PLACEHOLDER, str(made)) for k, v in pairs}


def page_config(made: Path, folder: Path) -> Path:
    """A Dask configuration folder (``DASK_CONFIG``) with the page's ``distributed.yaml``."""
    folder.mkdir(parents=True)
    text = page_block("require-encryption: true").replace(PLACEHOLDER, str(made))
    (folder / "distributed.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """The course's authority and certificates, and an outsider's (another authority)."""
    base = tmp_path_factory.mktemp("tls")
    return tls_files(make_certificates(base / "ours")), tls_files(make_certificates(base / "other"))


@pytest.fixture(scope="module")
def tls_cluster(pki):
    cluster = Cluster(workers=2, tls=pki[0])
    try:
        yield cluster
    finally:
        cluster.close()


def _prying_code(cluster: Cluster, pki: TLSFiles) -> str:
    """An answer right only if it finds no certificate or key and cannot reach the scheduler."""
    port = int(cluster.address.rsplit(":", 1)[1])
    return (
        "import glob, os, socket\n"
        "def square(x):\n"
        f"    found = [p for p in ({str(pki.ca.parent)!r}, {str(cluster.folder)!r}) if os.path.exists(p)]\n"
        "    found += glob.glob('/tmp/**/*.pem', recursive=True)\n"
        "    found += [k for k in os.environ if k.startswith('DASK_')]\n"
        "    try:\n"
        f"        socket.create_connection(('127.0.0.1', {port}), timeout=2).close()\n"
        "        found.append('the scheduler')\n"
        "    except OSError:\n"
        "        pass\n"
        "    return -1 if found else x * x\n")


#: Students and what they hand in (a kind of term_support.CODE).
STUDENTS = {"ada": "right", "bob": "wrong", "cy": "prying"}


@pytest.fixture(scope="module")
def tls_class(tmp_path_factory, tls_cluster, pki):
    """The class (ungraded, as a template) and a copy graded by the local pool."""
    term_support.CODE["prying"] = _prying_code(tls_cluster, pki[0])
    outside = {}                      # outside a sandbox it finds the keys and the scheduler
    exec(term_support.CODE["prying"], outside)
    assert outside["square"](3) == -1
    base = tmp_path_factory.mktemp("tls-class")
    due = due_date()
    template = tiny_class(base / "template", {s: (kind, "Because x times x.", due - dt.timedelta(hours=2))
                                              for s, kind in STUDENTS.items()})
    (template / ".grading-secret").write_text("the same secret for every copy\n", encoding="utf-8")
    local = copy_course(template, base / "local")
    ok(local, "autograde", "--timeout", CELL_TIMEOUT, "--jobs", "2")
    return base, template, local


def autograde_cli(root: Path, address: str, **env: str) -> subprocess.CompletedProcess:
    """``python -m course.grading autograde --cluster ADDRESS`` in a process of its own, with
    Dask's configuration from ``env`` only (``DASK_CONFIG`` an empty folder unless given)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    empty = root.parent / "no-dask-config"
    empty.mkdir(exist_ok=True)
    environment.update({"DASK_CONFIG": str(empty), **env})
    return subprocess.run([sys.executable, "-m", "course.grading", "--root", str(root), "autograde",
                           "--timeout", CELL_TIMEOUT, "--cluster", address], cwd=root,
                          env=environment, capture_output=True, text=True, timeout=300)


def test_grading_over_tls_equals_the_local_pool(tls_class, tls_cluster, pki):
    base, template, local = tls_class
    assert tls_cluster.address.startswith("tls://127.0.0.1:")
    remote = copy_course(template, base / "remote")
    config = page_config(pki[0].ca.parent, base / "dask-config")
    done = autograde_cli(remote, tls_cluster.address, DASK_CONFIG=str(config))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 submission(s) sent to the cluster at tls://" in done.stdout
    graded = results(remote)
    assert graded == results(local)
    by = {r["student"]: r for r in csv.DictReader(io.StringIO(graded[0])) if r["assignment"] == A}
    score = {s: float(by[s]["autograded_score"] or 0) for s in STUDENTS}
    # the prying answer found no certificate and no way to the scheduler, here and locally
    assert score == {"ada": 2, "bob": 0, "cy": 2}


def _refused(address: str, security) -> float:
    """Seconds until a ``distributed.Client`` with ``security`` is refused at ``address``; fails
    the test if it connects (and, connected, sends a task)."""
    from distributed import Client

    start = time.monotonic()
    try:
        client = Client(address, timeout=5, set_as_default=False, security=security)
    except Exception:  # noqa: BLE001 - refused: how (a TLS alert, a reset, a timeout) varies
        return time.monotonic() - start
    with client:
        ran = client.submit(os.getpid, pure=False).result(timeout=30)
    pytest.fail(f"connected to {address} and ran a task in process {ran}")


def _outsider(context: ssl.SSLContext):
    """Dask's Security, but with an SSL context of an outsider's making (Dask's own settings
    cannot leave the client's certificate out of a TLS connection)."""
    from distributed.security import Security

    class Outsider(Security):
        def get_connection_args(self, role: str) -> dict:
            return dict(super().get_connection_args(role), ssl_context=context)

    return Outsider(require_encryption=True)


def _flat(settings: dict, prefix: str = "") -> dict:
    """Dask settings as ``{"distributed.comm.tls.ca-file": ...}`` (``dask.config.set`` of a nested
    dict replaces whole sections)."""
    flat = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _context(ca: Path | None, cert: TLSFiles | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    if ca is None:
        context.verify_mode = ssl.CERT_NONE         # trusts any scheduler
    else:
        context.load_verify_locations(str(ca))
    if cert is not None:
        context.load_cert_chain(str(cert.client_cert), str(cert.client_key))
    return context


def test_nobody_without_a_certificate_connects(tls_cluster, pki):
    import dask
    from distributed import Client
    from distributed.security import Security

    ours, other = pki
    with tls_cluster.client() as client:
        workers = sorted(client.scheduler_info()["workers"])
    assert len(workers) == 2 and all(w.startswith("tls://") for w in workers)
    for address in [tls_cluster.address, *workers]:
        plain = "tcp://" + address.split("://", 1)[1]
        attempts = {
            "plain tcp": (plain, Security(require_encryption=False)),
            "TLS, no certificate, trusting anyone": (address, _outsider(_context(None))),
            "TLS, no certificate, trusting the authority": (address, _outsider(_context(ours.ca))),
            "TLS, another authority's certificate": (address, _outsider(_context(ours.ca, other))),
            "another authority's files in Dask's settings": (address, other.security()),
        }
        for what, (target, security) in attempts.items():
            seconds = _refused(target, security)
            assert seconds < REFUSED_WITHIN, f"{what} at {target}: refused after {seconds:.1f} s"
    # the page's environment variables, as Dask reads them, connect to the scheduler and a worker
    settings = dask.config.collect(paths=[], env=page_environment(ours.ca.parent))
    with dask.config.set(_flat(settings)):
        security = Security()
        assert security.require_encryption
        with tls_cluster.client() as client, \
                Client(tls_cluster.address, timeout=30, set_as_default=False, security=security) as theirs:
            assert sorted(theirs.run(os.getpid)) == workers
            assert theirs.id in client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.clients))


def test_autograde_without_the_certificate_fails_clearly(tls_class, tls_cluster, pki):
    base, template, _ = tls_class
    ours, other = pki
    root = copy_course(template, base / "refused")
    before = results(root)
    outsider = {k: v.replace(str(ours.ca.parent), str(other.ca.parent))
                for k, v in page_environment(ours.ca.parent).items()
                if "CLIENT" in k}
    cases = {
        # nothing configured: says which settings are missing, and where (nothing is sent)
        "none": (tls_cluster.address, {}, ["distributed.comm.tls.ca-file",
                                            "distributed.comm.tls.client.cert"]),
        # the authority, but another authority's certificate: refused by the scheduler
        "another": (tls_cluster.address, {**page_environment(ours.ca.parent), **outsider},
                    ["could not connect", "signed by that authority"]),
    }
    for case, (address, env, words) in cases.items():
        start = time.monotonic()
        done = autograde_cli(root, address, **env)
        seconds = time.monotonic() - start
        said = done.stdout + done.stderr
        assert done.returncode != 0, f"{case}: {said}"
        assert "Traceback" not in said, f"{case}: {said}"
        assert "docs/instructor/cluster.md" in done.stderr, f"{case}: {said}"
        assert all(word in done.stderr for word in words), f"{case}: {said}"
        assert "sent to the cluster" not in said, f"{case}: {said}"
        assert seconds < 60, f"{case}: {seconds:.0f} s"
    assert results(root) == before


def test_the_settings_are_checked_against_the_address(pki, tmp_path):
    """What :func:`cluster_security` refuses before anything is sent (no scheduler needed)."""
    from distributed.security import Security

    from course.grading.job.cluster import cluster_security
    from course.grading.term.course_dir import WorkflowError

    ours, _ = pki
    tls, tcp = "tls://127.0.0.1:8786", "tcp://127.0.0.1:8786"
    assert cluster_security(tls, ours.security()) is not None
    assert cluster_security(tcp, Security(require_encryption=False)) is not None
    refused = {
        "lack distributed.comm.tls.ca-file": (tls, Security(tls_client_cert=str(ours.client_cert))),
        "lack distributed.comm.tls.client.cert": (tls, Security(tls_ca_file=str(ours.ca))),
        "distributed.comm.tls.client.key = " + str(tmp_path / "gone.pem"):
            (tls, Security(tls_ca_file=str(ours.ca), tls_client_cert=str(ours.client_cert),
                           tls_client_key=str(tmp_path / "gone.pem"))),
        "(the key must be the certificate's)":           # the node's key with the instructor's cert
            (tls, Security(tls_ca_file=str(ours.ca), tls_client_cert=str(ours.client_cert),
                           tls_client_key=str(ours.key))),
        "require encryption (distributed.comm.require-encryption) and tcp://": (tcp, ours.security()),
    }
    for words, (address, security) in refused.items():
        with pytest.raises(WorkflowError, match=re.escape(words)) as caught:
            cluster_security(address, security)
        assert "docs/instructor/cluster.md" in str(caught.value)
