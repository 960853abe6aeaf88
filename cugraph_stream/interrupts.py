"""Ctrl-C held back while a graph changes, delivered where it is safe.

A ``KeyboardInterrupt`` raised in the middle of an operator (between two of
its array writes) would leave writes that no journal entry describes.  While
:class:`DeferredInterrupts` is active, SIGINT only sets a flag: the
transaction's journal raises ``KeyboardInterrupt`` at its next entry (between
operators, where the journal can undo everything), and whatever arrives
during a rollback or a commit is delivered once the graph is consistent
again.

Python delivers signals to the main thread only, so the handler is installed
there; a graph changed from another thread cannot be interrupted by Ctrl-C
in the first place, and nothing is installed.

Examples
--------
>>> import signal
>>> try:
...     with DeferredInterrupts() as interrupts:
...         signal.raise_signal(signal.SIGINT)     # Ctrl-C, held back
...         held = interrupts.pending
... except KeyboardInterrupt:
...     print("held:", held, "- delivered on exit")
held: True - delivered on exit
"""
from __future__ import annotations

import signal
import threading

# (``_signal`` is the C module under ``signal``: its ``signal`` takes and returns
# plain ints, where ``signal.signal`` converts both to enums, about 10 us a
# batch on this project's CPU machine; the handlers compare equal either way)
import _signal


class DeferredInterrupts:
    """Context manager holding SIGINT back (see the module docstring).

    ``pending`` says whether one arrived; :meth:`raise_pending` raises it now
    (and forgets it); on exit, one still pending is delivered to the handler
    that was installed before, which by default raises ``KeyboardInterrupt``.
    """

    def __init__(self):
        self.pending = False
        self._previous = None
        self._installed = False

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = _signal.signal(_signal.SIGINT, self._hold)
                self._installed = True
            except ValueError:       # not the main interpreter: signals cannot be handled here
                self._installed = False
        return self

    def _hold(self, signum, frame):
        self.pending = True

    def raise_pending(self):
        """Raise ``KeyboardInterrupt`` if SIGINT arrived since the last call."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def __exit__(self, kind, error, traceback):
        if self._installed:
            _signal.signal(_signal.SIGINT, self._previous)
            self._installed = False
        if self.pending:
            self.pending = False
            if kind is KeyboardInterrupt:        # already on its way out
                return False
            self._deliver()
        return False

    def _deliver(self):
        previous = self._previous
        if callable(previous):
            previous(signal.SIGINT, None)        # default_int_handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)   # the default action, now that it is back
        # SIG_IGN (or None: installed by foreign code): the interrupt is dropped, as it would have been
