#!/usr/bin/env python3
"""compare_dot.py - compares the graphs 'graphrt record' wrote with CUDA's
own DOT of the same graphs (cudaGraphDebugDotPrint, as the clients and
torch's CUDAGraph.debug_dump write it): node count, node types, kernel
names and edges of the top-level graph.

usage: compare_dot.py SESSION_JSON DOT_FILE...

Each DOT file is paired with the recorded graph (the last version of each
graph in session.json) that matches it best; a line per DOT file says
what equals and what differs. Edges are compared by node index when the
DOT numbers its nodes as the recorded file does (both follow the graph's
node list), else as a multiset of (type:name -> type:name) pairs.
Exit status: 0 when every DOT file has an equal recorded graph, 1 if not.
"""
import collections
import json
import os
import re
import sys

DOT_TYPES = {
    "KERNEL": "kernel", "MEMCPY": "memcpy", "MEMSET": "memset", "HOST": "host",
    "EMPTY": "empty", "EVENT_RECORD": "record", "RECORD": "record",
    "WAIT_EVENT": "wait", "EVENT_WAIT": "wait", "WAIT": "wait",
    "MEM_ALLOC": "alloc", "MEM_FREE": "free", "GRAPH": "graph",
    "CHILD_GRAPH": "graph", "CONDITIONAL": "cond",
}


def unescape(s):
    return re.sub(r"\\(.)", r"\1", s)


def label_of(text, pos):
    """The label="..." value of the node statement starting at pos."""
    i = text.find('label="', pos)
    if i < 0:
        return ""
    i += 7
    j = i
    while j < len(text) and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return text[i:j]


def read_dot(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    nodes = {}
    order = []
    # A node statement opens its line; an edge's head ("a" -> "b" [...])
    # is followed by '[' too, but never at the start of a line.
    for m in re.finditer(r'^"(graph_(\d+)_node_(\d+))"\s*\[', text, re.M):
        name, cluster, idx = m.group(1), int(m.group(2)), int(m.group(3))
        label = label_of(text, m.end())
        words = re.findall(r"[A-Z][A-Z_]{2,}", label)
        t = DOT_TYPES.get(words[0], words[0].lower()) if words else "?"
        kname = None
        if t == "kernel":
            k = re.search(r"\{ID \|[^|]*\| (.*?)\\<\\<\\<", label, re.S)
            if k:
                kname = unescape(k.group(1)).strip()
        nodes[name] = (cluster, idx, t, kname)
        order.append(name)
    edges = [(m.group(1), m.group(2)) for m in
             re.finditer(r'"(graph_\d+_node_\d+)"\s*->\s*"(graph_\d+_node_\d+)"', text)]
    if not order:
        return None
    top = nodes[order[0]][0]
    top_nodes = sorted((v[1], v[2], v[3]) for k, v in nodes.items() if v[0] == top)
    top_edges = [(nodes[a][1], nodes[b][1]) for a, b in edges
                 if a in nodes and b in nodes and nodes[a][0] == top and nodes[b][0] == top]
    return {"nodes": [(t, k) for _, t, k in top_nodes], "index": [i for i, _, _ in top_nodes],
            "edges": top_edges, "all_nodes": len(nodes)}


def read_graph_file(path):
    decl = {}
    nodes, edges = [], []
    depth = 0
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = re.match(r'kernel (k\d+) "((?:[^"\\]|\\.)*)"', s)
        if m and depth == 0:
            decl[m.group(1)] = re.sub(r"\\x([0-9a-fA-F]{2})", lambda h: chr(int(h.group(1), 16)),
                                      unescape_keep_x(m.group(2)))
            continue
        if s == "graph {":
            depth = 1
            continue
        if s == "}" or s == "} {":
            depth -= 1 if s == "}" else 0
            continue
        m = re.match(r"n(\d+) (\w+)(.*)$", s)
        if m and depth == 1:
            idx, t, rest = int(m.group(1)), m.group(2), m.group(3)
            kname = None
            if t == "kernel":
                k = re.match(r" (k\d+)", rest)
                kname = decl.get(k.group(1)) if k else None
            nodes.append((t, kname))
            a = re.search(r"after=([n\d,]+)", rest)
            if a:
                for d in a.group(1).split(","):
                    edges.append((int(d[1:]), idx))
        if s.endswith("{"):
            depth += 1
    return {"nodes": nodes, "edges": edges}


def unescape_keep_x(s):
    # \" and \\ are single characters; \xHH is decoded by the caller.
    return re.sub(r'\\(["\\])', r"\1", s)


def compare(dot, rec):
    diffs = []
    if len(dot["nodes"]) != len(rec["nodes"]):
        diffs.append("nodes %d (CUDA) vs %d (recorded)" % (len(dot["nodes"]), len(rec["nodes"])))
    tc_d = collections.Counter(t for t, _ in dot["nodes"])
    tc_r = collections.Counter(t for t, _ in rec["nodes"])
    if tc_d != tc_r:
        diffs.append("types %s vs %s" % (dict(tc_d), dict(tc_r)))
    kn_d = collections.Counter(k for t, k in dot["nodes"] if t == "kernel")
    kn_r = collections.Counter(k for t, k in rec["nodes"] if t == "kernel")
    if kn_d != kn_r:
        only_d = list((kn_d - kn_r).elements())[:3]
        only_r = list((kn_r - kn_d).elements())[:3]
        diffs.append("kernel names differ: CUDA only %s, recorded only %s" % (only_d, only_r))
    by_index = dot["index"] == list(range(len(dot["nodes"]))) and \
        [n for n in dot["nodes"]] == [n for n in rec["nodes"]]
    if by_index:
        same = collections.Counter(dot["edges"]) == collections.Counter(rec["edges"])
        how = "by index"
    else:
        lab = lambda nodes, i: "%s:%s" % nodes[i] if i < len(nodes) else "?"
        pd = collections.Counter((lab(dot["nodes"], dot["index"].index(a) if a in dot["index"] else 10**9),
                                  lab(dot["nodes"], dot["index"].index(b) if b in dot["index"] else 10**9))
                                 for a, b in dot["edges"])
        pr = collections.Counter((lab(rec["nodes"], a), lab(rec["nodes"], b)) for a, b in rec["edges"])
        same = pd == pr
        how = "as labelled pairs"
    if not same:
        diffs.append("edges %d (CUDA) vs %d (recorded), compared %s" % (len(dot["edges"]), len(rec["edges"]), how))
    return diffs, how


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    session = json.load(open(sys.argv[1]))
    base = os.path.dirname(sys.argv[1])
    recs = []
    for proc in session["processes"]:
        for g in proc["graphs"]:
            if g.get("file"):
                recs.append((g["file"], read_graph_file(os.path.join(base, g["file"]))))
    bad = 0
    for path in sys.argv[2:]:
        dot = read_dot(path)
        name = os.path.basename(path)
        if dot is None:
            print("FAIL %s: no nodes found in the DOT file" % name)
            bad += 1
            continue
        best = None
        for f, rec in recs:
            diffs, how = compare(dot, rec)
            if best is None or len(diffs) < len(best[1]):
                best = (f, diffs, how)
        if best is None:
            print("FAIL %s: nothing recorded" % name)
            bad += 1
        elif best[1]:
            print("FAIL %s vs %s: %s" % (name, best[0], "; ".join(best[1])))
            bad += 1
        else:
            tc = collections.Counter(t for t, _ in dot["nodes"])
            print("OK   %s == %s: %d nodes (%s), %d kernel names, %d edges equal %s"
                  % (name, best[0], len(dot["nodes"]), ", ".join("%s %d" % kv for kv in sorted(tc.items())),
                     tc.get("kernel", 0), len(dot["edges"]), best[2]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
