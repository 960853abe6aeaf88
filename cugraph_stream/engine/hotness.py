"""Vertex hotness: how often each vertex's list was read over the last ``tau`` batches.

Grapin (section 6) picks the lists to cache by how often they were read
recently.  Each vertex keeps one ``uint32`` word split into ``tau`` fields of
``32 // tau`` bits; field 0 (the low bits) counts the accesses of the current
batch, field ``i`` those of ``i`` batches ago.  Counts saturate at the field's
maximum instead of wrapping.  Closing a batch is one shift of every word by
one field (the oldest field falls off the top), so the window slides without
ever touching per-batch history arrays.  The shift itself waits until the
words are next written: a batch that reads no list (most one-row batches)
only counts one more pending shift, and the first access recorded after
pending shifts applies them all in one pass (shifting ``k`` times is one shift
by ``k`` fields).  Readers of the window (:meth:`score`, :meth:`price`,
:meth:`batch_counts`, :meth:`words`) account for the pending shifts without
applying them, so the window reads exactly as if every batch had shifted.

Order of calls in one batch (``cached`` placement; the refresh is
:meth:`GraphStore.refresh_cache <cugraph_stream.engine.store.GraphStore.refresh_cache>`,
run after the store applied the batch and before the queries read lists)::

    parts = [cache.list_values(hotness.score(upto=bound), adjacency)   # the last tau batches
             for every cached adjacency]
    candidates = select_in_chunks(ops, parts, ...)    # every cache's lists, one budget
    cache.evict(...)  for every cache, then  cache.load(...)  for every cache
    hotness.advance()                                 # open this batch's field (a pending shift)
    ...  at every step that reads lists (GraphStore.record_reads), in the pass that counts
         the reads' costs:  ops.count_reads(..., accesses=hotness.accesses(bound))  ...
         (the first of them in a batch applies the pending shifts)

so that the selection at the start of a batch sees exactly the ``tau``
batches before it.
"""
from __future__ import annotations

from ..backends.base import AccessCounts, ListPrice, field_sum
from .growth import ensure_vertex_capacity, fit_vertex_capacity
from .journal import Journal

DEFAULT_TAU = 3


class Hotness:
    """Per-vertex access counts over a sliding window of ``tau`` batches.

    Parameters
    ----------
    ops : Backend
        Operators of the device holding the counts.
    tau : int
        Batches in the window, 1 to 32.  Each batch gets a field of
        ``32 // tau`` bits, so a vertex counts at most ``2**(32 // tau) - 1``
        accesses per batch (1023 with the default ``tau=3``).
    journal : Journal, optional
        Where changes are recorded (the store's): the counts are kept whole
        at their first change in a transaction, unless :meth:`advance`
        replaced them in it (no copy then).

    Attributes
    ----------
    counts : array of uint32
        One packed word per vertex (see the module docstring).
    field_bits : int
        Bits per batch field.
    field_max : int
        Saturation value of one field.
    pending : int
        Batches closed since the words were last shifted (at most ``tau``):
        the window is ``counts`` shifted by that many fields (:meth:`words`).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> hot = Hotness(get_backend("cpu"), tau=3)
    >>> hot.ensure_vertices(4)
    >>> hot.record(np.array([1, 1, 2]))          # batch A: vertex 1 read twice
    >>> hot.advance()
    >>> hot.record(np.array([2]), counts=np.array([5]))
    >>> hot.score()[:4].tolist()
    [0, 2, 6, 0]
    >>> hot.advance(); hot.advance()              # batch A leaves the window
    >>> hot.score()[:4].tolist()
    [0, 0, 5, 0]
    """

    def __init__(self, ops, tau=DEFAULT_TAU, journal=None):
        tau = int(tau)
        if not 1 <= tau <= 32:
            raise ValueError(f"tau must be between 1 and 32 batches, got {tau}")
        xp = ops.xp
        self.ops = ops
        self.journal = Journal() if journal is None else journal
        self.tau = tau
        self.field_bits = 32 // tau
        self.field_max = (1 << self.field_bits) - 1
        self.window_mask = (1 << (self.field_bits * tau)) - 1
        self.counts = xp.zeros(0, dtype=xp.uint32)
        self.pending = 0
        self._spare = None          # the words a shift replaced, reused by the next one (see _shift)

    @property
    def max_score(self):
        """The largest :meth:`score` a vertex can reach (every field saturated)."""
        return self.tau * self.field_max

    def ensure_vertices(self, n):
        """Make :attr:`counts` hold at least ``n`` vertices (new ones start cold)."""
        ensure_vertex_capacity(self.ops.xp, self, ("counts",), n, self.journal)

    def fit_vertices(self, n):
        """Fit :attr:`counts` to ``n`` vertices (see :func:`fit_vertex_capacity`)."""
        return fit_vertex_capacity(self.ops.xp, self, ("counts",), n, self.journal)

    def record(self, vertices, counts=None, distinct=False, bound=None, times=1):
        """Add accesses to the current batch's field.

        Parameters
        ----------
        vertices : array of int
            Vertices whose lists were read; repeated vertices accumulate.
        counts : array of int, optional
            Accesses per entry of ``vertices`` (non-negative; default ``times`` each).
        distinct : bool
            Promise that ``vertices`` holds no repeats (a frontier compacted
            from a byte map), which skips the NumPy backend's tally.
        bound : int, optional
            Promise that every vertex is below ``bound`` (the store's vertex
            bound), which saves finding their maximum (a synchronisation).
        times : int
            Accesses per entry when ``counts`` is not given (default 1): rounds
            that read the same lists record them once.

        The field saturates at :attr:`field_max`; the other fields are untouched.
        """
        xp = self.ops.xp
        if vertices.size == 0:
            return
        vertices = vertices.astype(xp.int64, copy=False)
        words = self._open(int(vertices.max()) + 1 if bound is None else int(bound))
        if counts is None:                      # the same count everywhere: no per-entry array
            added = min(max(int(times), 0), self.field_max)
        else:
            added = xp.clip(counts, 0, self.field_max).astype(xp.uint32)
        self.ops.add_to_field(words, vertices, added, self.field_max, distinct)

    def accesses(self, bound, distinct=False, times=1):
        """What an operator that reads lists needs to :meth:`record` its reads as it
        goes (:class:`~cugraph_stream.backends.base.AccessCounts`, for
        :meth:`Backend.count_reads <cugraph_stream.backends.base.Backend.count_reads>`):
        the words, grown to ``bound`` vertices and journaled, and ``times``
        accesses per entry read.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> ops = get_backend("cpu")
        >>> hot = Hotness(ops, tau=3)
        >>> reads = np.zeros(8, dtype=np.int64)
        >>> ops.count_reads(reads, np.array([1, 1, 2]), np.array([0, 5, 5]), np.array([0, 0, 32]), None, 0, True,
        ...                 accesses=hot.accesses(bound=3, times=2))
        >>> hot.score(upto=3).tolist(), reads[:2].tolist()
        ([0, 4, 2], [3, 15])
        """
        return AccessCounts(self._open(bound), self.field_max, min(max(int(times), 0), self.field_max), distinct)

    def _open(self, bound):
        """The words, grown to ``bound`` vertices, shifted by the pending batches and
        kept by the journal, to add accesses to."""
        self.ensure_vertices(int(bound))
        if self.pending:
            self._shift()
        self.journal.save_all(self.counts)          # (free after a shift: the journal keeps the old array)
        return self.counts

    def advance(self):
        """Close the current batch: every field moves up by one, the oldest batch drops out.

        No pass over the words: the batch counts as one more :attr:`pending`
        shift, applied with the others when an access is next recorded (see
        the module docstring).  A rollback of the batch's transaction takes
        it back."""
        self.journal.assign(self, "pending", min(self.pending + 1, self.tau))

    def _shift(self):
        """Apply the :attr:`pending` shifts to the words: one launch over the whole
        array (the words of vertices never recorded, or forgotten, are zero and
        stay so).  In a transaction whose journal does not keep the words yet,
        the shifted words go to another array, which replaces them
        (:meth:`Journal.replace`): one pass, where keeping the old words for a
        rollback and shifting them in place took three.  That array is the one
        the last such shift replaced (a second buffer, free once its
        transaction ended), so no allocation either."""
        xp, journal = self.ops.xp, self.journal
        words = self.counts
        if journal.recording and not journal.keeps_whole(self.counts):
            spare = self._spare
            usable = spare is not None and spare is not self.counts and spare.shape == self.counts.shape
            words = spare if usable else xp.empty_like(self.counts)
        self._shifted(self.counts, words)
        if words is not self.counts:
            self._spare = self.counts          # the journal's pre-image until the transaction ends
            journal.replace(self, "counts", words)
        journal.assign(self, "pending", 0)

    def _shifted(self, words, out):
        """Write ``words`` shifted by the :attr:`pending` fields into ``out`` (may be ``words``)."""
        if self.pending >= self.tau:            # every batch of the window has dropped out
            out.fill(0)
        else:
            self.ops.shift_fields(words, self.pending * self.field_bits, self.window_mask, out)

    def words(self, upto=None):
        """The packed words of the window as it stands (the pending shifts applied),
        for every vertex or for those below ``upto``: :attr:`counts` itself (or a
        prefix of it) when no shift is pending, else a shifted copy.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> hot = Hotness(get_backend("cpu"), tau=3)          # fields of 10 bits
        >>> hot.ensure_vertices(2); hot.record(np.array([1, 1]))
        >>> hot.advance(); hot.pending, hot.counts[:2].tolist(), hot.words(upto=2).tolist()
        (1, [0, 2], [0, 2048])
        """
        words = self.counts if upto is None else self.counts[:int(upto)]
        if not self.pending:
            return words
        out = self.ops.xp.empty_like(words)
        self._shifted(words, out)
        return out

    @property
    def _fields(self):
        """How many of the low fields of :attr:`counts` are still in the window (the
        pending shifts push the others out)."""
        return self.tau - self.pending

    def batch_counts(self, age, vertices=None):
        """Accesses recorded ``age`` batches ago (0: the current batch), per vertex."""
        xp = self.ops.xp
        if not 0 <= age < self.tau:
            raise ValueError(f"age must be between 0 and tau - 1 = {self.tau - 1}, got {age}")
        words = self.counts if vertices is None else self.counts[vertices]
        if age < self.pending:                  # closed since the last shift: nothing recorded
            return xp.zeros(words.shape, dtype=xp.int64)
        shifted = words >> xp.uint32((age - self.pending) * self.field_bits)
        return (shifted & xp.uint32(self.field_max)).astype(xp.int64)

    def score(self, vertices=None, upto=None):
        """Accesses over the whole window (int64), for every vertex, for ``vertices``
        or for the vertices below ``upto`` (a prefix, without the spare capacity)."""
        xp = self.ops.xp
        if upto is not None:
            self.ensure_vertices(int(upto))          # before taking the words: it may grow them
        words = self.counts if vertices is None else self.counts[vertices]
        if upto is not None:
            words = words[:int(upto)]
        return field_sum(xp, words, self._fields, self.field_bits)

    def price(self, degree, itemsizes, upto):
        """What the reads of each vertex's list over the window were worth: a
        :class:`~cugraph_stream.backends.base.ListPrice` of lists of ``degree``
        entries read with ``itemsizes`` (the counts first grow to ``upto``
        vertices, so that every vertex below it has a word)."""
        self.ensure_vertices(int(upto))
        return ListPrice(degree, self.counts, self._fields, self.field_bits, tuple(itemsizes))

    def forget(self, vertices):
        """Reset removed ``vertices`` (their internal ids will be reused)."""
        if vertices.size:
            self.journal.write(self.counts, vertices, 0)

    def memory_bytes(self):
        spare = () if self._spare is None or self._spare is self.counts else (self._spare,)
        return self.ops.memory_bytes(self.counts, *spare)

    # ------------------------------------------------------------ checkpoints
    def export_state(self, upto):
        """The words of the vertices below ``upto`` (the vertex bound) that are not
        zero, for a checkpoint: a dict of host arrays ``internal`` (ascending)
        and ``counts`` (uint32, packed as :attr:`counts` is)."""
        ops, xp = self.ops, self.ops.xp
        words = self.words(upto)
        internal = xp.flatnonzero(words)
        return {"internal": ops.to_host(internal), "counts": ops.to_host(words[internal])}

    def import_state(self, state):
        """Set the words of :meth:`export_state` (same ``tau``); every other word is zero.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> hot = Hotness(get_backend("cpu"), tau=3)
        >>> hot.ensure_vertices(4); hot.record(np.array([1, 1, 3])); hot.advance()
        >>> copy = Hotness(get_backend("cpu"), tau=3)
        >>> copy.import_state(hot.export_state(upto=4))
        >>> copy.score(upto=4).tolist()
        [0, 2, 0, 1]
        """
        ops, xp = self.ops, self.ops.xp
        internal = ops.asarray(state["internal"], dtype=xp.int64)
        counts = ops.asarray(state["counts"])
        if counts.dtype != xp.uint32:
            raise ValueError(f"hotness counts of dtype {counts.dtype}, expected uint32")
        if internal.size:
            self.ensure_vertices(int(internal.max()) + 1)
        self.counts[...] = 0
        self.counts[internal] = counts
        self.pending = 0
