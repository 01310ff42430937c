"""The hub behind nginx on one machine: the site that terminates TLS, and the hub's systemd unit.

``python -m course.hub nginx --server-name hub.example.org --certificate FULLCHAIN --key KEY``
prints :func:`nginx_site`, ``python -m course.hub systemd`` prints :func:`systemd_unit`;
``docs/instructor/jupyterhub.md`` puts them in place.  ``tests/test_hub.py`` runs the class's
whole journey through this site (with a self-signed certificate): logins, the REST API,
JupyterLab in Chromium, and a kernel's websocket.

Why nginx: Debian and Ubuntu ship it in main, with security support (Caddy is in Debian 12 and
Ubuntu's universe only, with an older release than upstream's); JupyterHub's documentation
has an nginx example, and its websocket proxying is two explicit headers.  Caddy would obtain
certificates by itself and proxies websockets without configuration; with nginx, certificates
come from certbot (``apt install certbot python3-certbot-nginx``) or the institution.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["HUB_LISTEN", "nginx_site", "systemd_unit"]

#: Where the hub's proxy (configurable-http-proxy) listens: only this machine, behind nginx.
HUB_LISTEN = "127.0.0.1:8000"


def nginx_site(server_name: str, certificate: str, key: str, *, upstream: str = HUB_LISTEN,
               listen: str = "443", redirect_http: bool = True, subdomains: bool = True) -> str:
    """An nginx ``sites-available`` file: TLS for ``server_name``, forwarding to the hub.

    Parameters
    ----------
    server_name : str
        The hub's public host name (``hub.example.org``).
    certificate, key : str
        The certificate chain and its private key (PEM files nginx can read); with
        ``subdomains``, a wildcard certificate for ``server_name`` and ``*.server_name``.
    upstream : str
        Where the hub's proxy listens (:data:`HUB_LISTEN`).
    listen : str
        nginx's TLS address (``443``, or ``127.0.0.1:8443`` in the tests).
    redirect_http : bool
        Also answer plain http on port 80 with a redirect to https.
    subdomains : bool
        Also answer every subdomain of ``server_name`` (each user's server has its own:
        ``alice.hub.example.org``; ``JupyterHub.subdomain_host``).

    Examples
    --------
    >>> site = nginx_site("hub.example.org", "/etc/ssl/hub/fullchain.pem", "/etc/ssl/hub/key.pem")
    >>> "proxy_set_header Upgrade $http_upgrade;" in site, "ssl_protocols TLSv1.2 TLSv1.3;" in site
    (True, True)
    >>> "server_name hub.example.org *.hub.example.org;" in site
    True
    """
    names = f"{server_name} *.{server_name}" if subdomains else server_name
    redirect = (
        "server {\n"
        "    listen 80;\n"
        "    listen [::]:80;\n"
        f"    server_name {names};\n"
        "    return 301 https://$host$request_uri;\n"
        "}\n\n") if redirect_http else ""
    ipv6 = f"    listen [::]:{listen} ssl;\n" if listen.isdigit() else ""
    return f"""\
# The course's JupyterHub behind nginx (written by `python -m course.hub nginx`).
# nginx terminates TLS and forwards everything, websockets included, to the hub's proxy on
# {upstream} (only this machine can reach it: JupyterHub.bind_url in course/hub/jupyterhub_config.py).

# A websocket request (kernels, terminals) carries "Upgrade: websocket": pass it on with
# "Connection: upgrade"; every other request gets "Connection: close".
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}

{redirect}server {{
    listen {listen} ssl;
{ipv6}    server_name {names};

    ssl_certificate     {certificate};
    ssl_certificate_key {key};
    # Mozilla's "intermediate" settings: TLS 1.2 and 1.3 only, strong ciphers.
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;
    ssl_prefer_server_ciphers off;
    ssl_session_cache shared:course_hub_tls:10m;
    ssl_session_timeout 1d;
    ssl_session_tickets off;
    add_header Strict-Transport-Security "max-age=63072000" always;

    # notebooks and uploads can be large
    client_max_body_size 100m;

    location / {{
        proxy_pass http://{upstream};
        # the host and port the browser used: Jupyter compares a websocket's Origin with it
        proxy_set_header Host $http_host;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        # https, for the hub and the users' servers (secure cookies, redirects); tornado reads
        # X-Scheme first, which the hub's own proxy leaves alone
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header X-Scheme $scheme;

        # websockets: kernels and terminals
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        # an idle kernel's websocket stays open (nginx closes silent connections after 60 s)
        proxy_read_timeout 1d;
        proxy_send_timeout 1d;
        proxy_buffering off;
    }}
}}
"""


def systemd_unit(config: str | Path, *, python: str | Path | None = None,
                 state_dir: str = "/var/lib/jupyterhub", memory_max: str = "90%") -> str:
    """A systemd service running the hub as root (PAM logins, servers as the students' accounts).

    ``memory_max`` caps the hub, the proxy and every student's server and kernel *together*
    (systemd's ``MemoryMax``: they all run in the unit's control group); the kernel's OOM killer
    then picks a process of the class instead of, say, sshd.  It is not a per-student limit.

    Examples
    --------
    >>> unit = systemd_unit("/opt/course/course/hub/jupyterhub_config.py", python="/opt/venv/bin/python")
    >>> print(next(line for line in unit.splitlines() if line.startswith("ExecStart")))
    ExecStart=/opt/venv/bin/jupyterhub -f /opt/course/course/hub/jupyterhub_config.py
    """
    bin_dir = Path(python or sys.executable).parent
    return f"""\
# The course's JupyterHub (written by `python -m course.hub systemd`):
#   /etc/systemd/system/jupyterhub.service, then: systemctl daemon-reload; systemctl enable --now jupyterhub
[Unit]
Description=JupyterHub for the game-tree search course
After=network-online.target
Wants=network-online.target

[Service]
User=root
# the hub's database and cookie secret (jupyterhub.sqlite, jupyterhub_cookie_secret)
StateDirectory={Path(state_dir).name}
StateDirectoryMode=0700
WorkingDirectory={state_dir}
Environment=PATH={bin_dir}:/usr/local/bin:/usr/bin:/bin
# every student's server and kernel runs in this unit's control group: cap them together
MemoryMax={memory_max}
TasksMax=infinity
ExecStart={bin_dir}/jupyterhub -f {config}
Restart=on-failure
RestartSec=5
KillMode=mixed
TimeoutStopSec=60

[Install]
WantedBy=multi-user.target
"""
