"""The undo journal: what a call changed, so that a failure can take it all back.

Every public call that changes a graph (``apply``, ``add_vertices``,
``remove_vertices``, ``track``) runs as one transaction of the store's
:class:`Journal`.  While a transaction is open, every write to persistent
state is preceded by a journal entry that can undo it:

* :meth:`Journal.save` / :meth:`Journal.write` keep the values at the
  positions about to be overwritten (a pre-image), whatever writes them: plain
  array assignments of the engine, or an operator whose write positions the
  engine knows beforehand;
* :meth:`Journal.saved` records a pre-image known without reading it (an
  operator that reports what it replaced).  The entry follows the write, so
  such an operator must change nothing when it raises: it makes every
  allocation before its first write, or undoes its writes before re-raising
  (``tests/test_atomicity.py`` fails a batch at every operator call and, on
  the CPU, at every NumPy allocation); :meth:`Journal.exchanged` records
  several such writes at distinct positions at once (every entry kept
  before its positions are checked);
* :meth:`Journal.save_all` keeps a whole array once per transaction (for
  arrays rewritten everywhere, or written at many scattered places);
* :meth:`Journal.assign` records an attribute's old value (a scalar, or an
  array replaced by a grown or compacted one) before setting the new one;
  :meth:`Journal.replace` does the same for an array whose contents nothing
  else needs (made during the transaction, or a free buffer), whose later
  writes then need no pre-image;
* :meth:`Journal.on_rollback` registers an undo step computed by the caller;
  :meth:`Journal.undone_by` one for a write that already happened, whose
  pre-images only the undo step reads (their count is still on the device);
  :meth:`Journal.replaced` is that step for an operator's
  :class:`~cugraph_stream.backends.base.Replaced` (positions it chose, what
  they held, their count).

State that is recomputed rather than logged (the queries' working arrays,
whose committed copies are journaled; the hot-list cache, reloaded from the
restored store) belongs to *participants*: objects with a ``rollback()``
method, enlisted once per transaction, called after every entry has been
undone.

:meth:`Journal.rollback` undoes the entries newest first, so an array
replaced during the transaction gets its old object back before the writes
made to that old object are undone.  The cost of a transaction is its
entries: pre-images of what the batch changed, not copies of the graph.

Examples
--------
>>> import numpy as np
>>> class State: pass
>>> s = State(); s.values = np.arange(5); s.count = 5
>>> journal = Journal()
>>> journal.begin()
>>> journal.write(s.values, np.array([1, 3]), -1)
>>> journal.assign(s, "count", 7)
>>> s.values.tolist(), s.count
([0, -1, 2, -1, 4], 7)
>>> journal.rollback()
>>> s.values.tolist(), s.count
([0, 1, 2, 3, 4], 5)
"""
from __future__ import annotations

import functools

import numpy as np


class RollbackError(RuntimeError):
    """Undoing a failed transaction failed too: the state is no longer known to be consistent."""


class Journal:
    """Undo log of one transaction at a time (see the module docstring).

    ``ops`` (a :class:`~cugraph_stream.backends.base.Backend`), when given,
    gathers the pre-images and scatters the writes of index arrays
    (:meth:`~cugraph_stream.backends.base.Backend.take`, ``put``: one kernel
    each on the GPU); without it, plain indexing does.  The rollback always
    writes back with plain indexing.

    Outside a transaction every method only does its write (or nothing), so
    the engine's classes also run without one (doctests, direct use).
    """

    #: check every :meth:`write` with ``distinct=True`` for repeated positions
    #: (``AssertionError``; a sort of the index each time): the test suite
    #: turns it on, since a repeat would make ``exchange`` keep a wrong pre-image
    verify_distinct = False

    def __init__(self, ops=None):
        self._ops = ops               # the Backend whose take/put gather and scatter (or plain indexing)
        self._entries = None          # None: no transaction open
        self._whole = set()           # ids of the arrays saved whole in this transaction
        self._fresh = []              # the arrays :meth:`replace` swapped in, held so that their ids stay theirs
        self._participants = {}       # id -> participant, in enlisting order
        self._interrupts = None       # a DeferredInterrupts to poll at each entry, or None

    @property
    def recording(self):
        """Whether a transaction is open."""
        return self._entries is not None

    def begin(self, interrupts=None):
        """Open a transaction.  ``interrupts`` (a
        :class:`~cugraph_stream.interrupts.DeferredInterrupts`) is polled at
        every entry, so a deferred Ctrl-C stops the work at the next one."""
        if self._entries is not None:
            raise RuntimeError("a transaction is already open on this graph")
        self._entries = []
        self._whole = set()
        self._fresh = []
        self._participants = {}
        self._interrupts = interrupts

    def checkpoint(self):
        """Raise ``KeyboardInterrupt`` if one was deferred (a safe point to stop)."""
        if self._interrupts is not None:
            self._interrupts.raise_pending()

    # --------------------------------------------------------------- entries
    def save(self, array, index):
        """Keep ``array[index]`` (an integer index array, a slice or a Python int) before it is overwritten.

        An index array is kept as it is, not copied (one device launch per
        save, not two): callers hand the journal indices they never modify
        afterwards (every index in the engine is a fresh gather, sort or
        operator result).
        """
        if self._entries is None:
            return
        self.checkpoint()
        if isinstance(index, int):
            index = slice(index, index + 1)
        if isinstance(index, slice):
            values = array[index].copy()          # a view otherwise
        elif self._ops is None:
            values = array[index]                 # integer indexing copies
        else:
            values = self._ops.take(array, index)
        self._entries.append((_put, array, index, values))

    def saved(self, array, index, values):
        """Record that ``array[index]`` held ``values`` before a write that already happened
        (an operator that returns what it replaced)."""
        if self._entries is not None:
            self._entries.append((_put, array, index, values))

    def exchanged(self, *writes):
        """:meth:`saved` for each ``(array, index, values)`` of ``writes``: an
        operator's writes at distinct positions ``index`` (one that returns what
        it replaced, as ``ops.exchange`` does for :meth:`write` with
        ``distinct``).  With :attr:`verify_distinct` the positions are checked
        as :meth:`write` checks them, once every entry is kept (the check
        allocates: a failure there must find every write undoable)."""
        for array, index, values in writes:
            self.saved(array, index, values)
        if self.verify_distinct:
            xp = None if self._ops is None else self._ops.xp
            for array, index, _ in writes:
                if not isinstance(index, (int, slice)):
                    _assert_distinct(xp, index, array.size)

    def replaced(self, arrays, replaced):
        """Record that an operator wrote ``arrays`` at the positions of ``replaced``
        (a :class:`~cugraph_stream.backends.base.Replaced`), which held its
        values: a rollback reads its count then and puts them back."""
        if self._entries is not None:
            self._entries.append((_call, functools.partial(_put_back, self._ops, arrays, replaced)))

    def undone_by(self, undo):
        """Record that a write already happened and ``undo()`` undoes it (as :meth:`saved`,
        no checkpoint between the write and its entry: for an operator's pre-images
        whose count the undo step reads itself)."""
        if self._entries is not None:
            self._entries.append((_call, undo))

    def save_all(self, array):
        """Keep the whole of ``array`` once per transaction (later saves of it are free)."""
        if self._entries is None or id(array) in self._whole:
            return
        self.checkpoint()
        self._whole.add(id(array))
        self._entries.append((_put, array, slice(None), array.copy()))

    def write(self, array, index, values, distinct=False):
        """``array[index] = values``, journaled.  ``distinct``: the caller vouches
        that an index array repeats no position, so the pre-image is read as
        the values are written (``ops.exchange``: one launch on the GPU, not
        two)."""
        if distinct and self.verify_distinct and not isinstance(index, (int, slice)):
            _assert_distinct(None if self._ops is None else self._ops.xp, index, array.size)
        if self._ops is None or isinstance(index, (int, slice)):
            self.save(array, index)
            array[index] = values
        elif distinct and self._entries is not None:
            self.checkpoint()
            self._entries.append((_put, array, index, self._ops.exchange(array, index, values)))
        else:
            self.save(array, index)
            self._ops.put(array, index, values)

    def assign(self, owner, name, value):
        """``setattr(owner, name, value)``, keeping the old value (a scalar or an array
        replaced by another one)."""
        if self._entries is not None:
            self.checkpoint()
            self._entries.append((setattr, owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def keeps_whole(self, array):
        """Whether this transaction keeps ``array`` whole already (:meth:`save_all`, or made
        in it, :meth:`replace`): writes to it need no pre-image."""
        return self._entries is not None and id(array) in self._whole

    def replace(self, owner, name, array):
        """``setattr(owner, name, array)`` for an ``array`` whose contents nothing else
        needs (made during this transaction, or a buffer free for reuse: say, the
        new values written in one pass instead of the old array updated in
        place): the old array is kept as it is, and writes to the new one need
        no pre-image (the rollback puts the old one back), so a later
        :meth:`save_all` of it is free (:meth:`keeps_whole`).

        >>> import numpy as np
        >>> class State: pass
        >>> s = State(); s.words = np.arange(4)
        >>> journal = Journal(); journal.begin()
        >>> journal.replace(s, "words", s.words * 2)
        >>> journal.save_all(s.words); s.words[0] = 9      # (no copy kept)
        >>> len(journal), s.words.tolist()
        (1, [9, 2, 4, 6])
        >>> journal.rollback(); s.words.tolist()
        [0, 1, 2, 3]
        """
        self.assign(owner, name, array)
        if self._entries is not None:
            self._whole.add(id(array))
            self._fresh.append(array)         # held until the transaction ends: its id stays its own

    def on_rollback(self, undo):
        """Run ``undo()`` when the transaction rolls back, in its place among the entries."""
        if self._entries is not None:
            self.checkpoint()
            self._entries.append((_call, undo))

    def enlist(self, participant):
        """Have ``participant.rollback()`` run after the entries are undone (once per
        transaction).  Returns True when it joined now (a transaction is open and it
        had not joined yet): the moment to remember what its rollback restores."""
        if self._entries is None or id(participant) in self._participants:
            return False
        self._participants[id(participant)] = participant
        return True

    # ---------------------------------------------------------------- ending
    def commit(self):
        """Close the transaction, keeping every change."""
        self._close()

    def rollback(self):
        """Undo every entry, newest first, then roll back the participants; close the transaction.

        Raises :class:`RollbackError` (from the original error) if an undo step fails.
        """
        entries, participants = self._entries or [], list(self._participants.values())
        self._close()
        try:
            for entry in reversed(entries):
                entry[0](*entry[1:])
            for participant in participants:
                participant.rollback()
        except BaseException as error:
            raise RollbackError(f"{type(error).__name__}: {error}") from error

    def _close(self):
        self._entries = None
        self._whole = set()
        self._fresh = []
        self._participants = {}
        self._interrupts = None

    def __len__(self):
        return 0 if self._entries is None else len(self._entries)


def _put(array, index, values):
    array[index] = values


def _call(undo):
    undo()


def _put_back(ops, arrays, replaced):
    """Rollback step of :meth:`Journal.replaced` (an array None, or its values
    None: nothing of it was written)."""
    count = replaced.count
    if not isinstance(count, (int, np.integer)):
        (count,) = ops.read_counts(count)
    positions, values = replaced.read(int(count))
    for array, held in zip(arrays, values):
        if array is not None and held is not None:
            array[positions] = held


def _assert_distinct(xp, index, size):
    """Raise ``AssertionError`` if ``index`` (of array namespace ``xp``, None for
    NumPy) names a position of an array of ``size`` twice.  Array steps only,
    no operator calls: a test that counts a batch's calls counts the same."""
    if xp is None:
        import numpy as xp

    positions = xp.where(index < 0, index + size, index)
    if xp.unique(positions).size != positions.size:
        raise AssertionError(f"Journal.write(distinct=True) at repeated positions: {positions.tolist()[:20]}")
