"""The `python -m course search` contract, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

AIMA = "[[3,12,8],[2,4,6],[14,5,2]]"


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "course", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def aima_file(tmp_path):
    path = tmp_path / "aima.json"
    path.write_text(AIMA)
    return path


def test_search_json_contract(aima_file):
    proc = run("search", "alphabeta", str(aima_file), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == {
        "algorithm": "alphabeta", "value": 3, "lower": 3, "upper": 3, "move": 0,
        "expanded": 4, "evaluated": 7,
        "leaves": [[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1], [2, 2]],
    }


def test_search_reads_stdin_and_bounds_flags():
    proc = run("search", "bab", "-", "--epsilon", "2", "--vmin", "0", "--vmax", "20", "--json",
               stdin=AIMA)
    out = json.loads(proc.stdout)
    assert out["value"] is None and out["upper"] - out["lower"] <= 2
    assert out["lower"] <= 3 <= out["upper"]


def test_search_file_bounds_and_order(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"tree": json.loads(AIMA), "bounds": [0, 20]}))
    out = json.loads(run("search", "star1", str(path), "--order", "best-first", "--json").stdout)
    assert out["value"] == 3 and out["evaluated"] == 5  # 3^1 + 3^1 - 1


def test_human_readable_summary(aima_file):
    proc = run("search", "minimax", str(aima_file))
    assert proc.returncode == 0
    assert "value 3" in proc.stdout and "evaluated 9 leaves" in proc.stdout


@pytest.mark.parametrize("args, stdin, message", [
    (["search", "alphabeta", "-"], "[1, 2", "malformed JSON"),
    (["search", "alphabeta", "-"], '{"chance": [[0.5, 1], [0.5, 2]]}', "chance node"),
    (["search", "minimax", "-"], '{"mux": [1]}', "unknown node kind"),
    (["search", "bab", "-", "--epsilon", "-1"], AIMA, "epsilon"),
    (["search", "bab", "-", "--vmax", "5"], AIMA, "outside the bounds"),
    (["search", "alphabeta", "-", "--epsilon", "1"], AIMA, "--epsilon applies"),
    (["search", "nosuch", "-"], AIMA, "invalid choice"),
    (["search", "minimax", "/no/such/file.json"], None, "cannot read"),
    (["search", "minimax", "-", "--order", "sideways"], AIMA, "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(args, stdin, message):
    proc = run(*args, stdin=stdin)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert "Traceback" not in proc.stderr
