"""The registry of query kinds (:mod:`cugraph_stream.queries.kinds`): the
classes' public ``kind`` and ``source``, spellings, :func:`make`, and the
test references' kind lists checked against it."""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.queries import KINDS, MonotonicQuery, Query, lookup, make
from reference import ALL_KINDS, SOURCE_KINDS, VALUE_COLUMN, expected_columns, query_kind

SPELLINGS = {"SSSP": ["SSSP", "sssp", " Sssp "],
             "BFS": ["BFS", "bfs"],
             "WidestPath": ["WidestPath", "widest", "widestpath", "widest_path", "WIDEST"],
             "WCC": ["WCC", "wcc"],
             "PageRank": ["PageRank", "pagerank", "page_rank"]}


def small_graph():
    return cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [2.0, 3.0]}),
                                         weight="w")


def test_registry_lists_the_public_query_classes_in_order():
    assert list(KINDS) == ["SSSP", "BFS", "WidestPath", "WCC", "PageRank"]
    for name, cls in KINDS.items():
        assert cls.kind == name
        assert cls is getattr(cgs, name)
        assert issubclass(cls, Query)


def test_the_references_kind_lists_match_the_registry():
    assert ALL_KINDS == tuple(KINDS)
    assert SOURCE_KINDS == tuple(k for k, cls in KINDS.items() if cls.takes_source)
    assert VALUE_COLUMN == {k: cls.value_column for k, cls in KINDS.items()}


@pytest.mark.parametrize("kind", list(KINDS))
def test_tracked_queries_carry_their_kind_source_and_value_column(kind):
    cls = KINDS[kind]
    q = small_graph().track(make(kind, source=1))
    assert type(q) is cls and q.kind == kind and query_kind(q) == kind
    assert q.source == (1 if cls.takes_source else None)
    result = q.result()
    assert cls.value_column in result.columns
    assert [c for c, _ in expected_columns(kind, np.float32)] == list(result.columns)


def test_a_subclass_keeps_its_kind():
    class Shortest(cgs.SSSP):
        pass

    assert Shortest(source=0).kind == "SSSP"
    assert Shortest(source=0).name == "Shortest(source=0)"


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_spelling_finds_its_kind(kind):
    for spelling in SPELLINGS[kind]:
        assert lookup(spelling) is KINDS[kind]
    assert lookup(KINDS[kind].short_name) is KINDS[kind]


@pytest.mark.parametrize("spelling", ["katz", "", "sssp:0", None])
def test_an_unknown_kind_is_named_with_the_known_ones(spelling):
    with pytest.raises(ValueError, match=r"kind: unknown query kind .*; known kinds: SSSP, BFS, WidestPath, WCC, "
                                         r"PageRank"):
        lookup(spelling)
    with pytest.raises(ValueError, match="unknown query kind"):
        make(spelling, source=0)


def test_make_passes_each_option_to_the_kinds_that_take_it():
    options = {"source": 7, "mode": "recompute", "alpha": 0.5, "tol": 1e-4}
    assert repr(make("sssp", **options)) == "SSSP(source=7, mode='recompute')"
    assert repr(make("bfs", **options)) == "BFS(source=7, mode='recompute')"
    assert repr(make("widest", **options)) == "WidestPath(source=7, mode='recompute')"
    assert repr(make("wcc", **options)) == "WCC(mode='recompute')"
    assert repr(make("pagerank", **options)) == "PageRank(alpha=0.5, tol=0.0001, mode='recompute')"
    assert repr(make("PageRank")) == repr(cgs.PageRank())


@pytest.mark.parametrize("kind", [k for k, cls in KINDS.items() if cls.takes_source])
def test_make_needs_a_source_where_the_kind_takes_one(kind):
    with pytest.raises(ValueError, match=f"source: a {kind} query needs a source vertex"):
        make(kind)


def test_make_checks_the_options_as_the_constructors_do():
    with pytest.raises(ValueError, match="mode must be one of"):
        make("wcc", mode="lazy")
    with pytest.raises(ValueError, match="alpha must lie in"):
        make("pagerank", alpha=1.5)


def test_what_each_kind_needs():
    needs = {k: (cls.takes_source, cls.weighted, cls.needs_nonnegative_weights, cls.short_name)
             for k, cls in KINDS.items() if k != "PageRank"}
    assert needs == {"SSSP": (True, True, True, "sssp"), "BFS": (True, False, False, "bfs"),
                     "WidestPath": (True, True, True, "widest"), "WCC": (False, False, False, "wcc")}
    # PageRank's needs are the instance's: weighted (cuGraph's default on a weighted graph) or not
    pagerank = KINDS["PageRank"]
    assert (pagerank.takes_source, pagerank.short_name) == (False, "pagerank")
    assert pagerank(weighted=True).needs_nonnegative_weights
    assert not pagerank(weighted=False).needs_nonnegative_weights
    assert [k for k, cls in KINDS.items() if issubclass(cls, MonotonicQuery)] == ["SSSP", "BFS", "WidestPath", "WCC"]
