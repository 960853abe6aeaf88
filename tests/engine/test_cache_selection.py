"""The hot caches' selection policy against brute-force Python models.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on
CuPy: the policy is written once against ``ops.xp``.  Chunks of one byte
with no room left (:func:`select_bytes`) make :func:`select_in_chunks` the
plain joint prefix selection within a byte budget.
"""
import numpy as np

from cugraph_stream.engine.cache_selection import allot_chunks, list_values, select_in_chunks
from cugraph_stream.engine.hotness import Hotness
from cugraph_stream.engine.reads import READ_UNIT_BYTES
from list_helpers import host


def select_bytes(ops, parts, budget_bytes):
    """The joint prefix of the ranking within ``budget_bytes``: chunks of one byte, no room left."""
    return select_in_chunks(ops, parts, [1] * len(parts), budget_bytes, room_share=0)


def brute_values(score, degree, slot_bytes, itemsizes, max_slots):
    """(vertex, cost, density) of every eligible list, by plain Python arithmetic."""
    rows = []
    for v in range(min(len(score), len(degree))):
        d = int(degree[v])
        if score[v] > 0 and d > 0 and (max_slots is None or d <= max_slots):
            saved = sum(-(-d * size // READ_UNIT_BYTES) for size in itemsizes)
            rows.append((v, d * slot_bytes, np.float32(float(score[v]) * saved / (d * slot_bytes))))
    return rows


def brute_select(parts, budget):
    ranked = sorted(((density, p, v, cost) for p, rows in enumerate(parts) for v, cost, density in rows),
                    key=lambda r: (-r[0], r[1], r[2]))
    chosen, used = [[] for _ in parts], 0
    for _, p, v, cost in ranked:
        used += cost
        if used > budget:
            break
        chosen[p].append(v)
    return chosen


def test_select_in_bytes_against_brute_force(ops):
    rng = np.random.default_rng(7)
    for trial in range(150):
        parts, expected_parts = [], []
        for _ in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 120))
            score = rng.integers(0, 4 if trial % 2 else 3070, n)          # few distinct values: many ties
            degree = rng.integers(0, 300, int(rng.integers(max(n - 5, 0), n + 5)))
            degree[rng.random(degree.size) < 0.2] = 0
            slot_bytes = int(rng.choice([4, 6, 8, 12]))
            itemsizes = (4,) if slot_bytes == 4 else (4, slot_bytes - 4)
            max_slots = None if trial % 3 == 0 else int(rng.integers(1, 400))
            values = list_values(ops, ops.asarray(score), ops.asarray(degree), slot_bytes, itemsizes, max_slots)
            rows = brute_values(score.tolist(), degree.tolist(), slot_bytes, itemsizes, max_slots)
            assert host(ops, values.vertices).tolist() == [r[0] for r in rows]
            assert host(ops, values.cost).tolist() == [r[1] for r in rows]
            assert host(ops, values.density).tolist() == [float(r[2]) for r in rows]
            parts.append(values)
            expected_parts.append(rows)
        total = sum(r[1] for rows in expected_parts for r in rows)
        budget = int(rng.integers(0, total + 2)) if trial % 5 else total + 1000
        got = select_bytes(ops, parts, budget)
        assert [host(ops, g).tolist() for g in got] == brute_select(expected_parts, budget)


def test_select_in_chunks_gives_whole_chunks(ops):
    """Each cache takes a prefix of its own ranking within whole chunks; the chunks shared out
    follow the joint ranking (largest remainder) and never exceed the total."""
    rng = np.random.default_rng(8)
    for trial in range(60):
        parts, rows = [], []
        for _ in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 80))
            score, degree = rng.integers(0, 20, n), rng.integers(0, 40, n)
            slot_bytes = int(rng.choice([4, 8]))
            itemsizes = (4,) if slot_bytes == 4 else (4, 4)
            parts.append(list_values(ops, ops.asarray(score), ops.asarray(degree), slot_bytes, itemsizes))
            rows.append(brute_values(score.tolist(), degree.tolist(), slot_bytes, itemsizes, None))
        chunk_bytes = [int(rng.integers(1, 5)) * 64 for _ in parts]
        total = int(rng.integers(0, 12))
        room_share = float(rng.choice([0.0, 1 / 8]))
        got = [host(ops, g).tolist() for g in select_in_chunks(ops, parts, chunk_bytes, total, room_share)]
        joint = brute_select(rows, total * max(chunk_bytes))
        wanted = [sum(cost for v, cost, _ in r if v in set(j)) for r, j in zip(rows, joint)]
        allot = allot_chunks(wanted, chunk_bytes, total * max(chunk_bytes))
        assert sum(n * c for n, c in zip(allot, chunk_bytes)) <= total * max(chunk_bytes)
        assert all(n <= -(-w // c) for n, w, c in zip(allot, wanted, chunk_bytes))
        for r, g, n_chunks, c in zip(rows, got, allot, chunk_bytes):
            assert g == brute_select([r], int(n_chunks * c * (1 - room_share)))[0] if n_chunks else g == []


def test_short_lists_are_worth_more_per_byte(ops):
    """A read of 1 entry costs a whole 64-byte transaction: per cached byte, it saves 16 times
    what a read of a 16-entry list saves."""
    values = list_values(ops, ops.asarray(np.array([1, 1, 1])), ops.asarray(np.array([16, 1, 17])), 4, (4,))
    assert host(ops, values.density).tolist() == [1 / 64, 1 / 4, np.float32(2 / 68)]
    got = select_bytes(ops, [values], budget_bytes=4 + 4 * 17)
    assert host(ops, got[0]).tolist() == [1, 2]            # then the 17-entry list: 2 transactions


def test_select_ties_go_to_the_earlier_part_then_the_smaller_id(ops):
    score = ops.asarray(np.array([4, 4, 9, 4, 4]))
    degree = ops.asarray(np.array([1, 1, 1, 1, 1]))
    out = list_values(ops, score, degree, 8, (4, 4))
    inn = list_values(ops, score, degree, 8, (4, 4))
    got = select_bytes(ops, [out, inn], 4 * 8)
    assert [host(ops, g).tolist() for g in got] == [[2, 0, 1], [2]]


def test_select_with_hotness_scores_near_the_top(ops):
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(5)
    # densities compare in float32: scores apart by less than one part in 2**24 would tie
    hot.record(ops.asarray(np.array([4, 1])), counts=ops.asarray(np.array([2 ** 32 - 1, 2 ** 32 - 2 ** 9])))
    degree = ops.asarray(np.array([3, 3, 3, 3, 3]))
    got = select_bytes(ops, [list_values(ops, hot.score(), degree, 8, (4, 4))], 10 ** 6)
    assert host(ops, got[0]).tolist() == [4, 1]
