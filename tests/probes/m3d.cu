// m3d.cu - cudaGraphExecUpdate of 3D memcpy nodes: which changes CUDA 13 takes.
#include "probe.h"
static cudaMemcpy3DParms P(void *dst, size_t dp, void *src, size_t sp, cudaExtent ex, cudaPos dpos, cudaPos spos)
{
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.dstPtr = make_cudaPitchedPtr(dst, dp, dp, 8);
    p.srcPtr = make_cudaPitchedPtr(src, sp, sp, 8);
    p.extent = ex;
    p.dstPos = dpos;
    p.srcPos = spos;
    p.kind = cudaMemcpyDefault;
    return p;
}
int main()
{
    char *d1, *d2, *h1, *h2;
    cudaMalloc(&d1, 1 << 16);
    cudaMalloc(&d2, 1 << 16);
    cudaMallocHost(&h1, 1 << 16);
    cudaMallocHost(&h2, 1 << 16);
    cudaExtent ex = make_cudaExtent(6, 3, 2), ex2 = make_cudaExtent(4, 2, 2), ex1 = make_cudaExtent(6, 1, 1);
    cudaPos z = make_cudaPos(0, 0, 0), p1 = make_cudaPos(1, 1, 0);
    struct {
        const char *name;
        cudaMemcpy3DParms base, upd;
    } cs[] = {
        {"same", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h1, 8, ex, z, z)},
        {"other-dst-ptr", P(d1, 16, h1, 8, ex, z, z), P(d2, 16, h1, 8, ex, z, z)},
        {"other-src-ptr", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h2, 8, ex, z, z)},
        {"other-extent", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h1, 8, ex2, z, z)},
        {"other-srcpos", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h1, 8, ex, z, p1)},
        {"other-dstpos", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h1, 8, ex, p1, z)},
        {"other-pitch", P(d1, 16, h1, 8, ex, z, z), P(d1, 32, h1, 8, ex, z, z)},
        {"1d-to-3d", P(d1, 16, h1, 8, ex1, z, z), P(d1, 16, h1, 8, ex, z, z)},
        {"3d-to-1d", P(d1, 16, h1, 8, ex, z, z), P(d1, 16, h1, 8, ex1, z, z)},
        {"1d-other-ptr", P(d1, 16, h1, 8, ex1, z, z), P(d2, 16, h1, 8, ex1, z, z)},
    };
    for (auto &c : cs) {
        cudaGraph_t g1, g2;
        cudaGraphNode_t n1, n2;
        cudaGraphExec_t e;
        cudaGraphCreate(&g1, 0);
        cudaGraphCreate(&g2, 0);
        cudaGraphAddMemcpyNode(&n1, g1, nullptr, 0, &c.base);
        cudaGraphAddMemcpyNode(&n2, g2, nullptr, 0, &c.upd);
        cudaGraphInstantiate(&e, g1, 0);
        cudaGraphExecUpdateResultInfo ri;
        memset(&ri, 0, sizeof ri);
        std::string nm = std::string("update-") + c.name;
        report(nm.c_str(), cudaGraphExecUpdate(e, g2, &ri), "result=%d", (int)ri.result);
        std::string nm2 = std::string("launch-after-") + c.name;
        R(nm2.c_str(), cudaGraphLaunch(e, 0));
        cudaDeviceSynchronize();
        cudaGraphExecDestroy(e);
        cudaGraphDestroy(g1);
        cudaGraphDestroy(g2);
    }
    printf("done\n");
    return 0;
}
