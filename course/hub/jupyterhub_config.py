"""JupyterHub for one class of the course: one instructor, many students, graders if any.
Run as root, after ``python -m course.hub setup``::

    python -m course.hub setup --instructor alice --source /root/game-tree-search --roster roster.csv \
        --public-url https://hub.example.org/ [--grader tom]
    jupyterhub -f "$(python -m course.hub config)"

The class comes from the roster (``CONFIG_DIR/course-hub/roster.csv`` and ``hub.json``, written
by ``setup``; read again at every start): the instructor, the graders and the roster's students
may log in, nobody else, and a student taken off the roster is removed from the hub's database
at the next start (their sessions and tokens end; their Unix account and files stay).

**Each user's server has its own subdomain** (``alice.hub.example.org``; ``JupyterHub.subdomain_host``
and domain-locked cookies), which needs wildcard DNS and a wildcard certificate
(``docs/instructor/jupyterhub.md``).  On one origin, a page a student's server serves (she
controls that server: her own configuration, or her own process on its port) could script the
instructor's JupyterLab; JupyterHub's own documentation says subdomains are the only reliable
way to keep users apart.  ``setup --no-subdomains`` turns them off, for a class whose students
are all trusted: the hub then says so in its log at every start.

Environment variable of the ``jupyterhub`` process (optional):

``COURSE_HUB_CONFIG_DIR``      where ``setup`` wrote the shared configuration (default
                               ``/etc/jupyter``)

(``COURSE_HUB_INSTRUCTOR``, ``COURSE_HUB_STUDENTS`` and ``COURSE_HUB_SUBDOMAIN_HOST`` are no
longer read: the hub refuses to start with them set, rather than silently use another class or
address than they name.)

Logins are the machine's (PAM); each user's JupyterLab runs as their own Unix user
(``LocalProcessSpawner``), with the course and nbgrader from the environment this hub runs
in (installed from a wheel: students never import the instructor's checkout).  Graders use the
**graders' formgrader**, a hub service running as the instructor's account that serves only the
formgrader, for hand grading only (``course.formgrader_guard``, ``hand_grading_only``).  The
hub's proxy listens on 127.0.0.1:8000 only: put nginx in front for TLS
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
BIN = os.path.dirname(os.path.abspath(sys.executable))   # the environment with the course
#: Where the graders' formgrader (a hub service) listens; only this machine reaches it.
GRADERS_URL = "http://127.0.0.1:8010"

# --- the class: the roster ------------------------------------------------------------------
if LOADED_BY_HUB:
    _old = [name for name in ("COURSE_HUB_INSTRUCTOR", "COURSE_HUB_STUDENTS", "COURSE_HUB_SUBDOMAIN_HOST")
            if name in os.environ]
    if _old:
        raise SystemExit(f"{' and '.join(_old)} are no longer read: the class and the hub's address come "
                         "from python -m course.hub setup --instructor NAME --roster roster.csv "
                         "--public-url https://hub.example.org/ (subdomains are on by default); unset them")
    from course.hub.classlist import read_hub_settings

    SETTINGS = read_hub_settings(CONFIG_DIR)     # refuses a missing or invalid roster
    INSTRUCTOR, STUDENTS = SETTINGS.instructor, sorted(SETTINGS.students())
    PUBLIC_URL, IDLE_TIMEOUT = SETTINGS.public_url, SETTINGS.idle_timeout
    GRADERS, SUBDOMAINS = sorted(SETTINGS.graders), SETTINGS.subdomains
else:
    INSTRUCTOR, STUDENTS, PUBLIC_URL, IDLE_TIMEOUT, GRADERS, SUBDOMAINS = "instructor", [], "", 3600, [], False

# --- who may log in -------------------------------------------------------------------------
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {INSTRUCTOR, *GRADERS, *STUDENTS}
# Only the roster: JupyterHub's default (allow_existing_users) would keep letting in everyone
# who was ever allowed, and a removed student's browser session would stay valid.  Names off
# the roster fail validate_username, so at start the hub deletes them from its database
# (delete_invalid_users), with their sessions and tokens, and refuses them at the login page.
c.Authenticator.allow_existing_users = False
c.Authenticator.username_pattern = "^(?:" + "|".join(re.escape(n) for n in sorted(c.Authenticator.allowed_users)) + ")$"
c.Authenticator.delete_invalid_users = True
# Nobody in the class is a hub admin: an admin may open every student's server (JupyterHub's
# "sharing access to servers", unsafe with untrusted users).  Administer the hub as root
# (`jupyterhub token`, the REST API) or with a separate account.
c.Authenticator.admin_users = set()
# nbgrader's group names: formgrade-COURSE may open the graders' formgrader (below).
c.JupyterHub.load_groups = {
    f"formgrade-{COURSE_ID}": {"users": [INSTRUCTOR, *GRADERS]},
    f"nbgrader-{COURSE_ID}": {"users": STUDENTS},
}

# --- one origin per user (JupyterHub's "Security Overview": subdomains) ----------------------
if SUBDOMAINS:
    from urllib.parse import urlsplit as _urlsplit

    _public = _urlsplit(PUBLIC_URL)
    # alice's server at https://alice.hub.example.org/user/alice/, the hub at hub.example.org
    c.JupyterHub.subdomain_host = f"{_public.scheme}://{_public.netloc}"
    # cookies locked to their host (__Host- prefix): a server cannot set cookies for another
    c.JupyterHub.cookie_host_prefix_enabled = True
elif LOADED_BY_HUB:
    print("course.hub: SUBDOMAINS ARE OFF (setup --no-subdomains): every user's server shares the hub's "
          "origin, and a page a student's server serves can act as anyone who opens it, the instructor "
          "included.  Only for a class whose students are all trusted.", file=sys.stderr)

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

# --- the graders' formgrader (nbgrader's "one class, multiple graders") ------------------------
# A hub service named like the course, running as the instructor's account (which owns the course
# and its gradebook) but serving nothing except the formgrader, for hand grading only: scores,
# comments, review flags.  No files, contents, kernels or terminals; no release, collect,
# autograde or feedback; never nbgrader_config.py, solutions/ or the grading secret
# (course.formgrader_guard, hand_grading_only; CONFIG_DIR/course-graders/).  The instructor and the
# graders (group formgrade-COURSE) may open it: https://HUB/services/COURSE/formgrader, or with
# subdomains https://COURSE--service.HUB/services/COURSE/formgrader (the hub's Services menu).
if LOADED_BY_HUB:
    import pwd as _pwd

    try:
        _home = _pwd.getpwnam(INSTRUCTOR).pw_dir
    except KeyError:            # no such account: the service fails to start, and says so in the log
        _home = "/"
    c.JupyterHub.services.append({
        "name": COURSE_ID,
        "url": GRADERS_URL,
        "command": [os.path.join(BIN, "jupyterhub-singleuser")],
        "user": INSTRUCTOR,
        "cwd": _home,
        "environment": {
            "PATH": os.pathsep.join([BIN, "/usr/local/bin", "/usr/bin", "/bin"]),
            "JUPYTER_CONFIG_PATH": os.pathsep.join([os.path.join(CONFIG_DIR, "course-graders"), CONFIG_DIR]),
            "COURSE_HUB_ROLE": "graders",
        },
        "oauth_no_confirm": True,
        "display": True,
    })
c.JupyterHub.load_roles.append({
    "name": "course-graders",
    "scopes": [f"access:services!service={COURSE_ID}"],
    "groups": [f"formgrade-{COURSE_ID}"],
})

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
    """The instructor's and the students' Jupyter settings differ (see course/hub/__init__.py);
    graders' own servers are set up as students'."""
    import pwd

    role = "instructor" if spawner.user.name == INSTRUCTOR else "student"
    environment = {
        "JUPYTER_CONFIG_PATH": os.pathsep.join([os.path.join(CONFIG_DIR, f"course-{role}"),
                                                CONFIG_DIR]),
        "COURSE_HUB_ROLE": "grader" if spawner.user.name in GRADERS else role,
    }
    try:    # a short runtime folder: the kernels' Unix sockets live there (at most 107 bytes a path)
        environment["JUPYTER_RUNTIME_DIR"] = os.path.join(pwd.getpwnam(spawner.user.name).pw_dir, ".jupyter-run")
    except KeyError:
        pass
    spawner.environment = {**spawner.environment, **environment}   # a new dict: the configured one is shared


c.Spawner.pre_spawn_hook = _course_role

# --- where graders find the formgrader: the hub's home page ------------------------------------
def _formgrader_links(user):
    """The hub's home page, for the instructor and the graders: the formgraders, each in its own tab."""
    from html import escape
    from urllib.parse import urlsplit

    name = getattr(user, "name", "")
    if name not in (INSTRUCTOR, *GRADERS):
        return ""
    host = urlsplit(PUBLIC_URL).netloc if SUBDOMAINS else ""
    own = f"https://{name}.{host}" if host else ""
    service = f"https://{COURSE_ID}--service.{host}" if host else ""
    links = [f'<a href="{escape(service)}/services/{COURSE_ID}/formgrader" target="_blank" '
             f'rel="noopener">the graders\' formgrader</a> (scores and comments)']
    if name == INSTRUCTOR:
        links.insert(0, f'<a href="{escape(own)}/user/{escape(name)}/formgrader" target="_blank" '
                        'rel="noopener">your formgrader</a> (in your own server: release, collect, autograde)')
    return "Grading, each in a tab of its own: " + " &middot; ".join(links)


c.JupyterHub.template_vars = {"announcement_home": _formgrader_links}

# --- the formgrader (JupyterHub >= 4.1) ------------------------------------------------------
# Every single-user server keeps JupyterHub's `frame-ancestors 'none'`, the instructor's too
# (CONFIG_DIR/course-instructor/jupyter_server_config.py): no page of anyone else's can frame her
# JupyterLab or her formgrader.  JupyterLab's Formgrader panel (an iframe) shows a link instead
# that opens the formgrader in a browser tab of its own (course.formgrader_guard).
