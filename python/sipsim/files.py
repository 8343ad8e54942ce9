"""Opening the files sipsim reads: regular files only.

A FIFO, device, socket or directory in a run file's or results table's place is refused
without being opened: opening a FIFO blocks until a writer comes, and opening a device can
act on it.
"""

from __future__ import annotations

import os
import stat
from typing import Optional


class NotRegular(Exception):
    """The path is not a regular file; str(e) says what it is ("a FIFO")."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def kind(mode: int) -> str:
    """What a non-regular file is, from its st_mode."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def irregular(path: str) -> Optional[str]:
    """What `path` is when it is neither a regular file nor a symbolic link to one ("a FIFO"),
    else None. Never opens it. Raises OSError (FileNotFoundError when missing)."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        st = os.stat(path)  # a link is as good as its target
    return None if stat.S_ISREG(st.st_mode) else kind(st.st_mode)


def open_regular(path: str) -> int:
    """A read-only descriptor of the regular file `path` (the caller closes it); NotRegular
    when it is something else, OSError when it cannot be opened.

    Call `irregular` first: this opens the path, but without blocking (O_NONBLOCK), so a FIFO
    put in its place since then is refused here rather than waited on."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(kind(mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str) -> bytes:
    """The bytes of the regular file `path` (errors as open_regular)."""
    with os.fdopen(open_regular(path), "rb") as fh:
        return fh.read()
