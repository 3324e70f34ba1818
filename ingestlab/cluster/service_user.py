"""The non-root account Elasticsearch runs as (ES refuses to start as root)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ingestlab.errors import IngestlabError

DEFAULT_NAME = "ingestlab"


@dataclass(frozen=True)
class ServiceUser:
    name: str
    uid: int
    gid: int
    home: str

    @property
    def is_current(self) -> bool:
        return self.uid == os.geteuid()

    def drop_privileges(self) -> list[str]:
        """A command prefix that runs the rest as this user (e.g. after ``ip netns exec``); empty when we are it."""
        return [] if self.is_current else ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--"]

    def chown(self, path: Path) -> None:
        if self.is_current:
            return
        for dirpath, dirnames, filenames in os.walk(path):
            os.chown(dirpath, self.uid, self.gid)
            for name in filenames:
                os.chown(os.path.join(dirpath, name), self.uid, self.gid)


def ensure_service_user(name: str | None = None) -> ServiceUser:
    """Non-root: run as ourselves. Root: use (and create if needed) an unprivileged system user."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return ServiceUser(me.pw_name, me.pw_uid, me.pw_gid, me.pw_dir)
    name = name or os.environ.get("INGESTLAB_ES_USER", DEFAULT_NAME)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd")
        if not useradd:
            raise IngestlabError(f"running as root but user {name!r} does not exist and `useradd` is missing; create the user by hand")
        proc = subprocess.run(
            [useradd, "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            capture_output=True,
            text=True,
        )
        try:
            entry = pwd.getpwnam(name)  # made by us, or by another of the pack's commands at the same moment
        except KeyError:
            raise IngestlabError(f"could not create service user {name!r}: {proc.stderr.strip() or proc.returncode}") from None
    if entry.pw_uid == 0:
        raise IngestlabError(f"service user {name!r} is root; Elasticsearch refuses to run as root")
    return ServiceUser(entry.pw_name, entry.pw_uid, entry.pw_gid, entry.pw_dir)


def check_reachable(user: ServiceUser, path: Path) -> None:
    """Fail early, with the fix, when the service user cannot traverse to ``path``."""
    if user.is_current:
        return
    for parent in [path, *path.parents]:
        if parent.exists() and not (os.stat(parent).st_mode & 0o001):
            raise IngestlabError(
                f"user {user.name!r} (Elasticsearch's) cannot enter {parent}; "
                f"choose a --data-dir outside it, or set INGESTLAB_HOME to one (default when root: /var/lib/ingestlab)"
            )
