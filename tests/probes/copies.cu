// copies.cu - probes CUDA's 2D/3D copies and memsets (argument errors,
// zero sizes, pitches), symbol copies (offset + count beyond the symbol),
// and the driver's stream memory operations (cuStreamWaitValue32/64,
// cuStreamWriteValue32/64: flags, and the node type stream capture makes).
// Build: nvcc -arch=sm_90 -o copies copies.cu -lcuda
#include "probe.h"

__device__ int sym[4];
__constant__ int csym[4];

int main()
{
    cudaFree(0);
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    char *d;
    cudaMalloc(&d, 1 << 20);
    cudaMemset(d, 0, 1 << 20);
    static char h[1 << 16];
    // ---- cudaMemcpy2D
    {
        struct {
            const char *name;
            size_t dp, sp, w, hh;
        } cs[] = {{"memcpy2d-ok", 64, 64, 32, 4},
                  {"memcpy2d-dpitch-lt-width", 16, 64, 32, 4},
                  {"memcpy2d-spitch-lt-width", 64, 16, 32, 4},
                  {"memcpy2d-width0", 64, 64, 0, 4},
                  {"memcpy2d-height0", 64, 64, 32, 0},
                  {"memcpy2d-both0", 64, 64, 0, 0},
                  {"memcpy2d-pitch0-height1", 0, 0, 32, 1},
                  {"memcpy2d-pitch0-height2", 0, 0, 32, 2},
                  {"memcpy2d-width-eq-pitch", 32, 32, 32, 4},
                  {"memcpy2d-height1-dpitch-lt-width", 16, 64, 32, 1}};
        for (auto &c : cs) {
            R(c.name, cudaMemcpy2D(d, c.dp, d + 4096, c.sp, c.w, c.hh, cudaMemcpyDeviceToDevice));
            R((std::string(c.name) + "-h2d").c_str(),
              cudaMemcpy2D(d, c.dp, h, c.sp, c.w, c.hh, cudaMemcpyHostToDevice));
            R((std::string(c.name) + "-async").c_str(),
              cudaMemcpy2DAsync(d, c.dp, d + 4096, c.sp, c.w, c.hh, cudaMemcpyDeviceToDevice, st));
        }
        R("memcpy2d-kind-invalid", cudaMemcpy2D(d, 64, d + 4096, 64, 32, 4, (cudaMemcpyKind)9));
        R("memcpy2d-null-dst", cudaMemcpy2D(nullptr, 64, d + 4096, 64, 32, 4, cudaMemcpyDeviceToDevice));
        R("memcpy2d-null-dst-width0",
          cudaMemcpy2D(nullptr, 64, d + 4096, 64, 0, 4, cudaMemcpyDeviceToDevice));
        R("memcpy1d-count0-null", cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyDeviceToDevice));
        cudaStreamSynchronize(st);
    }
    // ---- cudaMemset2D
    {
        struct {
            const char *name;
            size_t p, w, hh;
        } cs[] = {{"memset2d-ok", 64, 32, 4},
                  {"memset2d-pitch-lt-width", 16, 32, 4},
                  {"memset2d-width0", 64, 0, 4},
                  {"memset2d-height0", 64, 32, 0},
                  {"memset2d-pitch0-height1", 0, 32, 1},
                  {"memset2d-pitch0-height2", 0, 32, 2},
                  {"memset2d-pitch-lt-width-height1", 16, 32, 1}};
        for (auto &c : cs) {
            R(c.name, cudaMemset2D(d, c.p, 1, c.w, c.hh));
            R((std::string(c.name) + "-async").c_str(), cudaMemset2DAsync(d, c.p, 1, c.w, c.hh, st));
        }
        R("memset2d-null-width0", cudaMemset2D(nullptr, 64, 1, 0, 4));
        R("memset-null-count0", cudaMemset(nullptr, 0, 0));
        R("memset2d-host-pointer", cudaMemset2D(h, 64, 1, 32, 4));
        size_t pitch = 0;
        void *pp = nullptr;
        report("mallocpitch-width100", cudaMallocPitch(&pp, &pitch, 100, 3), "pitch=%zu", pitch);
        cudaFree(pp);
        report("mallocpitch-width0", cudaMallocPitch(&pp, &pitch, 0, 3), "pitch=%zu", pitch);
        report("mallocpitch-height0", cudaMallocPitch(&pp, &pitch, 100, 0), "pitch=%zu", pitch);
        cudaStreamSynchronize(st);
    }
    // ---- cudaMemcpy3D / cudaMemset3D with cudaPitchedPtr
    {
        cudaPitchedPtr pd;
        report("malloc3d-100x3x2", cudaMalloc3D(&pd, make_cudaExtent(100, 3, 2)),
               "pitch=%zu xsize=%zu ysize=%zu", pd.pitch, pd.xsize, pd.ysize);
        auto p3 = [&](const char *name, cudaPitchedPtr src, cudaPitchedPtr dst, cudaExtent ext, cudaPos sp,
                      cudaPos dpos, cudaMemcpyKind kind) {
            cudaMemcpy3DParms m;
            memset(&m, 0, sizeof m);
            m.srcPtr = src;
            m.dstPtr = dst;
            m.extent = ext;
            m.srcPos = sp;
            m.dstPos = dpos;
            m.kind = kind;
            R(name, cudaMemcpy3D(&m));
            R((std::string(name) + "-async").c_str(), cudaMemcpy3DAsync(&m, st));
            cudaGraph_t g;
            cudaGraphCreate(&g, 0);
            cudaGraphNode_t n;
            R((std::string(name) + "-graph-node-add").c_str(), cudaGraphAddMemcpyNode(&n, g, nullptr, 0, &m));
            cudaGraphDestroy(g);
        };
        cudaPitchedPtr a = make_cudaPitchedPtr(d, 128, 100, 4),
                       b = make_cudaPitchedPtr(d + 8192, 128, 100, 4);
        cudaPos z = make_cudaPos(0, 0, 0);
        p3("memcpy3d-ok", a, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-extent-width0", a, b, make_cudaExtent(0, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-extent-height0", a, b, make_cudaExtent(100, 0, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-extent-depth0", a, b, make_cudaExtent(100, 4, 0), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-extent-all0", a, b, make_cudaExtent(0, 0, 0), z, z, cudaMemcpyDeviceToDevice);
        cudaPitchedPtr sp = make_cudaPitchedPtr(d, 64, 100, 4);
        p3("memcpy3d-src-pitch-lt-width", sp, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-dst-pitch-lt-width", b, sp, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-src-pitch-lt-width-depth1-height1", sp, b, make_cudaExtent(100, 1, 1), z, z,
           cudaMemcpyDeviceToDevice);
        cudaPitchedPtr ys = make_cudaPitchedPtr(d, 128, 100, 2);
        p3("memcpy3d-src-ysize-lt-height-depth2", ys, b, make_cudaExtent(100, 4, 2), z, z,
           cudaMemcpyDeviceToDevice);
        p3("memcpy3d-src-ysize-lt-height-depth1", ys, b, make_cudaExtent(100, 4, 1), z, z,
           cudaMemcpyDeviceToDevice);
        cudaPitchedPtr ys0 = make_cudaPitchedPtr(d, 128, 100, 0);
        p3("memcpy3d-src-ysize0-depth1", ys0, b, make_cudaExtent(100, 4, 1), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-src-ysize0-depth2", ys0, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        cudaPitchedPtr xs = make_cudaPitchedPtr(d, 128, 10, 4);
        p3("memcpy3d-src-xsize-lt-width", xs, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-srcpos-x-plus-width-gt-pitch", a, b, make_cudaExtent(100, 4, 2), make_cudaPos(40, 0, 0),
           z, cudaMemcpyDeviceToDevice);
        p3("memcpy3d-srcpos-y1-z1", a, b, make_cudaExtent(100, 2, 1), make_cudaPos(0, 1, 1), z,
           cudaMemcpyDeviceToDevice);
        p3("memcpy3d-kind-invalid", a, b, make_cudaExtent(100, 4, 2), z, z, (cudaMemcpyKind)9);
        cudaPitchedPtr hp = make_cudaPitchedPtr(h, 128, 100, 4);
        p3("memcpy3d-h2d-pageable", hp, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyHostToDevice);
        p3("memcpy3d-default-kind", hp, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDefault);
        cudaPitchedPtr np = make_cudaPitchedPtr(nullptr, 128, 100, 4);
        p3("memcpy3d-null-src", np, b, make_cudaExtent(100, 4, 2), z, z, cudaMemcpyDeviceToDevice);
        // array and pointer both set
        cudaMemcpy3DParms m;
        memset(&m, 0, sizeof m);
        cudaArray_t arr;
        cudaChannelFormatDesc cd = cudaCreateChannelDesc<char>();
        cudaMalloc3DArray(&arr, &cd, make_cudaExtent(100, 4, 2), 0);
        m.srcArray = arr;
        m.srcPtr = a;
        m.dstPtr = b;
        m.extent = make_cudaExtent(100, 4, 2);
        m.kind = cudaMemcpyDeviceToDevice;
        R("memcpy3d-src-array-and-ptr", cudaMemcpy3D(&m));
        m.srcPtr = make_cudaPitchedPtr(nullptr, 0, 0, 0);
        R("memcpy3d-src-array-ok", cudaMemcpy3D(&m));
        cudaFreeArray(arr);
        R("memcpy3d-null-params", cudaMemcpy3D(nullptr));
        // memset3d
        auto s3 = [&](const char *name, cudaPitchedPtr p, cudaExtent ext) {
            R(name, cudaMemset3D(p, 3, ext));
            R((std::string(name) + "-async").c_str(), cudaMemset3DAsync(p, 3, ext, st));
        };
        s3("memset3d-ok", a, make_cudaExtent(100, 4, 2));
        s3("memset3d-width0", a, make_cudaExtent(0, 4, 2));
        s3("memset3d-depth0", a, make_cudaExtent(100, 4, 0));
        s3("memset3d-pitch-lt-width", sp, make_cudaExtent(100, 4, 2));
        s3("memset3d-ysize-lt-height-depth2", ys, make_cudaExtent(100, 4, 2));
        s3("memset3d-ysize-lt-height-depth1", ys, make_cudaExtent(100, 4, 1));
        s3("memset3d-ysize0-depth2", ys0, make_cudaExtent(100, 4, 2));
        s3("memset3d-xsize-lt-width", xs, make_cudaExtent(100, 4, 2));
        cudaStreamSynchronize(st);
        cudaFree(pd.ptr);
    }
    // ---- symbols
    {
        int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
        R("tosymbol-ok", cudaMemcpyToSymbol(sym, src, 16, 0));
        R("tosymbol-offset8-count8", cudaMemcpyToSymbol(sym, src, 8, 8));
        R("tosymbol-offset8-count16", cudaMemcpyToSymbol(sym, src, 16, 8));
        R("tosymbol-count20", cudaMemcpyToSymbol(sym, src, 20, 0));
        R("tosymbol-offset16-count0", cudaMemcpyToSymbol(sym, src, 0, 16));
        R("tosymbol-offset17-count0", cudaMemcpyToSymbol(sym, src, 0, 17));
        R("tosymbol-count0", cudaMemcpyToSymbol(sym, src, 0, 0));
        R("tosymbol-offset1-count4", cudaMemcpyToSymbol(sym, src, 4, 1));
        R("tosymbol-kind-d2h", cudaMemcpyToSymbol(sym, src, 16, 0, cudaMemcpyDeviceToHost));
        R("tosymbol-kind-h2h", cudaMemcpyToSymbol(sym, src, 16, 0, cudaMemcpyHostToHost));
        R("tosymbol-kind-d2d-device-src", cudaMemcpyToSymbol(sym, d, 16, 0, cudaMemcpyDeviceToDevice));
        R("tosymbol-kind-default", cudaMemcpyToSymbol(sym, src, 16, 0, cudaMemcpyDefault));
        R("tosymbol-not-a-symbol", cudaMemcpyToSymbol(src, src, 16, 0));
        R("tosymbol-null", cudaMemcpyToSymbol(nullptr, src, 16, 0));
        R("tosymbol-constant-ok", cudaMemcpyToSymbol(csym, src, 16, 0));
        R("tosymbol-constant-count20", cudaMemcpyToSymbol(csym, src, 20, 0));
        R("fromsymbol-ok", cudaMemcpyFromSymbol(dst, sym, 16, 0));
        note("fromsymbol-values", "%d %d %d %d", dst[0], dst[1], dst[2], dst[3]);
        R("fromsymbol-offset8-count16", cudaMemcpyFromSymbol(dst, sym, 16, 8));
        R("fromsymbol-count20", cudaMemcpyFromSymbol(dst, sym, 20, 0));
        R("fromsymbol-kind-h2d", cudaMemcpyFromSymbol(dst, sym, 16, 0, cudaMemcpyHostToDevice));
        R("tosymbolasync-offset8-count16",
          cudaMemcpyToSymbolAsync(sym, src, 16, 8, cudaMemcpyHostToDevice, st));
        R("tosymbolasync-ok", cudaMemcpyToSymbolAsync(sym, src, 16, 0, cudaMemcpyHostToDevice, st));
        cudaStreamSynchronize(st);
        void *addr = nullptr;
        size_t sz = 0;
        report("getsymboladdress", cudaGetSymbolAddress(&addr, sym), "set=%d", addr != nullptr);
        report("getsymbolsize", cudaGetSymbolSize(&sz, sym), "size=%zu", sz);
        report("getsymbolsize-not-a-symbol", cudaGetSymbolSize(&sz, src));
        // capture
        cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed);
        R("capture-tosymbolasync", cudaMemcpyToSymbolAsync(sym, d, 16, 0, cudaMemcpyDeviceToDevice, st));
        R("capture-fromsymbolasync", cudaMemcpyFromSymbolAsync(d, sym, 16, 0, cudaMemcpyDeviceToDevice, st));
        R("capture-tosymbolasync-pageable",
          cudaMemcpyToSymbolAsync(sym, src, 16, 0, cudaMemcpyHostToDevice, st));
        cudaGraph_t g = nullptr;
        R("capture-symbol-end", cudaStreamEndCapture(st, &g));
        if (g) {
            list_types("capture-symbol-types", g);
            cudaGraphDestroy(g);
        }
        cudaGraph_t gg;
        cudaGraphCreate(&gg, 0);
        cudaGraphNode_t n;
        R("graph-add-tosymbol-node-ok",
          cudaGraphAddMemcpyNodeToSymbol(&n, gg, nullptr, 0, sym, d, 16, 0, cudaMemcpyDeviceToDevice));
        R("graph-add-tosymbol-node-beyond",
          cudaGraphAddMemcpyNodeToSymbol(&n, gg, nullptr, 0, sym, d, 16, 8, cudaMemcpyDeviceToDevice));
        R("graph-add-fromsymbol-node-beyond",
          cudaGraphAddMemcpyNodeFromSymbol(&n, gg, nullptr, 0, d, sym, 20, 0, cudaMemcpyDeviceToDevice));
        cudaGraphDestroy(gg);
    }
    // ---- stream memory operations (driver API)
    {
        CUstream cs = (CUstream)st;
        CUdeviceptr dp = (CUdeviceptr)(d + 65536);
        cuMemsetD8(dp, 0, 256);
        CUdevice cd;
        cuDeviceGet(&cd, 0);
        int attr = -1;
        cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, cd);
        note("attr-can-use-wait-value-nor", "%d", attr);
        cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, cd);
        note("attr-can-use-64bit-memops", "%d", attr);
        cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, cd);
        note("attr-can-flush-remote-writes", "%d", attr);
        cureport("write32-flags0", cuStreamWriteValue32(cs, dp, 5, 0));
        cureport("write32-no-memory-barrier",
                 cuStreamWriteValue32(cs, dp + 4, 6, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
        cureport("write32-flags2", cuStreamWriteValue32(cs, dp, 5, 2));
        cuStreamWriteValue32(cs, dp, 5, 0);
        cureport("write32-unaligned", cuStreamWriteValue32(cs, dp + 130, 0, 0));
        cureport("write64-flags0", cuStreamWriteValue64(cs, dp + 8, 0x100000007ull, 0));
        cureport("write64-unaligned4", cuStreamWriteValue64(cs, dp + 132, 0, 0));
        // waits that are already satisfied: *dp == 5
        cureport("wait32-geq", cuStreamWaitValue32(cs, dp, 5, CU_STREAM_WAIT_VALUE_GEQ));
        cureport("wait32-eq", cuStreamWaitValue32(cs, dp, 5, CU_STREAM_WAIT_VALUE_EQ));
        cureport("wait32-and", cuStreamWaitValue32(cs, dp, 4, CU_STREAM_WAIT_VALUE_AND));
        cureport("wait32-nor", cuStreamWaitValue32(cs, dp, 0, CU_STREAM_WAIT_VALUE_NOR));
        cureport("wait32-eq-flush",
                 cuStreamWaitValue32(cs, dp, 5, CU_STREAM_WAIT_VALUE_EQ | CU_STREAM_WAIT_VALUE_FLUSH));
        cureport("wait32-op4", cuStreamWaitValue32(cs, dp, 5, 4));
        cureport("wait32-unaligned", cuStreamWaitValue32(cs, dp + 130, 0, 0));
        cureport("wait64-eq", cuStreamWaitValue64(cs, dp + 8, 0x100000007ull, CU_STREAM_WAIT_VALUE_EQ));
        cureport("memops-sync", cuStreamSynchronize(cs));
        unsigned v[4] = {0};
        cuMemcpyDtoH(v, dp, 16);
        note("memops-values", "w32=%u w32nb=%u w64lo=%u w64hi=%u", v[0], v[1], v[2], v[3]);
        // host memory (pinned, mapped)
        unsigned *hm = nullptr;
        cudaHostAlloc((void **)&hm, 64, cudaHostAllocMapped);
        CUdeviceptr hdp = 0;
        cuMemHostGetDevicePointer(&hdp, hm, 0);
        cureport("write32-mapped-host", cuStreamWriteValue32(cs, hdp, 9, 0));
        cuStreamSynchronize(cs);
        note("write32-mapped-host-value", "%u", hm[0]);
        cureport("write32-host-pointer-direct", cuStreamWriteValue32(cs, (CUdeviceptr)hm, 10, 0));
        cuStreamSynchronize(cs);
        note("write32-host-pointer-direct-value", "%u", hm[0]);
        // capture
        cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed);
        cureport("capture-write32", cuStreamWriteValue32(cs, dp, 11, 0));
        cureport("capture-wait32", cuStreamWaitValue32(cs, dp, 11, CU_STREAM_WAIT_VALUE_EQ));
        cureport("capture-write64", cuStreamWriteValue64(cs, dp + 8, 12, 0));
        cudaGraph_t g = nullptr;
        R("capture-memops-end", cudaStreamEndCapture(st, &g));
        if (g) {
            list_types("capture-memops-types", g);
            size_t n = nnodes(g);
            std::vector<cudaGraphNode_t> ns(n);
            cudaGraphGetNodes(g, ns.data(), &n);
            for (size_t i = 0; i < n; i++) {
                CUgraphNodeType t;
                CUresult r = cuGraphNodeGetType((CUgraphNode)ns[i], &t);
                note("capture-memops-driver-type", "%s %d", cuen(r), (int)t);
                CUDA_BATCH_MEM_OP_NODE_PARAMS bp;
                memset(&bp, 0, sizeof bp);
                r = cuGraphBatchMemOpNodeGetParams((CUgraphNode)ns[i], &bp);
                note("capture-memops-node-params", "%s count=%u op0=%d flags=%u", cuen(r), bp.count,
                     bp.count ? (int)bp.paramArray[0].operation : -1, bp.flags);
            }
            cudaGraphExec_t ex;
            if (!report("capture-memops-instantiate", cudaGraphInstantiate(&ex, g, 0))) {
                report("capture-memops-launch", cudaGraphLaunch(ex, st));
                report("capture-memops-sync", cudaStreamSynchronize(st));
                cuMemcpyDtoH(v, dp, 16);
                note("capture-memops-values", "w32=%u w64lo=%u", v[0], v[2]);
                // runtime-side setters on the batch node
                cudaGraphNodeType rt;
                report("capture-memops-runtime-gettype", cudaGraphNodeGetType(ns[0], &rt), "type=%d",
                       (int)rt);
                cudaGraphExecDestroy(ex);
            }
            cudaGraph_t cl = nullptr;
            report("capture-memops-clone", cudaGraphClone(&cl, g));
            if (cl)
                cudaGraphDestroy(cl);
            R("capture-memops-dot", cudaGraphDebugDotPrint(g, "/dev/null", cudaGraphDebugDotFlagsVerbose));
            cudaGraphDestroy(g);
        }
        // a memop right after a kernel in capture: one node or merged?
        cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed);
        inc<<<1, 1, 0, st>>>((int *)d);
        cuStreamWriteValue32(cs, dp, 1, 0);
        cuStreamWriteValue32(cs, dp + 4, 2, 0);
        g = nullptr;
        cudaStreamEndCapture(st, &g);
        if (g) {
            list_types("capture-kernel-then-2-writes-types", g);
            cudaGraphDestroy(g);
        }
        // batch mem op on a stream
        CUstreamBatchMemOpParams ops[2];
        memset(ops, 0, sizeof ops);
        ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        ops[0].writeValue.address = dp;
        ops[0].writeValue.value = 21;
        ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
        ops[1].waitValue.address = dp;
        ops[1].waitValue.value = 21;
        ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
        cureport("batchmemop-write-wait", cuStreamBatchMemOp(cs, 2, ops, 0));
        cureport("batchmemop-flags1", cuStreamBatchMemOp(cs, 2, ops, 1));
        cureport("batchmemop-count0", cuStreamBatchMemOp(cs, 0, ops, 0));
        cureport("batchmemop-sync", cuStreamSynchronize(cs));
        cudaFreeHost(hm);
    }
    report("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
