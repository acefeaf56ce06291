#!/usr/bin/env python3
"""summarize.py - the grain benchmark's tables from its CSV (bench/run.sh grain).

usage: summarize.py [--machine machine.txt] [--json out.json] sweep.csv ...

For each thread count, one table: a row per grain, a column per shape,
each cell "ratio  eff graphrt / eff best peer", where

  ratio      = best peer's median replay / graphrt's (> 1: graphrt faster)
  efficiency = sequential replay (the sum of the task times on one thread)
               / (threads x median replay)

and the best peer is the fastest of oneTBB flow graph, Taskflow and OpenMP
tasks on that cell. The closing lines count the cells where graphrt is
slower than the best peer and where it is at least 1.3x faster.
"""
import argparse
import csv
import json
import statistics
import sys

SHAPES = [("chain", "chain 100"), ("fan64", "fan 64"), ("fan1024", "fan 1024"),
          ("rand", "rand 10k"), ("layered", "layered 20x64")]
PEERS = {"tbb_flow": "oneTBB", "taskflow": "Taskflow", "gomp_persist": "OpenMP"}


def shape_key(row):
    if row["shape"] in ("fan", "wide"):
        return row["shape"] + row["param"]
    return row["shape"]


def load(paths):
    """One entry per (runtime, threads, shape, grain); a cell measured in
    several rounds (run.sh's ROUNDS) gets the median of its rounds' figures,
    the lowest minimum, the replays of all rounds and its round count."""
    rounds = {}
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(line for line in f if not line.startswith("#")):
                if not r.get("rt") or r["rt"] == "rt":
                    continue
                key = (r["rt"], int(r["threads"]), shape_key(r), float(r["grain_us"]))
                rounds.setdefault(key, []).append(
                    {"median_ns": float(r["replay_med_ns"]), "min_ns": float(r["replay_min_ns"]),
                     "p90_ns": float(r["replay_p90_ns"]), "reps": int(r["reps"]),
                     "tasks": int(r["tasks"]), "cpu_ns_per_replay": float(r["cpu_ns_per_replay"]),
                     "eff_threads": float(r["eff_threads"])})
    data = {}
    for key, rs in rounds.items():
        cell = {k: statistics.median(x[k] for x in rs)
                for k in ("median_ns", "p90_ns", "cpu_ns_per_replay", "eff_threads")}
        cell.update({"min_ns": min(x["min_ns"] for x in rs), "reps": sum(x["reps"] for x in rs),
                     "tasks": rs[0]["tasks"], "rounds": len(rs)})
        data[key] = cell
    return data


def wide_cells(data):
    """Wide kernels (bench_wide.c): efficiency of graphrt's eager launch and
    graph replay and of OpenMP's better schedule, per threads, blocks and grain."""
    cells = []
    keys = sorted({(t, int(s[4:]), g) for (rt, t, s, g) in data if s.startswith("wide") and rt != "seq"})
    for t, b, g in keys:
        s = "wide%d" % b
        sq = data.get(("seq", 1, s, g))
        got = {rt: v for (rt, tt, ss, gg), v in data.items() if ss == s and tt == t and gg == g}
        if not sq or "graphrt_eager" not in got:
            continue
        eff = {rt: sq["median_ns"] / (t * v["median_ns"]) for rt, v in got.items()}
        omp = max((e for rt, e in eff.items() if rt.startswith("omp")), default=None)
        cells.append({"threads": t, "grain_us": g, "blocks": b, "eff": eff, "omp_best_eff": omp})
    return cells


def print_wide(cells, out):
    print("\n## Wide kernels: one kernel of B blocks, each a task of the grain\n", file=out)
    print("(parallel efficiencies: higher is better, 1 is ideal; eager / OpenMP above 1: graphrt more "
          "efficient)\n", file=out)
    print("| threads | grain | blocks | eager | graph | OpenMP (best schedule) | eager / OpenMP |", file=out)
    print("|---|---|---|---|---|---|---|", file=out)
    for c in cells:
        e = c["eff"]
        omp = c["omp_best_eff"]
        print("| %d | %g us | %d | %.2f | %s | %s | %s |" % (
            c["threads"], c["grain_us"], c["blocks"], e["graphrt_eager"],
            "%.2f" % e["graphrt_graph"] if "graphrt_graph" in e else "-",
            "%.2f" % omp if omp else "-", "%.2f" % (e["graphrt_eager"] / omp) if omp else "-"), file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--machine")
    ap.add_argument("--json")
    ap.add_argument("csv", nargs="+")
    a = ap.parse_args()
    machine = []
    if a.machine:
        with open(a.machine) as f:
            machine = [line.rstrip("\n").lstrip("# ") for line in f if line.strip()]
    data = load(a.csv)
    seq = {(s, g): v for (rt, t, s, g), v in data.items() if rt == "seq"}
    threads = sorted({t for (rt, t, s, g) in data if rt == "graphrt"})
    grains = sorted({g for (rt, t, s, g) in data if rt == "graphrt"})
    shapes = [(k, n) for k, n in SHAPES if any(s == k for (_, _, s, _) in data)]
    peers_seen = sorted({PEERS[rt] for (rt, _, _, _) in data if rt in PEERS})

    cells = []
    for t in threads:
        for g in grains:
            for s, _ in shapes:
                gr = data.get(("graphrt", t, s, g))
                sq = seq.get((s, g))
                if not gr:
                    continue
                best = None
                best_eff = None
                for rt, name in PEERS.items():
                    p = data.get((rt, t, s, g))
                    if not p:
                        continue
                    if best is None or p["median_ns"] < best[1]["median_ns"]:
                        best = (name, p)
                    if sq:
                        e = sq["median_ns"] / (t * p["median_ns"])
                        if best_eff is None or e > best_eff[1]:
                            best_eff = (name, e)
                cell = {"threads": t, "grain_us": g, "shape": s, "graphrt": gr,
                        "graphrt_eff": sq["median_ns"] / (t * gr["median_ns"]) if sq else None,
                        "seq_median_ns": sq["median_ns"] if sq else None}
                if best:
                    cell.update({"best_peer": best[0], "best_peer_median_ns": best[1]["median_ns"],
                                 "ratio": best[1]["median_ns"] / gr["median_ns"]})
                if best_eff:
                    cell.update({"best_eff_peer": best_eff[0], "best_peer_eff": best_eff[1]})
                cells.append(cell)

    out = sys.stdout
    for line in machine:
        print("# " + line, file=out)
    print("# peers measured: %s" % (", ".join(peers_seen) or "none"), file=out)
    print("# cell: ratio (best peer median / graphrt median; > 1: graphrt faster)  "
          "eff graphrt / eff of the most efficient peer", file=out)
    print("# higher is better in every cell: a ratio above 1 means graphrt is faster than the best peer; "
          "efficiency = sequential time / (threads x replay), 1 is ideal", file=out)
    for t in threads:
        print("\n## %d thread%s\n" % (t, "" if t == 1 else "s"), file=out)
        print("| grain | " + " | ".join(n for _, n in shapes) + " |", file=out)
        print("|---|" + "---|" * len(shapes), file=out)
        for g in grains:
            row = []
            for s, _ in shapes:
                c = next((c for c in cells if c["threads"] == t and c["grain_us"] == g and c["shape"] == s), None)
                if not c:
                    row.append("")
                    continue
                txt = "%.2fx" % c["ratio"] if "ratio" in c else "-"
                if c.get("graphrt_eff") is not None and g > 0:
                    txt += " %.2f/%s" % (c["graphrt_eff"],
                                         "%.2f" % c["best_peer_eff"] if "best_peer_eff" in c else "-")
                row.append(txt)
            print("| %g us | %s |" % (g, " | ".join(row)), file=out)
    rated = [c for c in cells if "ratio" in c and c["grain_us"] > 0]
    slower = [c for c in rated if c["ratio"] < 1.0]
    fast = [c for c in rated if c["ratio"] >= 1.3]
    print("\ngrains > 0: %d cells; graphrt slower than the best peer on %d, >= 1.3x faster on %d"
          % (len(rated), len(slower), len(fast)), file=out)
    zero = [c for c in cells if "ratio" in c and c["grain_us"] == 0]
    if zero:
        print("grain 0: lowest ratio %.1fx (%s, %d threads)" % min(
            (c["ratio"], c["shape"], c["threads"]) for c in zero), file=out)
    wide = wide_cells(data)
    if wide:
        print_wide(wide, out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": machine, "peers": peers_seen, "cells": cells, "wide": wide}, f, indent=1)


if __name__ == "__main__":
    main()
