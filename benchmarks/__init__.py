"""Benchmarks of cugraph_stream (run as modules, e.g. ``python -m benchmarks.cpu_vs_scipy``)."""
