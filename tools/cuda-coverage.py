#!/usr/bin/env python3
"""cuda-coverage.py - how much of CUDA's runtime API graphrt offers.

Reads the runtime functions a CUDA toolkit declares (cuda_runtime_api.h) and
the public functions of graphrt (include/graphrt.h and the module
headers of include/graphrt/ it includes), sorts CUDA's into
families by name, and prints per family how many CUDA functions there are,
how many graphrt has (the same name with `gr` for `cuda`), and which are
missing, each with the reason graphrt leaves it out (docs/coverage.md).

Two figures: the graph families (capture, graph memory, streams, events,
graphs, pools: what graphrt is about, the figure of earlier releases), and
every family (memory, device, launch and errors too). Functions left out by
design (IPC, external memory and semaphores, textures and surfaces, arrays,
graphics interoperability, ...) are listed with their reason and counted
apart, so that the "CPU-meaningful" share counts only what graphrt could
offer.

A CUDA name with a version suffix (cudaGraphAddNode_v2 in 12.x headers)
counts as present when graphrt has the name or the name without the suffix:
graphrt's calls take the current signatures under the base names. The
suffixed calls that CUDA 13 added beside a base call of another signature
(cudaLaunchHostFunc_v2, cudaGraphConditionalHandleCreate_v2) need their own
name.

Without an argument it reads the newest toolkit it finds:
/usr/local/cuda-13.*/include (highest minor first), then /usr/local/cuda.

Usage: tools/cuda-coverage.py [CUDA_RUNTIME_API_H] [--graphrt-h PATH] [--json]
Exit status: 0 (the figure is information, not a test), 2 when a header
cannot be read.
"""

import argparse
import glob
import json
import os
import re
import sys

DEFAULT_CUDA_H = "/usr/local/cuda/include/cuda_runtime_api.h"


def default_cuda_h():
    """The newest toolkit's header: a /usr/local/cuda-13.N install (highest
    N) if any, else /usr/local/cuda's."""
    found = []
    for path in glob.glob("/usr/local/cuda-1[3-9].*/include/cuda_runtime_api.h"):
        m = re.search(r"cuda-(\d+)\.(\d+)/", path)
        if m:
            found.append(((int(m.group(1)), int(m.group(2))), path))
    if found:
        return max(found)[1]
    return DEFAULT_CUDA_H
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_GRAPHRT_H = os.path.join(ROOT, "include", "graphrt.h")

CAPTURE = re.compile(
    r"^cuda(StreamBeginCapture\w*|StreamBeginRecapture\w*|StreamEndCapture\w*|StreamIsCapturing\w*|"
    r"StreamGetCaptureInfo\w*|StreamUpdateCaptureDependencies\w*|"
    r"ThreadExchangeStreamCaptureMode)$")
GRAPH_MEMORY = re.compile(
    r"^cuda(DeviceGraphMem\w*|DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|"
    r"GraphAddMemAllocNode|GraphAddMemFreeNode|GraphMemAllocNodeGetParams|"
    r"GraphMemFreeNodeGetParams)$")
POOLS = re.compile(
    r"^cuda(MemPool\w*|MallocAsync|FreeAsync|MallocFromPoolAsync|DeviceGetDefaultMemPool|"
    r"DeviceGetMemPool|DeviceSetMemPool|MemGetDefaultMemPool|MemGetMemPool|MemSetMemPool)$")

MEMORY = re.compile(
    r"^cuda(Malloc\w*|Free\w*|Host\w*|Memcpy\w*|Memset\w*|Mem(GetInfo|Prefetch\w*|Advise\w*|"
    r"Range\w*|Discard\w*)|PointerGetAttributes|GetSymbol\w*|Array\w*|MipmappedArray\w*|"
    r"GetMipmappedArrayLevel)$")
DEVICE = re.compile(
    r"^cuda(Device\w*|GetDevice\w*|SetDevice\w*|SetValidDevices|InitDevice|ChooseDevice|"
    r"CtxResetPersistingL2Cache|DevSm\w*|DevResource\w*|GreenCtx\w*|ExecutionCtx\w*|Thread\w*)$")
LAUNCH = re.compile(
    r"^cuda(Launch\w*|Func\w*|Occupancy\w*|GetKernel|Kernel\w*|Library\w*|GetFuncBySymbol|"
    r"GetDriverEntryPoint\w*|GetParameterBuffer\w*|SetDoubleForDevice|SetDoubleForHost)$")
ERRORS = re.compile(r"^cuda(GetErrorName|GetErrorString|GetLastError|PeekAtLastError|RuntimeGetVersion|"
                    r"DriverGetVersion)$")

# The graph families (the figure of earlier releases), in the order printed:
# (name, test). A function belongs to the first family whose test it passes.
FAMILIES = [
    ("capture", lambda n: CAPTURE.match(n) is not None),
    ("graph memory", lambda n: GRAPH_MEMORY.match(n) is not None),
    ("streams", lambda n: n.startswith("cudaStream") or n in
     ("cudaLaunchHostFunc", "cudaLaunchHostFunc_v2", "cudaDeviceGetStreamPriorityRange")),
    ("events", lambda n: n.startswith("cudaEvent")),
    # cudaGraphics* is graphics interoperability, not graphs.
    ("graphs", lambda n: (n.startswith("cudaGraph") and not n.startswith("cudaGraphics"))
     or n.startswith("cudaUserObject")),
    ("pools / stream-ordered memory", lambda n: POOLS.match(n) is not None),
]

# The wider families, after the graph ones: with them, every runtime
# function has a family ("interoperability and other" catches the rest).
WIDE_FAMILIES = FAMILIES + [
    ("memory", lambda n: MEMORY.match(n) is not None),
    ("device", lambda n: DEVICE.match(n) is not None),
    ("launch and kernels", lambda n: LAUNCH.match(n) is not None),
    ("errors and versions", lambda n: ERRORS.match(n) is not None),
    ("interoperability and other", lambda n: True),
]

# Functions graphrt leaves out by design, with the reason (docs/coverage.md).
# The first rule a missing function matches gives its reason; a missing
# function that matches none is a gap ("not yet").
LEFT_OUT = [
    (r"^cudaIpc|^cudaMemPool(Export|Import)",
     "IPC: sharing memory and events with another process needs the driver's OS handles; "
     "graphrt's CPU device is one process's memory"),
    (r"External(Memory|Semaphore)|^cudaImportExternal|^cudaDestroyExternal|ExternalSemaphores|"
     r"NvSciSync",
     "external memory and semaphores (Vulkan, Direct3D, NvSci objects): no foreign API object "
     "exists on the CPU device"),
    (r"Texture|Surface|ChannelDesc|Texture1DLinear",
     "texture and surface objects: sampling hardware that graphrt's C kernels do not have"),
    (r"Array|^cudaGetMipmappedArrayLevel",
     "CUDA arrays (opaque, tiled texture memory): graphrt's memory is linear; its copy calls keep "
     "the array fields and refuse a non-NULL array"),
    (r"^cudaGraphics|^cudaGL|^cudaEGL|^cudaVDPAU|^cudaD3D",
     "graphics interoperability (OpenGL, EGL, VDPAU, Direct3D resources)"),
    (r"^cudaProfiler|^cudaLogs|^cudaGetExportTable",
     "tools of the NVIDIA driver itself (profiler control, driver logs, export tables): graphrt's "
     "own traces and details take their place (docs/debugging.md)"),
    (r"^cudaGetDriverEntryPoint|^cudaLibrary|^cudaGetKernel$|^cudaKernelSetAttributeForDevice|"
     r"^cudaGetFuncBySymbol|^cudaGetParameterBuffer|^cudaSetDoubleFor",
     "module and driver-symbol loading (cubin/PTX libraries, driver entry points): graphrt's "
     "kernels are C functions registered with grKernelCreate (a GPU image attaches with "
     "grKernelSetImage)"),
    (r"^cudaDevSm|^cudaDevResource|^cudaGreenCtx|^cudaExecutionCtx|DevResource$|"
     r"^cudaDeviceGetExecutionCtx",
     "green contexts and device resources (partitions of a GPU's SMs): graphrt has one context "
     "per device and no SM partitions"),
    (r"^cudaDeviceFlushGPUDirectRDMAWrites|^cudaDevice(Register|Unregister)AsyncNotification|"
     r"AtomicCapabilities|^cudaDeviceGetP2PAttribute|PCIBusId|SharedMemConfig|CacheConfig|"
     r"^cudaCtxResetPersistingL2Cache",
     "GPU hardware controls and queries (PCIe, RDMA, caches, shared-memory banks, atomics "
     "across the bus) with nothing to control on the CPU device"),
]
LEFT_OUT = [(re.compile(p), why) for p, why in LEFT_OUT]

# Missing calls graphrt could offer and does not yet, with the reason.
NOT_YET = []
NOT_YET = [(re.compile(p), why) for p, why in NOT_YET]

# Suffixed calls that CUDA 13 declares beside a base call of another
# signature: present only under their own name.
DISTINCT_SUFFIXED = {"cudaLaunchHostFunc_v2", "cudaGraphConditionalHandleCreate_v2"}

CUDA_DECL = re.compile(r"\bCUDARTAPI(?:_CDECL)?\s+(cuda\w+)\s*\(")
GR_DECL = re.compile(r"^GR_API\b[^;(]*?\b(gr\w+)\s*\(", re.MULTILINE)
VERSION_SUFFIX = re.compile(r"_v\d+$")


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        sys.exit(f"cuda-coverage: cannot read {path}: {e.strerror}")


def read_public(path):
    """graphrt.h with the module headers it includes ("graphrt/x.h", read
    from beside it), where the declarations are."""
    text = read(path)
    base = os.path.dirname(path)
    parts = [text]
    for inc in re.findall(r'^#include\s+"(graphrt/[\w.]+)"', text, re.MULTILINE):
        parts.append(read(os.path.join(base, inc)))
    return "\n".join(parts)


def cuda_version(text):
    m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if not m:
        return None
    v = int(m.group(1))
    return f"{v // 1000}.{v % 1000 // 10}"


def family_of(name, families=FAMILIES):
    for fam, test in families:
        if test(name):
            return fam
    return None


def present(cuda_name, gr_names):
    gr = "gr" + cuda_name[len("cuda"):]
    if gr in gr_names:
        return True
    return cuda_name not in DISTINCT_SUFFIXED and VERSION_SUFFIX.sub("", gr) in gr_names


def reason(name):
    """('left out', why), ('not yet', why) or ('not yet', None) for a
    missing function."""
    for rx, why in LEFT_OUT:
        if rx.search(name):
            return "left out", why
    for rx, why in NOT_YET:
        if rx.search(name):
            return "not yet", why
    return "not yet", None


def tally(cuda_names, gr_names, families):
    out = []
    for fam, _ in families:
        names = [n for n in cuda_names if family_of(n, families) == fam]
        if not names and fam == "interoperability and other":
            continue
        missing = [n for n in names if not present(n, gr_names)]
        left_out = [n for n in missing if reason(n)[0] == "left out"]
        out.append({"family": fam, "cuda": len(names), "graphrt": len(names) - len(missing),
                    "left_out": len(left_out), "missing": missing})
    return out


def coverage(cuda_text, gr_text):
    cuda_names = sorted(set(CUDA_DECL.findall(cuda_text)))
    gr_names = set(GR_DECL.findall(gr_text))
    families = tally(cuda_names, gr_names, FAMILIES)
    wide = tally(cuda_names, gr_names, WIDE_FAMILIES)
    total = sum(f["cuda"] for f in families)
    have = sum(f["graphrt"] for f in families)
    wtotal = sum(f["cuda"] for f in wide)
    whave = sum(f["graphrt"] for f in wide)
    wleft = sum(f["left_out"] for f in wide)
    reasons = {}
    for f in wide:
        for n in f["missing"]:
            kind, why = reason(n)
            reasons[n] = {"kind": kind, "reason": why}
    return {"cuda_version": cuda_version(cuda_text), "families": families, "cuda": total,
            "graphrt": have, "percent": round(100.0 * have / total, 1) if total else 0.0,
            "wide_families": wide, "wide_cuda": wtotal, "wide_graphrt": whave, "wide_left_out": wleft,
            "wide_percent": round(100.0 * whave / wtotal, 1) if wtotal else 0.0,
            "meaningful_percent": round(100.0 * whave / (wtotal - wleft), 1) if wtotal > wleft else 0.0,
            "reasons": reasons}


def percent(have, total):
    return f"{100.0 * have / total:5.1f}%" if total else "    -"


def print_table(res, cuda_h):
    print(f"CUDA runtime API coverage of graphrt: {cuda_h} (CUDA {res['cuda_version'] or 'unknown'})")
    print()
    print(f"{'family':<32} {'CUDA':>5} {'graphrt':>8} {'share':>7}")
    for f in res["families"]:
        print(f"{f['family']:<32} {f['cuda']:>5} {f['graphrt']:>8} {percent(f['graphrt'], f['cuda']):>7}")
    print(f"{'graph families':<32} {res['cuda']:>5} {res['graphrt']:>8} {percent(res['graphrt'], res['cuda']):>7}")
    print()
    print(f"{'every family':<32} {'CUDA':>5} {'graphrt':>8} {'left out':>9} {'share':>7}")
    for f in res["wide_families"]:
        print(f"{f['family']:<32} {f['cuda']:>5} {f['graphrt']:>8} {f['left_out']:>9} "
              f"{percent(f['graphrt'], f['cuda']):>7}")
    print(f"{'all':<32} {res['wide_cuda']:>5} {res['wide_graphrt']:>8} {res['wide_left_out']:>9} "
          f"{percent(res['wide_graphrt'], res['wide_cuda']):>7}")
    for f in res["wide_families"]:
        if f["missing"]:
            print()
            print(f"missing in {f['family']} ({len(f['missing'])}):")
            for n in f["missing"]:
                r = res["reasons"][n]
                print(f"  {n:<52} {r['kind']}{': ' + r['reason'] if r['reason'] else ''}")
    print()
    print(f"graph families: graphrt has {res['graphrt']} of {res['cuda']} functions ({res['percent']}%)")
    print(f"every family: graphrt has {res['wide_graphrt']} of {res['wide_cuda']} functions "
          f"({res['wide_percent']}%); of the {res['wide_cuda'] - res['wide_left_out']} not left out "
          f"by design, {res['meaningful_percent']}%")
    # The one line CI's stage (b3) reports (.ci/run greps '^overall:').
    print(f"overall: graphrt has {res['graphrt']} of {res['cuda']} graph-family functions ({res['percent']}%), "
          f"{res['meaningful_percent']}% of the {res['wide_cuda'] - res['wide_left_out']} CPU-meaningful ones")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cuda_h", nargs="?", default=None,
                    help="CUDA's cuda_runtime_api.h (default: the newest toolkit's)")
    ap.add_argument("--graphrt-h", default=DEFAULT_GRAPHRT_H, help="graphrt's public header")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args()
    if args.cuda_h is None:
        args.cuda_h = default_cuda_h()
    if not os.path.isfile(args.cuda_h):
        print(f"cuda-coverage: {args.cuda_h} not found (no CUDA toolkit?)", file=sys.stderr)
        return 2
    res = coverage(read(args.cuda_h), read_public(args.graphrt_h))
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
