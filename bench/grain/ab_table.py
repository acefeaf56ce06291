#!/usr/bin/env python3
"""bench/grain/ab_table.py ROWS.csv NAME,NAME... - the median replay (us)
of each build named, with the spread over rounds, the best peer's median
(each peer's median over the rounds), the best peer's over each build's
(above 1: that build faster) and the sequential floor's median, per
machine, threads, grain and shape, from the rows of bench/run.sh ab."""
import collections
import statistics as st
import sys

rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) < 15 or not f[3].isdigit():
        continue
    cores, rt, t, shape, param, grain = f[1:7]
    rt = {"gomp_persist": "OpenMP", "tbb_flow": "oneTBB", "taskflow": "Taskflow"}.get(rt, rt)
    rows[(cores, int(t), float(grain), f"{shape} {param}", rt)].append(int(f[9]) / 1000)
names = sys.argv[2].split(",")


def spread(v):
    """The lowest and highest figure, with a decimal below 100 us."""
    f = "{:.1f}-{:.1f}" if max(v) < 100 else "{:.0f}-{:.0f}"
    return f.format(min(v), max(v))


peers = ["Taskflow", "oneTBB", "OpenMP"]
print("median replay in us [lowest-highest over the rounds]: lower is better; peer/NAME above 1: NAME is "
      "faster than the best peer\n")
print("| machine | threads | grain | shape | " + " | ".join(names) + " | best peer | " +
      " | ".join(f"peer/{n}" for n in names) + " | seq |")
print("|---" * (6 + 2 * len(names)) + "|")
for key in sorted({k[:4] for k in rows}):
    med = {n: st.median(rows[key + (n,)]) for n in names if rows.get(key + (n,))}
    if len(med) < len(names):
        continue
    cells = [f"{med[n]:.1f} [{spread(rows[key + (n,)])}]" for n in names]
    pv = [(st.median(rows[key + (p,)]), p) for p in peers if rows.get(key + (p,))]
    best = min(pv) if pv else None
    peer = f"{best[0]:.1f} {best[1]}" if best else "-"
    ratios = [f"{best[0] / med[n]:.2f}" if best else "-" for n in names]
    sq = rows.get((key[0], 1, key[2], key[3], "seq"))
    print(f"| {key[0]} | {key[1]} | {key[2]:g} | {key[3]} | " + " | ".join(cells) + f" | {peer} | " +
          " | ".join(ratios) + (f" | {st.median(sq):.1f} |" if sq else " | - |"))
