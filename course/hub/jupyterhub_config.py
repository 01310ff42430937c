"""JupyterHub for one class of the course: one instructor, many students (nbgrader's
"one class, one grader" setup).  Run as root, after ``python -m course.hub setup``::

    python -m course.hub setup --instructor alice --roster roster.csv --public-url https://hub.example.org/
    jupyterhub -f "$(python -m course.hub config)"

The class comes from the roster (``CONFIG_DIR/course-hub/roster.csv`` and ``hub.json``, written
by ``setup``; read again at every start): the instructor and the roster's students may log in,
nobody else, and a student taken off the roster is removed from the hub's database at the next
start (their sessions and tokens end; their Unix account and files stay).

Environment variables of the ``jupyterhub`` process (optional):

``COURSE_HUB_CONFIG_DIR``      where ``setup`` wrote the shared configuration (default
                               ``/etc/jupyter``)
``COURSE_HUB_SUBDOMAIN_HOST``  e.g. ``https://hub.example.org``: one subdomain per user
                               (needs wildcard DNS and TLS), the secure way to frame the
                               formgrader; off by default

(``COURSE_HUB_INSTRUCTOR`` and ``COURSE_HUB_STUDENTS`` are no longer read: the hub refuses to
start with them set, rather than silently use another class than they name.)

Logins are the machine's (PAM); each user's JupyterLab runs as their own Unix user
(``LocalProcessSpawner``), with the course and nbgrader from the environment this hub runs
in.  The hub's proxy listens on 127.0.0.1:8000 only: put nginx in front for TLS
(``python -m course.hub nginx``).  Put machine-specific settings (ports, another
authenticator) in a file of your own that starts with ``load_subconfig(THIS_FILE)``, as
``tests/test_hub.py`` does.
"""

import os
import re
import sys

try:
    c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file
    LOADED_BY_HUB = True
except NameError:  # imported as a module (pytest --doctest-modules): nothing to configure
    from traitlets.config import Config

    c = Config()
    LOADED_BY_HUB = False

COURSE_ID = "game-tree-search"
CONFIG_DIR = os.environ.get("COURSE_HUB_CONFIG_DIR", "/etc/jupyter")
SUBDOMAIN_HOST = os.environ.get("COURSE_HUB_SUBDOMAIN_HOST", "")
BIN = os.path.dirname(os.path.abspath(sys.executable))   # the environment with the course

# --- the class: the roster ------------------------------------------------------------------
if LOADED_BY_HUB:
    _old = [name for name in ("COURSE_HUB_INSTRUCTOR", "COURSE_HUB_STUDENTS") if name in os.environ]
    if _old:
        raise SystemExit(f"{' and '.join(_old)} are no longer read: the class comes from the roster "
                         "(python -m course.hub setup --instructor NAME --roster roster.csv); unset them")
    from course.hub.classlist import read_hub_settings

    SETTINGS = read_hub_settings(CONFIG_DIR)     # refuses a missing or invalid roster
    INSTRUCTOR, STUDENTS = SETTINGS.instructor, sorted(SETTINGS.students())
    PUBLIC_URL, IDLE_TIMEOUT = SETTINGS.public_url, SETTINGS.idle_timeout
else:
    INSTRUCTOR, STUDENTS, PUBLIC_URL, IDLE_TIMEOUT = "instructor", [], "", 3600

# --- who may log in -------------------------------------------------------------------------
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {INSTRUCTOR, *STUDENTS}
# Only the roster: JupyterHub's default (allow_existing_users) would keep letting in everyone
# who was ever allowed, and a removed student's browser session would stay valid.  Names off
# the roster fail validate_username, so at start the hub deletes them from its database
# (delete_invalid_users), with their sessions and tokens, and refuses them at the login page.
c.Authenticator.allow_existing_users = False
c.Authenticator.username_pattern = "^(?:" + "|".join(re.escape(n) for n in sorted(c.Authenticator.allowed_users)) + ")$"
c.Authenticator.delete_invalid_users = True
# Nobody in the class is a hub admin: an admin may open every student's server, and a page a
# student wrote, opened in the instructor's browser on the hub's origin, could then frame the
# instructor's formgrader (see "the formgrader" in course/hub/README.md).  Administer the hub
# as root (`jupyterhub token`, the REST API) or with a separate account.
c.Authenticator.admin_users = set()
# nbgrader's group names, for JupyterHubAuthPlugin if several courses ever share the hub.
c.JupyterHub.load_groups = {
    f"formgrade-{COURSE_ID}": {"users": [INSTRUCTOR]},
    f"nbgrader-{COURSE_ID}": {"users": STUDENTS},
}

# --- behind a TLS proxy (nginx, python -m course.hub nginx) ----------------------------------
# Only this machine reaches the hub's proxy; nginx terminates TLS and forwards to it.
c.JupyterHub.bind_url = "http://127.0.0.1:8000"
if PUBLIC_URL:
    # The address browsers use: cookies are Secure and redirects use https whatever headers
    # arrive (the hub's own proxy appends ",http" to X-Forwarded-Proto).
    c.JupyterHub.public_url = PUBLIC_URL

# --- stopping idle servers (jupyterhub-idle-culler, a hub service) ---------------------------
# An idle student's server holds about 150 MiB (course/hub/README.md, "Scale"): stop those
# without activity for IDLE_TIMEOUT seconds; the student's files stay, the next login starts
# a new server.
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE_TIMEOUT}",
                f"--cull-every={max(60, min(600, IDLE_TIMEOUT // 6))}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]

# --- each user's JupyterLab -------------------------------------------------------------------
c.JupyterHub.spawner_class = "localprocess"   # as the user's own Unix account (hub runs as root)
c.Spawner.cmd = [os.path.join(BIN, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 90
c.Spawner.environment = {
    # the course's environment first: python, nbgrader, jupyter; bwrap from /usr/bin
    "PATH": os.pathsep.join([BIN, "/usr/local/bin", "/usr/bin", "/bin"]),
}


def _course_role(spawner):
    """The instructor's and the students' Jupyter settings differ (see course/hub/__init__.py)."""
    role = "instructor" if spawner.user.name == INSTRUCTOR else "student"
    spawner.environment = {    # a new dict: the configured one is shared by every spawner
        **spawner.environment,
        "JUPYTER_CONFIG_PATH": os.pathsep.join([os.path.join(CONFIG_DIR, f"course-{role}"),
                                                CONFIG_DIR]),
        "COURSE_HUB_ROLE": role,
    }


c.Spawner.pre_spawn_hook = _course_role

# --- the formgrader (JupyterHub >= 4.1) ------------------------------------------------------
# Single-user servers send `Content-Security-Policy: frame-ancestors 'none'` since 4.1, so the
# formgrader (an iframe in JupyterLab) stays blank.  `python -m course.hub setup` relaxes it to
# 'self' on the instructor's server only (CONFIG_DIR/course-instructor/jupyter_server_config.py).
# With subdomains, 'self' is the instructor's own subdomain and nothing else can frame it.
if SUBDOMAIN_HOST:
    c.JupyterHub.subdomain_host = SUBDOMAIN_HOST
    c.JupyterHub.cookie_host_prefix_enabled = True
