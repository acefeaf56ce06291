/* consumer.cpp - a C++ program built against an installed graphrt by
 * .ci/install-check.sh, written as CUDA C++ host code with 'cuda' renamed
 * 'gr': graphrt.hpp must be installed and give the templates, dim3, the
 * default arguments and the 5-argument grGraphInstantiate. */
#include <graphrt.hpp>

#include <cstdio>

static void CUDART_CB bump(void *p)
{
    ++*static_cast<int *>(p);
}

int main()
{
    int *d = nullptr, host = 0, version = 0, calls = 0;
    grStream_t s;
    grGraph_t g;
    grGraphExec_t exec;
    dim3 grid(4), block(64, 2);
    if (grDriverGetVersion(&version) != grSuccess || version == 0 || grid.y != 1 || block.z != 1 ||
        grMalloc(&d, sizeof(int)) != grSuccess ||
        grStreamCreateWithFlags(&s, grStreamNonBlocking) != grSuccess ||
        grStreamBeginCapture(s, grStreamCaptureModeGlobal) != grSuccess ||
        grMemsetAsync(d, 0x01, sizeof(int), s) != grSuccess ||
        grLaunchHostFunc(s, bump, &calls) != grSuccess || grStreamEndCapture(s, &g) != grSuccess ||
        grGraphInstantiate(&exec, g, nullptr, nullptr, 0) != grSuccess ||
        grGraphLaunch(exec, s) != grSuccess || grStreamSynchronize(s) != grSuccess ||
        grMemcpy(&host, d, sizeof host, grMemcpyDeviceToHost) != grSuccess) {
        std::fprintf(stderr, "consumer.cpp: %s\n", grGetLastErrorDetail());
        return 1;
    }
    if (host != 0x01010101 || calls != 1) {
        std::fprintf(stderr, "consumer.cpp: memset gave %#x, host function ran %d times\n", host, calls);
        return 1;
    }
    std::printf("consumer.cpp: graphrt.hpp, driver version %d\n", version);
    grGraphExecDestroy(exec);
    grGraphDestroy(g);
    grStreamDestroy(s);
    grFree(d);
    return 0;
}
