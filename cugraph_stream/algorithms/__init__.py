"""Algorithms as specifications: a relaxation :class:`Rule` per monotonic query,
run by the engine through the operators of a backend."""
from .rule import Rule
from .specs import bfs_rule, every_rule, sssp_rule, widest_path_rule, wcc_rule

__all__ = ["Rule", "bfs_rule", "sssp_rule", "widest_path_rule", "wcc_rule", "every_rule"]
