// bench_tbb.cpp - oneTBB flow graph on the grain shapes (with the grain
// harness). One continue_node<continue_msg> per task, make_edge
// per dependency; replay = try_put(continue_msg) on every source + wait_for_all().
// Threads: tbb::global_control(max_allowed_parallelism, T); the calling thread
// takes part in wait_for_all(), so T=1 means "main thread only".
// Variants (first argument):
//   default     : continue_node<continue_msg>  (each ready node is spawned as a task)
//   lightweight : continue_node<continue_msg, tbb::flow::lightweight>  (body runs
//                 directly in the thread that completes the last predecessor)
#include <memory>
#include <vector>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include "grain.h"

namespace flow = oneapi::tbb::flow;

template <class Node>
struct TbbGraph {
    flow::graph g;
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<int> srcs;
};

static void *tbb_init(int threads)
{
    auto *gc = new oneapi::tbb::global_control(oneapi::tbb::global_control::max_allowed_parallelism, (size_t)threads);
    flow::graph g;
    flow::continue_node<flow::continue_msg> a(g, [](const flow::continue_msg &) { return flow::continue_msg(); });
    flow::continue_node<flow::continue_msg> b(g, [](const flow::continue_msg &) { return flow::continue_msg(); });
    flow::make_edge(a, b);
    a.try_put(flow::continue_msg());
    g.wait_for_all();
    return gc;
}
static void tbb_fini(void *ctx) { delete static_cast<oneapi::tbb::global_control *>(ctx); }

template <class Node>
static void *tbb_build(void *, const graph_t *gr)
{
    auto *h = new TbbGraph<Node>();
    h->nodes.reserve((size_t)gr->n);
    for (int i = 0; i < gr->n; i++)
        h->nodes.emplace_back(new Node(h->g, [i](const flow::continue_msg &) {
            bench_task(i);
            return flow::continue_msg();
        }));
    for (int i = 0; i < gr->n; i++)
        for (int k = gr->pred_off[i]; k < gr->pred_off[i + 1]; k++)
            flow::make_edge(*h->nodes[(size_t)gr->pred[k]], *h->nodes[(size_t)i]);
    h->srcs.assign(gr->src, gr->src + gr->nsrc);
    return h;
}

template <class Node>
static void tbb_replay(void *hh)
{
    auto *h = static_cast<TbbGraph<Node> *>(hh);
    for (int s : h->srcs) h->nodes[(size_t)s]->try_put(flow::continue_msg());
    h->g.wait_for_all();
}

template <class Node>
static void tbb_destroy(void *hh)
{
    delete static_cast<TbbGraph<Node> *>(hh);
}

using DefNode = flow::continue_node<flow::continue_msg>;
using LwNode = flow::continue_node<flow::continue_msg, flow::lightweight>;

int main(int argc, char **argv)
{
    static const bench_ops def = {"tbb_flow", 1, tbb_init, tbb_build<DefNode>, tbb_replay<DefNode>,
                                  tbb_destroy<DefNode>, tbb_fini, nullptr};
    static const bench_ops lw = {"tbb_flow_lw", 1, tbb_init, tbb_build<LwNode>, tbb_replay<LwNode>,
                                 tbb_destroy<LwNode>, tbb_fini, nullptr};
    if (argc < 2 || (strcmp(argv[1], "default") && strcmp(argv[1], "lightweight"))) {
        fprintf(stderr, "usage: %s default|lightweight [-g grains] [-s shapes] [threads ...]\n", argv[0]);
        return 1;
    }
    return bench_main(argc - 1, argv + 1, strcmp(argv[1], "default") == 0 ? &def : &lw);
}
