"""nbgrader's exchange on one shared machine, made safe by default (one module per verb).

nbgrader plugs exchange classes in with ``c.ExchangeFactory`` (the course's
``nbgrader_config.py`` sets these):

=====================  ===================================  ==========================================
verb                   class                                what changes from nbgrader's own
=====================  ===================================  ==========================================
``release_assignment`` :class:`.ExchangeReleaseAssignment`   sticky exchange root and ``inbound/``
``submit``             :class:`.ExchangeSubmit`              the entry ``0755``, not ``0777``
``collect``            :class:`.ExchangeCollect`             identity from the owner, time from the
                                                             collector, links/hard links refused,
                                                             FIFOs and devices left out
=====================  ===================================  ==========================================

``fetch_assignment``, ``fetch_feedback``, ``release_feedback`` and ``list``
stay nbgrader's (they read what the instructor wrote, or the student's own).

What holds, on one machine with a Unix account per student (the hub):

* a student cannot submit in another's name: the entry's owner must be the
  student it names (:mod:`.collect`);
* a student cannot replace or remove another's submission, or the release:
  the root and ``inbound/`` are sticky, the course's folders the instructor's;
  files another account put into an entry are left out;
* a student cannot make the instructor collect a file they may not read (links
  are refused, files are opened without following links), or stop the
  collection (a FIFO or device is left out, and named, without being opened);
* the submission time is the collector's (the latest change time of the
  entry, which no user can set), never the student's ``timestamp.txt``.

What does not: a student can still fill the disk (use quotas), submit many
times, or change their own entry after the deadline (it is then collected with
the later time).  With one account for everyone (``make lab`` on a laptop,
the tests) the owner says nothing: entries are taken by their names.
"""

from .collect import ExchangeCollect
from .release_assignment import ExchangeReleaseAssignment
from .submit import ExchangeSubmit

__all__ = ["ExchangeCollect", "ExchangeReleaseAssignment", "ExchangeSubmit"]
