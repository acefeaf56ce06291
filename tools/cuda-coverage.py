#!/usr/bin/env python3
"""cuda-coverage.py - how much of CUDA's runtime API for streams, events,
capture, graphs, pools and graph memory graphrt offers.

Reads the runtime functions the installed CUDA toolkit declares
(cuda_runtime_api.h) and the public functions of graphrt (include/graphrt.h),
sorts CUDA's into families by name, and prints per family how many CUDA
functions there are, how many graphrt has (the same name with `gr` for
`cuda`), and which are missing, then the overall percentage.

A CUDA name with a version suffix (cudaGraphAddNode_v2) counts as present
when graphrt has the name or the name without the suffix: graphrt's calls
take the current signatures under the base names.

Usage: tools/cuda-coverage.py [CUDA_RUNTIME_API_H] [--graphrt-h PATH] [--json]
Exit status: 0 (the figure is information, not a test), 2 when a header
cannot be read.
"""

import argparse
import json
import os
import re
import sys

DEFAULT_CUDA_H = "/usr/local/cuda/include/cuda_runtime_api.h"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_GRAPHRT_H = os.path.join(ROOT, "include", "graphrt.h")

CAPTURE = re.compile(
    r"^cuda(StreamBeginCapture\w*|StreamEndCapture\w*|StreamIsCapturing\w*|"
    r"StreamGetCaptureInfo\w*|StreamUpdateCaptureDependencies\w*|"
    r"ThreadExchangeStreamCaptureMode)$")
GRAPH_MEMORY = re.compile(
    r"^cuda(DeviceGraphMem\w*|DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|"
    r"GraphAddMemAllocNode|GraphAddMemFreeNode|GraphMemAllocNodeGetParams|"
    r"GraphMemFreeNodeGetParams)$")
POOLS = re.compile(
    r"^cuda(MemPool\w*|MallocAsync|FreeAsync|MallocFromPoolAsync|DeviceGetDefaultMemPool|"
    r"DeviceGetMemPool|DeviceSetMemPool|MemGetDefaultMemPool|MemGetMemPool|MemSetMemPool)$")

# The families, in the order printed: (name, test). A function belongs to
# the first family whose test it passes.
FAMILIES = [
    ("capture", lambda n: CAPTURE.match(n) is not None),
    ("graph memory", lambda n: GRAPH_MEMORY.match(n) is not None),
    ("streams", lambda n: n.startswith("cudaStream") or n in
     ("cudaLaunchHostFunc", "cudaDeviceGetStreamPriorityRange")),
    ("events", lambda n: n.startswith("cudaEvent")),
    # cudaGraphics* is graphics interoperability, not graphs.
    ("graphs", lambda n: (n.startswith("cudaGraph") and not n.startswith("cudaGraphics"))
     or n.startswith("cudaUserObject")),
    ("pools / stream-ordered memory", lambda n: POOLS.match(n) is not None),
]

CUDA_DECL = re.compile(r"\bCUDARTAPI\s+(cuda\w+)\s*\(")
GR_DECL = re.compile(r"^GR_API\b[^;(]*?\b(gr\w+)\s*\(", re.MULTILINE)
VERSION_SUFFIX = re.compile(r"_v\d+$")


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        sys.exit(f"cuda-coverage: cannot read {path}: {e.strerror}")


def cuda_version(text):
    m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if not m:
        return None
    v = int(m.group(1))
    return f"{v // 1000}.{v % 1000 // 10}"


def family_of(name):
    for fam, test in FAMILIES:
        if test(name):
            return fam
    return None


def present(cuda_name, gr_names):
    gr = "gr" + cuda_name[len("cuda"):]
    return gr in gr_names or VERSION_SUFFIX.sub("", gr) in gr_names


def coverage(cuda_text, gr_text):
    cuda_names = sorted(set(CUDA_DECL.findall(cuda_text)))
    gr_names = set(GR_DECL.findall(gr_text))
    families = []
    for fam, _ in FAMILIES:
        names = [n for n in cuda_names if family_of(n) == fam]
        missing = [n for n in names if not present(n, gr_names)]
        families.append({"family": fam, "cuda": len(names), "graphrt": len(names) - len(missing),
                         "missing": missing})
    total = sum(f["cuda"] for f in families)
    have = sum(f["graphrt"] for f in families)
    return {"cuda_version": cuda_version(cuda_text), "families": families, "cuda": total,
            "graphrt": have, "percent": round(100.0 * have / total, 1) if total else 0.0}


def percent(have, total):
    return f"{100.0 * have / total:5.1f}%" if total else "    -"


def print_table(res, cuda_h):
    print(f"CUDA runtime API coverage of graphrt: {cuda_h} (CUDA {res['cuda_version'] or 'unknown'})")
    print()
    print(f"{'family':<32} {'CUDA':>5} {'graphrt':>8} {'share':>7}")
    for f in res["families"]:
        print(f"{f['family']:<32} {f['cuda']:>5} {f['graphrt']:>8} {percent(f['graphrt'], f['cuda']):>7}")
    print(f"{'all':<32} {res['cuda']:>5} {res['graphrt']:>8} {percent(res['graphrt'], res['cuda']):>7}")
    for f in res["families"]:
        if f["missing"]:
            print()
            print(f"missing in {f['family']} ({len(f['missing'])}):")
            for n in f["missing"]:
                print(f"  {n}")
    print()
    print(f"overall: graphrt has {res['graphrt']} of {res['cuda']} functions ({res['percent']}%)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cuda_h", nargs="?", default=DEFAULT_CUDA_H, help="CUDA's cuda_runtime_api.h")
    ap.add_argument("--graphrt-h", default=DEFAULT_GRAPHRT_H, help="graphrt's public header")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args()
    if not os.path.isfile(args.cuda_h):
        print(f"cuda-coverage: {args.cuda_h} not found (no CUDA toolkit?)", file=sys.stderr)
        return 2
    res = coverage(read(args.cuda_h), read(args.graphrt_h))
    if res["cuda"] == 0:
        print(f"cuda-coverage: no runtime functions found in {args.cuda_h}", file=sys.stderr)
        return 2
    if args.json:
        res["cuda_header"] = args.cuda_h
        print(json.dumps(res, indent=2))
    else:
        print_table(res, args.cuda_h)
    return 0


if __name__ == "__main__":
    sys.exit(main())
