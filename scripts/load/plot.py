"""Plots a load run (scripts/load/run.js output): tick time over each scenario's recording,
per second (mean and slowest tick), against the floor's, with the zombie counts, so an operator
sees where the 50 ms budget goes. Usage: plot.py RUN_DIR OUT.png"""

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def per_second(csv_path):
    """Mean and max tick time of each whole second of the recording."""
    buckets = defaultdict(list)
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            buckets[int(float(row["second"]))].append(float(row["tick_ms"]))
    seconds = sorted(buckets)
    return (
        seconds,
        [sum(buckets[s]) / len(buckets[s]) for s in seconds],
        [max(buckets[s]) for s in seconds],
    )


def main(run_dir, out):
    run = Path(run_dir)
    results = json.loads((run / "results.json").read_text())
    scenarios = [r for r in results if not r["floor"]]
    fig, axes = plt.subplots(len(scenarios), 1, figsize=(10, 3.6 * len(scenarios)), squeeze=False)
    for ax, r in zip(axes[:, 0], scenarios):
        name = r["scenario"]
        s, mean, peak = per_second(run / f"{name}-ticks.csv")
        ax.fill_between(s, mean, peak, color="tab:red", alpha=0.15, label="horde: slowest tick")
        ax.plot(s, mean, color="tab:red", label="horde: mean tick")
        floor_csv = run / f"{name}-floor-ticks.csv"
        if floor_csv.exists():
            fs, fmean, _ = per_second(floor_csv)
            ax.plot(fs, fmean, color="grey", linestyle="--", label="floor (Valence, no AI): mean tick")
        ax.axhline(50, color="black", linewidth=0.8)
        ax.text(s[-1], 51, "50 ms budget", fontsize=8, va="bottom", ha="right")
        ax.set_ylim(0, max(60, max(peak) * 1.1))
        ax.set_ylabel("tick time (ms)")
        ax.set_title(
            f"{name}: {r['bots']} players, {r['zombies']} zombies — "
            f"mean {r['tick']['mean']} ms, p99 {r['tick']['p99']} ms"
        )
        counts = ax.twinx()
        t = [p["t"] for p in r["timeline"]]
        counts.plot(t, [p.get("total", 0) for p in r["timeline"]], color="tab:green", label="zombies materialised")
        counts.plot(t, [p.get("ghost_members", 0) for p in r["timeline"]], color="tab:blue", label="zombies in ghost packs")
        counts.set_ylabel("zombies")
        # Counts in the lower part, clear of the legend and the budget line.
        counts.set_ylim(0, r["zombies"] * 1.6)
        lines = ax.get_legend_handles_labels()
        more = counts.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper left", fontsize=7, ncol=2)
    axes[-1, 0].set_xlabel("seconds into the recording")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
