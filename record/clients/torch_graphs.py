"""torch_graphs.py - PyTorch's CUDA graphs for the recorder: the forward
pass of a small MLP and of one transformer block, each captured with
torch.cuda.graph. Each CUDAGraph is put in debug mode before its capture
and writes CUDA's own DOT of the captured graph (debug_dump, i.e.
cudaGraphDebugDotPrint) into $GRAPHRT_DOT_DIR: the ground truth that
tools/record-check.sh compares the recorded graph files with.

Prints, per model, the time of capture + instantiate and of one replay,
so that a run with the recorder and one without give its overhead.
Nothing here knows about the recorder.
"""
import ctypes
import os
import sys
import time

import torch


def mlp():
    return torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 128))


def block():
    return torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512,
                                            dropout=0.0, batch_first=True)


def new_graph():
    """A CUDAGraph that keeps its cudaGraph_t after instantiation where
    this torch can (keep_graph), so that debug_dump has a graph to print."""
    try:
        return torch.cuda.CUDAGraph(keep_graph=True), True
    except TypeError:
        return torch.cuda.CUDAGraph(), False


def dump_dot(g, path):
    """CUDA's DOT of g's graph at path: torch's debug_dump, else
    cudaGraphDebugDotPrint on the raw graph handle."""
    g.debug_dump(path)
    if os.path.exists(path):
        return "debug_dump"
    raw = getattr(g, "raw_cuda_graph", None)
    handle = raw() if raw else 0
    if not handle:
        return "none (torch released the graph)"
    for lib in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            cudart = ctypes.CDLL(lib)
            break
        except OSError:
            cudart = None
    if cudart is None:
        return "none (no libcudart)"
    rc = cudart.cudaGraphDebugDotPrint(ctypes.c_void_p(handle), path.encode(), ctypes.c_uint(1))
    return "cudaGraphDebugDotPrint rc=%d" % rc


def run(name, model, x, dot_dir, replays):
    model = model.cuda().eval()
    x = x.cuda()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(3):  # warm up on a side stream, as torch.cuda.graph asks
            model(x)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g, kept = new_graph()
    g.enable_debug_mode()
    t0 = time.perf_counter()
    with torch.no_grad(), torch.cuda.graph(g):
        y = model(x)
    if kept and hasattr(g, "instantiate"):
        g.instantiate()  # kept graphs instantiate on demand
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    how = dump_dot(g, os.path.join(dot_dir, name + ".dot"))
    print("%s: dot by %s" % (name, how), file=sys.stderr)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(replays):
            g.replay()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) / replays)
    times.sort()
    with torch.no_grad():
        ref = model(x)
    ok = torch.allclose(y, ref, rtol=1e-3, atol=1e-3)
    print("%s: capture_instantiate_ms=%.3f replay_us=%.2f output_matches_eager=%s"
          % (name, (t1 - t0) * 1e3, times[2] * 1e6, ok))
    return g, y


def main():
    dot_dir = os.environ.get("GRAPHRT_DOT_DIR", ".")
    replays = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    torch.manual_seed(0)
    keep = []
    keep.append(run("torch_mlp", mlp(), torch.randn(64, 256), dot_dir, replays))
    keep.append(run("torch_block", block(), torch.randn(8, 32, 256), dot_dir, replays))
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
