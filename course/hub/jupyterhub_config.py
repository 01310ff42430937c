"""JupyterHub for one class of the course: one instructor, many students (nbgrader's
"one class, one grader" setup).  Run as root, after ``python -m course.hub setup``::

    COURSE_HUB_INSTRUCTOR=alice COURSE_HUB_STUDENTS="bob carol dave" \\
        jupyterhub -f "$(python -m course.hub config)"

Settings (environment variables of the ``jupyterhub`` process):

``COURSE_HUB_INSTRUCTOR``      the instructor's Unix account (default ``instructor``)
``COURSE_HUB_STUDENTS``        the students' Unix accounts, separated by spaces or commas
``COURSE_HUB_CONFIG_DIR``      where ``python -m course.hub setup`` wrote the shared
                               configuration (default ``/etc/jupyter``)
``COURSE_HUB_SUBDOMAIN_HOST``  e.g. ``https://hub.example.org``: one subdomain per user
                               (needs wildcard DNS and TLS), the secure way to frame the
                               formgrader; off by default

Logins are the machine's (PAM); each user's JupyterLab runs as their own Unix user
(``LocalProcessSpawner``), with the course and nbgrader from the environment this hub runs
in.  Put hub-specific settings (TLS, ports, another authenticator) in a file of your own that
starts with ``load_subconfig(THIS_FILE)``, as ``tests/test_hub.py`` does.
"""

import os
import sys

try:
    c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file
except NameError:  # imported as a module (pytest --doctest-modules): nothing to configure
    from traitlets.config import Config

    c = Config()

COURSE_ID = "game-tree-search"
INSTRUCTOR = os.environ.get("COURSE_HUB_INSTRUCTOR", "instructor")
STUDENTS = sorted(set(os.environ.get("COURSE_HUB_STUDENTS", "").replace(",", " ").split()) - {INSTRUCTOR})
CONFIG_DIR = os.environ.get("COURSE_HUB_CONFIG_DIR", "/etc/jupyter")
SUBDOMAIN_HOST = os.environ.get("COURSE_HUB_SUBDOMAIN_HOST", "")
BIN = os.path.dirname(os.path.abspath(sys.executable))   # the environment with the course

# --- who may log in -------------------------------------------------------------------------
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {INSTRUCTOR, *STUDENTS}
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
