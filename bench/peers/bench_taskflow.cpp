// bench_taskflow.cpp - the Taskflow peer (headers at the release
// bench/run.sh pins) on the harness's shapes (bench/harness/hr_peer.h: the
// overhead table, or the grain table with -g/-s). One tf::Task per task
// (emplace), precede() per dependency, built once;
// replay = executor.run(taskflow).wait().
// Usage: bench_taskflow [-g GRAINS] [-s SHAPES] [threads...]
// Threads: tf::Executor(T) worker threads; the calling thread only waits.
#include <memory>
#include <vector>
#include <taskflow/taskflow.hpp>
#include "hr_peer.h"

struct TfGraph {
    tf::Taskflow tf;
    tf::Executor *ex;
};

static void *tf_init(int threads)
{
    auto *ex = new tf::Executor((size_t)threads);
    // one-time start-up, outside every graph's build time
    tf::Taskflow t;
    auto a = t.emplace([]() {});
    auto b = t.emplace([]() {});
    a.precede(b);
    ex->run(t).wait();
    return ex;
}
static void tf_fini(void *ctx) { delete static_cast<tf::Executor *>(ctx); }

static void *tf_build(void *ctx, const graph_t *gr)
{
    auto *h = new TfGraph();
    h->ex = static_cast<tf::Executor *>(ctx);
    std::vector<tf::Task> t((size_t)gr->n);
    for (int i = 0; i < gr->n; i++) t[(size_t)i] = h->tf.emplace([i]() { bench_task(i); });
    for (int i = 0; i < gr->n; i++)
        for (int k = gr->pred_off[i]; k < gr->pred_off[i + 1]; k++)
            t[(size_t)gr->pred[k]].precede(t[(size_t)i]);
    return h;
}

static void tf_replay(void *hh)
{
    auto *h = static_cast<TfGraph *>(hh);
    h->ex->run(h->tf).wait();
}

static void tf_destroy(void *hh) { delete static_cast<TfGraph *>(hh); }

int main(int argc, char **argv)
{
    static const bench_ops ops = {"taskflow", 1, tf_init, tf_build, tf_replay, tf_destroy, tf_fini, nullptr};
    return bench_main(argc, argv, &ops);
}
