"""Running untrusted student code: the trust boundary of the course.

========================  =====================================================  ===========
module                    what it does                                           runs
========================  =====================================================  ===========
:mod:`.inside`            executes a student's cells, calls their functions      **inside**
                          (standard library only; the one file in the sandbox)
:mod:`.bwrap`             the bubblewrap command line and resource limits        grader
:mod:`.session`           starts a sandbox, answers the student's game calls,    grader
                          turns their functions into grader-side callables
========================  =====================================================  ===========

Everything else of the course (searches, checks, gradebook, nbgrader) runs on
the grader's side and is never visible inside a sandbox.  See
:mod:`course.grading.job.sandboxed` for how autograding uses this.
"""

from __future__ import annotations

from .bwrap import Limits, PackagesUnavailable, SandboxUnavailable, bwrap_path, check_sandbox
from .session import CellResult, RemoteFunction, SessionError, StudentCodeError, StudentSession

__all__ = ["Limits", "SandboxUnavailable", "PackagesUnavailable", "bwrap_path", "check_sandbox", "sandbox_available",
           "StudentSession", "RemoteFunction", "StudentCodeError", "SessionError", "CellResult"]


def sandbox_available() -> bool:
    """True if a bubblewrap sandbox can be started on this machine (whether or not it can offer
    the course environment's packages: :class:`PackagesUnavailable`)."""
    try:
        check_sandbox()
    except PackagesUnavailable:
        return True
    except SandboxUnavailable:
        return False
    return True
