"""Commands whose reader goes away: ``cugraph-stream doctor | head -1``.

When the reader of standard output closes the pipe early, the next write (or
the flush at exit) raises ``BrokenPipeError``; left alone, Python prints a
traceback or "Exception ignored ... Broken pipe".  :func:`run_command` runs a
command-line entry point, flushes standard output while a closed pipe can
still be caught, and then points standard output at ``os.devnull`` (the
recipe of the Python documentation, "Note on SIGPIPE") and returns
:data:`CLOSED_PIPE_STATUS`, the status a shell reports for a command killed
by ``SIGPIPE``.
"""
from __future__ import annotations

import io
import os
import sys

__all__ = ["CLOSED_PIPE_STATUS", "run_command"]

#: exit status after the reader closed standard output: 128 + SIGPIPE, as shells report it
CLOSED_PIPE_STATUS = 128 + 13


def run_command(command, *args):
    """``command(*args)``, then a flush of standard output; quiet on a closed pipe.

    Parameters
    ----------
    command : callable
        A command-line entry point returning an exit status (it may also
        raise ``SystemExit``, as argparse does for ``--help``).
    *args
        Passed to ``command``.

    Returns
    -------
    int
        What ``command`` returned, or :data:`CLOSED_PIPE_STATUS` when
        standard output's reader had gone away (standard output then writes
        to ``os.devnull``, so the interpreter's flush at exit stays quiet).

    Examples
    --------
    >>> run_command(lambda name: print(f"hello {name}") or 0, "pipe")
    hello pipe
    0
    >>> import contextlib, io
    >>> def closed():
    ...     raise BrokenPipeError(32, "Broken pipe")
    >>> with contextlib.redirect_stdout(io.StringIO()):     # (no descriptor to redirect)
    ...     status = run_command(closed)
    >>> status == CLOSED_PIPE_STATUS
    True
    """
    try:
        try:
            return command(*args)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        return CLOSED_PIPE_STATUS


def _stdout_to_devnull():
    """Point the file descriptor behind ``sys.stdout`` at ``os.devnull`` (when it has one)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):     # replaced (captured) stdout
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
