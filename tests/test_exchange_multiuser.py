"""nbgrader's exchange on one machine with real Unix accounts: students attack it (issue 19, item 4).

Four student accounts are created for the test (and removed after it); the instructor is this
process's account (root).  Alice submits honestly; Mallory submits in Alice's name with a newer
name, and forges her own ``timestamp.txt``; Bob puts a link to the instructor's solution (which
he may not read) in his entry; Trudy leaves a FIFO in hers; Mallory also tries to take over the
exchange (rename the course's folder, remove the release, remove Alice's entry).

With nbgrader's own exchange classes every attack works (``test_nbgraders_exchange_...``: the
attack first); with the course's (``course/grading/term/intake/exchange``, set in
``nbgrader_config.py``) none does, and every honest submission is collected.

Skipped, with the reason, when not root or without ``useradd``/``runuser``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from test_grading_support import copy_course

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

A1, NB = "a1_minimax", "minimax.ipynb"
COURSE_ID = "game-tree-search"


def _tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin:/bin")


def _why_not() -> str | None:
    if sys.platform != "linux":
        return "real Unix accounts need Linux"
    if os.geteuid() != 0:
        return "this test creates Unix accounts: run it as root"
    for tool in ("useradd", "userdel", "runuser"):
        if _tool(tool) is None:
            return f"this test needs {tool}"
    return None


def _nb(tag: str) -> str:
    return json.dumps({"cells": [], "metadata": {"tag": tag}, "nbformat": 4, "nbformat_minor": 5})


@pytest.fixture(scope="module")
def accounts():
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    tag = secrets.token_hex(3)
    names = {role: f"cx{tag}{role[0]}" for role in ("alice", "bob", "mallory", "trudy")}
    created = []
    try:
        for name in names.values():
            subprocess.run([_tool("useradd"), "--no-create-home", "--user-group", "--shell", "/bin/sh", name],
                           check=True, capture_output=True)
            created.append(name)
        yield names
    finally:
        for name in created:
            subprocess.run([_tool("userdel"), name], capture_output=True)
            if _tool("groupdel"):
                subprocess.run([_tool("groupdel"), name], capture_output=True)


def _as(user: str, script: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([_tool("runuser"), "-u", user, "--", "sh", "-c", script], capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    if check and done.returncode != 0:
        raise AssertionError(f"{user}: {script}\n{done.stderr}")
    return done


def _stamp(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@pytest.fixture(scope="module")
def attacked(accounts):
    """The exchange after the class submitted and attacked; returns the paths and names."""
    base = Path(tempfile.mkdtemp(prefix="course-exchange-", dir="/tmp"))
    os.chmod(base, 0o755)
    old = os.environ.get("COURSE_EXCHANGE")
    os.environ["COURSE_EXCHANGE"] = str(base / "exchange")
    try:
        from course.grading.term.course_dir import course_layout, nbgrader_api, prepare

        root = copy_course(base / "course")
        (root / "roster.csv").write_text("id\n" + "".join(f"{sid}\n" for sid in accounts.values()))
        prepare(root)
        api = nbgrader_api(course_layout(root))
        result = api.release_assignment(A1)
        assert result["success"], result
        exchange = base / "exchange"
        inbound = exchange / COURSE_ID / "inbound"
        secret = base / "secret-solution.ipynb"           # the instructor's: students may not read it
        secret.write_text(_nb("the instructor's solution"))
        os.chmod(secret, 0o600)
        files = base / "from-students"
        files.mkdir(mode=0o755)
        for role in accounts:
            (files / f"{role}.ipynb").write_text(_nb(f"{role}'s work"))
        (files / "mallory-as-alice.ipynb").write_text(_nb("mallory's work, in alice's name"))
        for p in files.iterdir():
            os.chmod(p, 0o644)
        now = dt.datetime.now(dt.timezone.utc)
        a, b, m, t = (accounts[r] for r in ("alice", "bob", "mallory", "trudy"))

        def entry(user, owner_name, when, label, mode="755"):
            name = f"{owner_name}+{A1}+{_stamp(when)}+{secrets.token_urlsafe(6)}"
            path = inbound / name
            return name, path, (f"mkdir '{path}' && cp '{files}/{label}.ipynb' '{path}/{NB}' && "
                                f"printf '%s' '{_stamp(when)}' > '{path}/timestamp.txt' && chmod {mode} '{path}'")

        alice_name, alice_entry, script = entry(a, a, now, "alice")
        _as(a, script)
        _, _, script = entry(m, a, now + dt.timedelta(days=365 * 70), "mallory-as-alice")
        _as(m, script)                                            # in alice's name, "newer"
        forged = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
        _, _, script = entry(m, m, now, "mallory")
        _as(m, script.replace(_stamp(now) + "' > ", _stamp(forged) + "' > "))   # forged timestamp.txt
        _, bob_entry, script = entry(b, b, now, "bob")
        _as(b, script + f" && rm '{bob_entry}/{NB}' && ln -s '{secret}' '{bob_entry}/{NB}'")
        _, trudy_entry, script = entry(t, t, now, "trudy")
        _as(t, script + f" && mkfifo '{trudy_entry}/notes.txt'")
        # taking over the exchange
        takeover = {
            "rename the course's folder": _as(m, f"mv '{exchange / COURSE_ID}' '{exchange}/mine'", check=False),
            "remove the release": _as(m, f"rm -rf '{exchange / COURSE_ID / 'outbound' / A1}'", check=False),
            "remove alice's entry": _as(m, f"rm -rf '{alice_entry}'", check=False),
            "replace alice's notebook": _as(m, f"rm -f '{alice_entry}/{NB}'", check=False),
        }
        yield dict(root=root, base=base, accounts=accounts, takeover=takeover, forged=forged, now=now,
                   exchange=exchange, secret=secret)
    finally:
        if old is None:
            os.environ.pop("COURSE_EXCHANGE", None)
        else:
            os.environ["COURSE_EXCHANGE"] = old
        with contextlib.suppress(OSError):
            shutil.rmtree(base)


def _collect(root: Path, *, nbgraders_own: bool, student: str | None = None,
             into: Path | None = None) -> dict:
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from course.grading.term.course_dir import course_config

    config = course_config(root)
    if nbgraders_own:
        del config["ExchangeFactory"]
    if into is not None:
        config.CourseDirectory.submitted_directory = str(into)
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    if student is None:
        return api.collect(A1)
    api.coursedir.student_id = student
    return api.collect(A1)


def _tag(path: Path) -> str:
    return json.loads(path.read_text())["metadata"]["tag"]


def test_nbgraders_exchange_lets_every_attack_through(attacked, tmp_path):
    """The attack first: nbgrader's own classes, one student at a time (the FIFO stops everyone)."""
    root, who = attacked["root"], attacked["accounts"]
    out = tmp_path / "submitted"
    for role in ("alice", "bob", "mallory"):
        _collect(root, nbgraders_own=True, student=who[role], into=out)
    assert _tag(out / who["alice"] / A1 / NB) == "mallory's work, in alice's name"
    assert _tag(out / who["bob"] / A1 / NB) == "the instructor's solution"
    assert (out / who["mallory"] / A1 / "timestamp.txt").read_text().startswith("2000-01-01")
    everyone = tmp_path / "submitted-all"
    result = _collect(root, nbgraders_own=True, into=everyone)
    assert not result["success"] and "named pipe" in result["error"]


def test_the_shared_exchange_cannot_be_taken_over(attacked):
    takeover = attacked["takeover"]
    assert all(done.returncode != 0 for done in takeover.values()), {
        k: v.stderr for k, v in takeover.items() if v.returncode == 0}
    exchange = attacked["exchange"]
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777
    inbound = exchange / COURSE_ID / "inbound"
    assert inbound.stat().st_mode & stat.S_ISVTX and not inbound.stat().st_mode & stat.S_IROTH
    assert (exchange / COURSE_ID / "outbound" / A1 / NB).is_file()


def test_the_course_collects_every_honest_submission_and_refuses_the_attacks(attacked):
    root, who = attacked["root"], attacked["accounts"]
    result = _collect(root, nbgraders_own=False)
    submitted = root / "submitted"
    assert _tag(submitted / who["alice"] / A1 / NB) == "alice's work"
    assert _tag(submitted / who["mallory"] / A1 / NB) == "mallory's work"
    stamp = (submitted / who["mallory"] / A1 / "timestamp.txt").read_text()
    collected_at = dt.datetime.strptime(stamp[:26], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
    assert abs(collected_at - attacked["now"]) < dt.timedelta(minutes=10), stamp     # the collector's time
    assert not (submitted / who["bob"]).exists()                 # a link: refused, nothing to fall back to
    # a FIFO: left out and named, never opened (no hang); the rest of trudy's entry is collected
    assert _tag(submitted / who["trudy"] / A1 / NB) == "trudy's work"
    assert not (submitted / who["trudy"] / A1 / "notes.txt").exists()
    everything = "".join(p.read_text(errors="replace") for p in submitted.rglob("*") if p.is_file())
    assert "the instructor's solution" not in everything
    assert result["success"] is False                            # and it says why, entry by entry
    log = result["log"] + result.get("error", "")
    assert f"submitted in the name of '{who['alice']}' by the account '{who['mallory']}'" in log
    assert "is a symbolic link" in log and "notes.txt: a FIFO (named pipe), not a file" in log
