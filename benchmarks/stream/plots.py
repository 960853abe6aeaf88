"""PNG plots (matplotlib, Agg backend): time per batch and bytes moved per batch
of a run, and the mean time per batch along a sweep."""

from __future__ import annotations

import math


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _short(value):
    """``1500000`` -> ``1.5M``; small numbers as they are."""
    for suffix, size in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= (10 * size if suffix == "K" else size):
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def _log_axis(ax, axis="y"):
    """Log scale labelled with plain numbers: decades, and more marks in between the
    fewer decades the data span."""
    from matplotlib.ticker import FuncFormatter

    low, high = ax.dataLim.intervaly if axis == "y" else ax.dataLim.intervalx
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    span = float(high) / max(float(low), 1e-12)
    marks = (1.0,) if axis == "x" or span >= 100 else (1.0, 2.0, 5.0) if span >= 10 else tuple(
        float(m) for m in range(1, 10))

    def label(value, _):
        if value <= 0:
            return ""
        mantissa = value / 10 ** math.floor(math.log10(value))
        return _short(value) if round(mantissa, 6) in marks else ""

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(FuncFormatter(label))
    target.set_minor_formatter(FuncFormatter(label))


def _integer_x(ax):
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _grid(plt, panels):
    cols = min(3, panels)
    rows = -(-panels // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[panels:]:
        ax.axis("off")
    return fig, flat[:panels], flat[panels:]


def _series(record, name, kind):
    if kind == "all queries":
        return [1e3 * r["systems"][name]["total_s"] for r in record["batches"]]
    return [1e3 * r["systems"][name]["queries"][kind]["time_s"] for r in record["batches"]]


def _finish(plt, fig, axes, spare, title, path):
    handles, labels = axes[0].get_legend_handles_labels()
    if spare:
        spare[0].legend(handles, labels, loc="center", frameon=False)
    else:
        axes[-1].legend(fontsize="small")
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_times(record, path):
    """Time per batch of every system, one panel per query and one for all queries."""
    plt = _pyplot()
    kinds = list(record["config"]["queries"]) + ["all queries"]
    fig, axes, spare = _grid(plt, len(kinds))
    batches = [r["batch"] for r in record["batches"]]
    for ax, kind in zip(axes, kinds):
        for name in record["systems"]:
            ax.plot(batches, _series(record, name, kind), marker="o", markersize=3, label=name)
        _log_axis(ax)
        _integer_x(ax)
        ax.set_title(kind)
        ax.set_xlabel("batch")
        ax.set_ylabel("time per batch (ms)")
        ax.grid(True, which="both", alpha=0.3)
    _finish(plt, fig, axes, spare, f"time per batch: {_title(record)}", path)


def plot_bytes(record, path):
    """Adjacency entries read and bytes read from host memory per batch (cugraph_stream
    systems; the second panel needs issue 4's report fields)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), squeeze=False)
    left, right = axes[0]
    batches = [r["batch"] for r in record["batches"]]
    any_host = False
    for name in record["systems"]:
        reads = [r["systems"][name].get("edges_read") for r in record["batches"]]
        if any(v for v in reads):
            left.plot(batches, [v or float("nan") for v in reads], marker="o", markersize=3, label=name)
        host = [r["systems"][name].get("host_bytes") for r in record["batches"]]
        if any(v for v in host):
            any_host = True
            right.plot(batches, [v or float("nan") for v in host], marker="o", markersize=3, label=name)
    left.set_title("adjacency entries read (BatchReport.edges_scanned)")
    right.set_title("bytes read from host memory")
    for ax, used in ((left, bool(left.lines)), (right, any_host)):
        ax.set_xlabel("batch")
        ax.grid(True, which="both", alpha=0.3)
        if used:
            _log_axis(ax)
            _integer_x(ax)
            ax.legend(fontsize="small")
        else:
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, "not reported by these systems" if ax is left else
                    "not reported by this engine\n(host placements: issue 4)",
                    ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(f"work per batch: {_title(record)}", fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def plot_sweep(sweep, path):
    """Median time per batch of every system along the sweep, one panel per query."""
    plt = _pyplot()
    points = sweep["points"]
    kinds = list(points[0]["config"]["queries"]) + ["all queries"]
    fig, axes, spare = _grid(plt, len(kinds))
    x = [p["value"] for p in points]
    for ax, kind in zip(axes, kinds):
        for name in points[0]["medians"]:
            ax.plot(x, [p["medians"][name][kind] for p in points], marker="o", markersize=3,
                    label=name)
        _log_axis(ax)
        if sweep["parameter"] == "batch_size":
            _log_axis(ax, "x")
        ax.set_title(kind)
        ax.set_xlabel(sweep["xlabel"])
        ax.set_ylabel("median time per batch (ms)")
        ax.grid(True, which="both", alpha=0.3)
    _finish(plt, fig, axes, spare, sweep["title"], path)


def _title(record):
    c = record["config"]
    return (f"{c['label']}, R-MAT scale {c['scale']}, {c['batches']} batches of {c['batch_size']:,} "
            f"({c['delete_fraction']:.0%} deletions)")
