/*
 * test-record.c - 'graphrt record --convert' on the callback streams of
 * tests/data/record/: the graph files it writes load and replay, and the
 * report names what the issue of each program is (the serialised
 * fork-join's event, every difference of a failed update, the stale
 * pointer's node, argument and free, the call and thread that invalidated
 * a capture). The fixtures named *-handmade.log are written by hand in
 * the recorder's format; the others were recorded on a GPU by
 * tools/record-check.sh. Recording itself needs a GPU and its driver, so
 * the test that would run it skips here.
 */
#include "testlib.h"

#ifdef GR_TOOL_PATH

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef GR_SOURCE_DIR
#error "GR_SOURCE_DIR must name the source tree (CMakeLists.txt sets it)"
#endif
#define FIXTURES GR_SOURCE_DIR "/tests/data/record"

/* A fresh directory holding the fixture as callbacks-1.log. */
static void stage(const char *fixture, char *dir, size_t cap)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, cap, "%s/graphrt-record-%ld-XXXXXX", base, (long)getpid());
    CHECK(mkdtemp(dir) != NULL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/callbacks-1.log'", FIXTURES, fixture, dir);
    CHECK(system(cmd) == 0);
}

static void unstage(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* Runs the tool with args; its exit status. */
static int tool(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", GR_TOOL_PATH, args);
    int st = system(cmd);
    CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* The file 'name' of the recording directory dir, read whole (the caller
 * frees it). */
static char *read_recorded(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tl_slurp(path, NULL);
}

#define CHECK_HAS(text, needle)                                        \
    do {                                                               \
        if (!strstr((text), (needle)))                                 \
            GR_TEST_FAIL_("'%s' not found in:\n%s", (needle), (text)); \
    } while (0)

static char *convert(const char *fixture, char *dir, size_t cap, const char *flags)
{
    stage(fixture, dir, cap);
    char args[1200];
    snprintf(args, sizeof args, "record --convert '%s' --quiet %s", dir, flags);
    CHECK_EQ(tool(args), 0);
    return read_recorded(dir, "report.txt");
}

/* Loads dir/name with stand-in kernels, checks its node count, replays
 * it once on the CPU. */
static void load_and_replay(const char *dir, const char *name, size_t nodes)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    grGraph_t g;
    CHECK_EQ(grGraphLoadFromFile(&g, path, grGraphLoadStandIns), grSuccess);
    CHECK_EQ(tl_node_count(g), nodes);
    grGraphExec_t e;
    CHECK_EQ(grGraphInstantiate(&e, g, 0), grSuccess);
    CHECK_EQ(grGraphLaunch(e, NULL), grSuccess);
    CHECK_EQ(grStreamSynchronize(NULL), grSuccess);
    CHECK_EQ(grGraphExecDestroy(e), grSuccess);
    CHECK_EQ(grGraphDestroy(g), grSuccess);
}

GR_TEST_T(record_converts_the_seed_capture_to_a_graph_file_that_replays, 60)
{
    char dir[512];
    char *rep = convert("capture-copy-handmade.log", dir, sizeof dir, "");
    CHECK_HAS(rep, "nodes: 3 (kernel 2, memcpy 1), edges: 2");
    CHECK_HAS(rep, "origin: captured from stream 0x5000");
    CHECK_HAS(rep, "launches in all: 10");
    CHECK_HAS(rep, "n1 memcpy   runs 10  mean 1.80 us");
    free(rep);
    char *file = read_recorded(dir, "graph-1.graph");
    CHECK_HAS(file, "kernel k0 \"_Z3fooPfi\" 8 4\n");
    CHECK_HAS(file, "n1 memcpy dst=b1+0 src=b0+0 count=4096 kind=DeviceToDevice after=n0\n");
    free(file);
    load_and_replay(dir, "graph-1.graph", 3);
    /* The capture's walk and the instantiation's are the same graph: one file. */
    struct stat st;
    char path[600];
    snprintf(path, sizeof path, "%s/graph-1-v2.graph", dir);
    CHECK(stat(path, &st) != 0);
    unstage(dir);
}

GR_TEST_T(record_names_the_event_that_serialised_a_fork_join, 60)
{
    char dir[512];
    char *rep = convert("forkjoin-handmade.log", dir, sizeof dir, "");
    /* graph 1 is joined correctly, graph 2 chains its branches by reusing
     * the fork's event. */
    char *g2 = strstr(rep, "\ngraph 2:");
    CHECK(g2 != NULL);
    *g2 = '\0';
    CHECK_HAS(rep, "serialised fork-joins: 0");
    CHECK_HAS(g2 + 1, "serialised fork-joins: 1");
    CHECK_HAS(g2 + 1, "captured from 3 streams: 0x5000 (3 nodes) 0x5100 (1 node) 0x5200 (1 node)");
    CHECK_HAS(g2 + 1, "the edge n1 -> n2 was made by event 0xe0: recorded on stream 0x5100");
    CHECK_HAS(g2 + 1, "then waited on by stream 0x5200 (cudaStreamWaitEvent");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_lists_every_difference_of_a_failed_update, 60)
{
    char dir[512];
    char *rep = convert("update-topology-handmade.log", dir, sizeof dir, "");
    CHECK_HAS(rep, "failed: CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (910), "
                   "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    CHECK_HAS(rep, "A has 2 top-level nodes, B has 3");
    CHECK_HAS(rep, "n1 of B has no partner in A");
    CHECK_HAS(rep, "n1 -> n2: grid=1,1,1 -> grid=2,1,1");
    /* Launches after the failed update still run the instantiated graph. */
    CHECK_HAS(rep, "launches in all: 5");
    CHECK_HAS(rep, "exec setters: 1 (0 failed)");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_names_node_argument_and_free_of_a_stale_pointer, 60)
{
    char dir[512];
    char *rep = convert("stale-pointer-handmade.log", dir, sizeof dir, "--stale");
    CHECK_HAS(rep, "stale: graph 1 (graph-1.graph) n0 kernel \"_Z4fillPfi\" argument 0 = 0x7f0000000100");
    CHECK_HAS(rep, "freed by cudaFree on thread 1 (log line 23)");
    CHECK_HAS(rep, "the address lies in a later allocation (cudaMalloc, log line 24)");
    CHECK_HAS(rep, "n1 memcpy src = 0x7f0000000000");
    CHECK(strstr(rep, "n1 memcpy dst") == NULL); /* its allocation lives */
    free(rep);
    unstage(dir);
    /* Without --stale, no such section. */
    rep = convert("stale-pointer-handmade.log", dir, sizeof dir, "");
    CHECK(strstr(rep, "stale pointers") == NULL);
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_names_the_call_and_thread_that_invalidated_a_capture, 60)
{
    char dir[512];
    char *rep = convert("capture-invalidated-handmade.log", dir, sizeof dir, "");
    CHECK_HAS(rep, "failed: cudaStreamEndCapture returned CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (901)");
    CHECK_HAS(rep, "invalidated by: cudaMalloc (driver call cuMemAlloc_v2), which returned "
                   "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (900), on thread 2 (its capture mode global)");
    CHECK_HAS(rep, "another thread than the capture's");
    CHECK_HAS(rep, "first reported to: cudaLaunchKernel");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_writes_every_node_type_as_a_file_that_loads, 60)
{
    char dir[512];
    char *rep = convert("node-types-handmade.log", dir, sizeof dir, "");
    CHECK(strstr(rep, "problem") == NULL);
    free(rep);
    char *file = read_recorded(dir, "graph-1.graph");
    CHECK_HAS(file, "n1 memset dst=@n0+0 ");
    CHECK_HAS(file, "args=@n0+16,x05000000");
    CHECK_HAS(file, "n3 cond c0 type=while size=1 after=n2 {");
    CHECK_HAS(file, "n7 free ptr=@n0+0");
    CHECK_HAS(file, "extent=64,10,1 dpitch=64 drows=10 spitch=128 srows=32");
    CHECK_HAS(file, "# n9: CUDA node 'other type=9' is kept as an empty node");
    CHECK_HAS(file, "args=x3412000000000000"); /* an address CUDA does not know stays a number */
    free(file);
    char path[600];
    snprintf(path, sizeof path, "%s/graph-1.graph", dir);
    grGraph_t g;
    CHECK_EQ(grGraphLoadFromFile(&g, path, grGraphLoadStandIns), grSuccess);
    CHECK_EQ(tl_node_count(g), 11);
    grGraphDestroy(g);
    unstage(dir);
}

/* ------------------------------------------------ recorded on a GPU */

/* The callback streams tools/record-check.sh recorded from the programs
 * of record/clients/ (CUDA 13.0, an H100). */
#define REAL(client) client "-cuda13.0-h100.log"

GR_TEST_T(record_gpu_seed_capture_and_explicit_graph, 60)
{
    char dir[512];
    char *rep = convert(REAL("seed_capture"), dir, sizeof dir, "--stale");
    CHECK_HAS(rep, "graphs recorded: 1");
    CHECK_HAS(rep, "nodes: 3 (kernel 2, memcpy 1), edges: 2");
    CHECK_HAS(rep, "(cuStreamBeginCapture_v2, mode global, thread 1");
    CHECK_HAS(rep, "launches in all: 100");
    CHECK_HAS(rep, "executable 2: instantiated by cuGraphInstantiateWithFlags on thread 1");
    CHECK_HAS(rep, "none: no launch used an address freed before it");
    free(rep);
    char *file = read_recorded(dir, "graph-1.graph");
    CHECK_HAS(file, "\"_Z3fooPfi\"");
    CHECK_HAS(file, "\"_Z3barPfi\"");
    CHECK_HAS(file, "kind=DeviceToDevice");
    free(file);
    load_and_replay(dir, "graph-1.graph", 3);
    unstage(dir);

    rep = convert(REAL("seed_explicit"), dir, sizeof dir, "");
    CHECK_HAS(rep, "nodes: 2 (kernel 2), edges: 1");
    CHECK_HAS(rep, "built with the graph API");
    CHECK_HAS(rep, "instantiated by cuGraphInstantiateWithFlags");
    free(rep);
    load_and_replay(dir, "graph-1.graph", 2);
    unstage(dir);
}

GR_TEST_T(record_gpu_serialised_fork_join_names_its_event, 60)
{
    char dir[512];
    char *rep = convert(REAL("forkjoin"), dir, sizeof dir, "");
    /* graph 1 joined correctly; graph 2 chains two branches through the
     * fork's event, recorded again on a branch. */
    char *g2 = strstr(rep, "\ngraph 2:");
    CHECK(g2 != NULL);
    CHECK_HAS(rep, "serialised fork-joins: 0");
    CHECK_HAS(g2, "serialised fork-joins: 1");
    CHECK_HAS(g2, "the edge n1 -> n2 was made by event 0x");
    CHECK_HAS(g2, "(cudaEventRecord, thread 1, log line");
    CHECK_HAS(g2, "then waited on by stream 0x");
    CHECK_HAS(g2, "(cudaStreamWaitEvent, thread 1, log line");
    free(rep);
    load_and_replay(dir, "graph-1.graph", 5);
    load_and_replay(dir, "graph-2.graph", 5);
    unstage(dir);
}

GR_TEST_T(record_gpu_failed_update_lists_every_difference, 60)
{
    char dir[512];
    char *rep = convert(REAL("update_topology"), dir, sizeof dir, "");
    CHECK_HAS(
        rep,
        "failed: CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (910), CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    CHECK_HAS(rep, "topology    A has 2 top-level nodes, B has 3");
    CHECK_HAS(rep, "topology    n1 of B has no partner in A");
    CHECK_HAS(rep, "parameters  n1 -> n2: args=");
    CHECK_HAS(rep, "update      would fail: grGraphExecUpdateErrorTopologyChanged");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_gpu_stale_pointer_names_node_argument_and_free, 60)
{
    char dir[512];
    char *rep = convert(REAL("stale_pointer"), dir, sizeof dir, "--stale");
    CHECK_HAS(rep, "stale: graph 1 (graph-1.graph) n0 kernel \"_Z4fillPfi\" argument 0 = 0x");
    CHECK_HAS(rep, "stale: graph 1 (graph-1.graph) n1 memcpy src = 0x");
    CHECK_HAS(rep, "(cuMemAlloc_v2, log line 3), freed by cuMemFree_v2 on thread 1");
    CHECK_HAS(rep, "the address lies in a later allocation");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_gpu_invalidated_capture_names_the_other_threads_call, 60)
{
    char dir[512];
    char *rep = convert(REAL("capture_invalidated"), dir, sizeof dir, "");
    CHECK_HAS(rep, "failed: cudaStreamEndCapture returned CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (901)");
    CHECK_HAS(rep, "invalidated by: cudaMemset (driver call cuMemsetD8_v2), which returned "
                   "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906), on thread 2 (its capture mode global)");
    CHECK_HAS(rep, "another thread than the capture's");
    CHECK_HAS(rep, "first reported to: cudaLaunchKernel (driver call cuLaunchKernel) on thread 1");
    free(rep);
    unstage(dir);
}

GR_TEST_T(record_gpu_pytorch_graphs_load_and_replay, 120)
{
    /* torch.cuda.graph of an MLP and of one transformer block (cuBLAS,
     * cutlass and ATen kernels), each replayed 251 times. */
    char dir[512];
    char *rep = convert(REAL("torch_graphs"), dir, sizeof dir, "--stale");
    CHECK_HAS(rep, "graphs recorded: 2");
    CHECK_HAS(rep, "nodes: 8 (kernel 8), edges: 7");
    CHECK_HAS(rep, "nodes: 12 (kernel 11, memset 1), edges: 11");
    CHECK_HAS(rep, "launches in all: 251");
    CHECK_HAS(rep, "cutlass");
    CHECK_HAS(rep, "none: no launch used an address freed before it");
    free(rep);
    char *file = read_recorded(dir, "graph-1.graph");
    CHECK_HAS(file, "splitKreduce_kernel");
    free(file);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *e;
    char second[256] = "";
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "graph-", 6) == 0 && strcmp(e->d_name, "graph-1.graph") != 0)
            snprintf(second, sizeof second, "%s", e->d_name);
    closedir(d);
    CHECK(second[0] != '\0');
    load_and_replay(dir, "graph-1.graph", 8);
    load_and_replay(dir, second, 12);
    unstage(dir);
}

GR_TEST_T(record_converts_every_fixture, 120)
{
    DIR *d = opendir(FIXTURES);
    CHECK(d != NULL);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0)
            continue;
        char dir[512];
        char *rep = convert(e->d_name, dir, sizeof dir, "--stale");
        if (strstr(rep, "problem: "))
            GR_TEST_FAIL_("%s: a graph file did not load:\n%s", e->d_name, rep);
        free(rep);
        char *js = read_recorded(dir, "session.json");
        CHECK_HAS(js, "{\"format\": \"graphrt-record-session 1\"");
        free(js);
        unstage(dir);
        n++;
    }
    closedir(d);
    CHECK(n >= 6);
}

GR_TEST_T(record_refuses_a_malformed_log_naming_the_line, 60)
{
    char dir[512];
    stage("capture-copy-handmade.log", dir, sizeof dir);
    char cmd[4096];
    /* Cut the log inside its first walk. */
    snprintf(cmd, sizeof cmd, "head -n 16 '%s/callbacks-1.log' > '%s/x' && mv '%s/x' '%s/callbacks-1.log'",
             dir, dir, dir, dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "'%s' record --convert '%s' 2>&1 >/dev/null", GR_TOOL_PATH, dir);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    char out[1024];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CHECK_HAS(out, "the log ends inside a walk");
    unstage(dir);
    /* Not a log at all. */
    stage("capture-copy-handmade.log", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "echo hello > '%s/callbacks-1.log'", dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "record --convert '%s'", dir);
    CHECK_EQ(tool(cmd), 1);
    unstage(dir);
}

GR_TEST_T(record_names_each_process_and_notes_a_log_cut_short, 60)
{
    /* Two processes: files of process PID start 'pPID-'. */
    char dir[512], cmd[4096];
    stage("capture-copy-handmade.log", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "grep -v '^end' '%s/%s' > '%s/callbacks-2.log'", FIXTURES,
             "forkjoin-handmade.log", dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "record --convert '%s' --quiet", dir);
    CHECK_EQ(tool(cmd), 0);
    struct stat st;
    snprintf(cmd, sizeof cmd, "%s/p1-graph-1.graph", dir);
    CHECK(stat(cmd, &st) == 0);
    snprintf(cmd, sizeof cmd, "%s/p2-graph-2.graph", dir);
    CHECK(stat(cmd, &st) == 0);
    char *rep = read_recorded(dir, "report.txt");
    /* The second log has no 'end' line: the program did not exit normally. */
    char *second = strstr(rep, "callbacks-2.log");
    CHECK(second != NULL);
    CHECK(strstr(rep, "no 'end' line") > second);
    free(rep);
    char *js = read_recorded(dir, "session.json");
    CHECK_HAS(js, "\"complete\": true");
    CHECK_HAS(js, "\"complete\": false");
    free(js);
    unstage(dir);
}

GR_TEST(record_help_and_usage_errors)
{
    CHECK_EQ(tool("record --help"), 0);
    CHECK_EQ(tool("record"), 2);
    CHECK_EQ(tool("record --bogus -- true"), 2);
    CHECK_EQ(tool("record --convert /nonexistent-graphrt-dir"), 1);
}

#ifdef GR_RECORD_SELFTEST_PATH
/* Runs the recorder's selftest, record/selftest/ (a stand-in driver and
 * CUPTI playing the seed capture, five launches, a free and the address
 * allocated again as pinned memory, one more launch, an invalidated
 * capture, launches from a second thread, a new executable and a new
 * graph at the addresses of destroyed ones, two more invalidated
 * captures, calls outside captures and calls not subscribed to; the
 * stand-in delivers only the callbacks the recorder enabled, and the
 * selftest fails if it switched a whole domain after its start), and
 * checks the report and the log; the log stays in dir for the caller. */
static void run_selftest(char *dir, size_t size, int launches)
{
    char cmd[2048];
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, size, "%s/graphrt-record-%ld-XXXXXX", base, (long)getpid());
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "GRAPHRT_RECORD_DIR='%s' RECORD_SELFTEST_LAUNCHES=%d '%s'", dir, launches,
             GR_RECORD_SELFTEST_PATH);
    CHECK_EQ(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "record --convert '%s' --quiet --stale", dir);
    CHECK_EQ(tool(cmd), 0);
    char *rep = read_recorded(dir, "report.txt");
    CHECK_HAS(rep, "nodes: 3 (kernel 2, memcpy 1), edges: 2");
    CHECK_HAS(rep, "origin: captured from stream 0x5000 (cuStreamBeginCapture_v2, mode global");
    /* Each thread counts its own launches; the executable destroyed and
     * the new one at its address (CUPTI's id 2) have their own counts. */
    CHECK_HAS(rep, "    launches on stream 0x5000: 9\n"
                   "    launches in all: 9\n"
                   "  executable 2: instantiated by cuGraphInstantiateWithFlags on thread 1");
    char want[128];
    snprintf(want, sizeof want, "    launches on stream 0x5000: %d\n    launches in all: %d\n", launches,
             launches);
    CHECK_HAS(rep, want);
    /* The free is ordered before the sixth launch (the stale pointer
     * below), and after the first five (the log's order, below). */
    CHECK_HAS(rep, "before executable 1 was launched on stream 0x5000");
    /* Named by the call that made it, not by the runtime call before it
     * (cudaStreamEndCapture, whose exit came before). */
    CHECK_HAS(rep, "executable 1: instantiated by cuGraphInstantiateWithFlags on thread 1");
    CHECK_HAS(rep, "stale: graph 1 (graph-1.graph) n0 kernel \"_Z3fooPfi\" argument 0 = 0x7f0000000000");
    CHECK_HAS(rep, "freed by cuMemFree_v2 on thread 1");
    CHECK(strstr(rep, "no 'end' line") == NULL);
    CHECK_HAS(rep, "capture on stream 0x6000 (cuStreamBeginCapture_v2, mode global, thread 1");
    CHECK_HAS(rep,
              "invalidated by: cuMemAlloc_v2, which returned CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (900), on "
              "thread 2 (its capture mode global)");
    CHECK_HAS(rep, "first reported to: cuLaunchKernel on thread 1");
    /* A call of the capture list invalidates a capture from another
     * thread: named with its runtime call. */
    CHECK_HAS(rep, "capture on stream 0x8000 (cuStreamBeginCapture_v2, mode global, thread 1");
    CHECK_HAS(rep, "invalidated by: cudaMemset (driver call cuMemsetD8_v2), which returned "
                   "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906), on thread 3 (its capture mode global)");
    /* A call the recorder gets no callback for invalidates one: the report
     * says so, and names the capture's last node before it and the first
     * call it refused. */
    CHECK_HAS(rep, "capture on stream 0x9000 (cuStreamBeginCapture_v2, mode global, thread 1");
    CHECK_HAS(rep, "invalidated by: a call the recorder does not subscribe to (no callback, so not named; "
                   "docs/record.md lists the calls it sees), after the capture's last node, made by "
                   "cuLaunchKernel on thread 1 (log line ");
    free(rep);
    char *file = read_recorded(dir, "graph-1.graph");
    CHECK_HAS(file, "n1 memcpy dst=b1+0 src=b0+0 count=4096 kind=DeviceToDevice after=n0\n");
    free(file);
    /* Graph 1 is walked twice: once for its capture and instantiation,
     * once for the update that follows a node setter; not for the update
     * of an unchanged graph, nor for the second executable. The new
     * graph at its address is graph 2 from its first node on, and walked. */
    char grep[4096];
    snprintf(
        grep, sizeof grep,
        "cd '%s' && grep -q '^walk-same w=2 g=1 why=instantiate x=1 as=1 ' callbacks-*.log && "
        "grep -q '^walk-same w=3 g=1 why=update x=1 as=1 ' callbacks-*.log && "
        "grep -q '^walk w=4 g=1 why=update x=1$' callbacks-*.log && "
        "grep -q '^walk-same w=5 g=1 why=instantiate x=2 as=4 ' callbacks-*.log && "
        "grep -q '^node-create g=2 n=11 type=0 t=1 call=cuLaunchKernel s=0x7000$' callbacks-*.log && "
        "grep -q '^node-create g=2 n=13 type=0 t=1 call=cuLaunchKernel s=0x7000$' callbacks-*.log && "
        "grep -q '^capture-begin s=0x9000 .* g=3$' callbacks-*.log && "
        "grep -q '^capture-error call=cuLaunchKernel rc=901 t=1 mode=global s=0x9000$' callbacks-*.log && "
        "grep -q '^walk w=6 g=2 why=capture x=0$' callbacks-*.log && "
        "test $(grep -c '^walk ' callbacks-*.log) -eq 3 && "
        "! grep -q '^node-create .*call=cuGraphInstantiateWithFlags' callbacks-*.log && "
        "grep -q '^capture-error call=cuGraphLaunch rc=901 t=1 mode=global s=0x6000$' callbacks-*.log && "
        "! grep -q '^launch x=1 s=0x6000 ' callbacks-*.log && "
        "grep -B1 '^free p=0x7f0000000000 ' callbacks-*.log | head -n 1 | "
        "grep -q '^launch x=1 s=0x5000 count=5$'",
        dir);
    CHECK_EQ(system(grep), 0);
    /* The walk after the free and the new allocation at the same address
     * classifies it by the new allocation (the stand-in driver would say
     * device memory), the walk before by the first: the allocations seen
     * answer, never the driver. Each kernel's name is asked once over the
     * three walks. Each graph launch (ten and the second executable's)
     * is two callbacks, those of threads that exited before the end
     * included. The kernel launch and the stream synchronisation outside
     * captures are four driver callbacks that returned at once, and the
     * synchronisation two runtime ones (the runtime's kernel launches are
     * not subscribed to, so a node captured by cudaLaunchKernel is named
     * by the driver's call beneath it); calls not subscribed to
     * (cuKernelGetName before each launch, cuModuleLoadData) got none. */
    snprintf(
        grep, sizeof grep,
        "cd '%s' && sed -n '/^walk w=4 /,/^walk-end w=4 /p' callbacks-*.log | "
        "grep -q '^  node n=11 kernel \"_Z3fooPfi\" .* args=p:pinned:0x7f0000000000:0x7f0000000000:4096,' && "
        "sed -n '/^walk w=1 /,/^walk-end w=1 /p' callbacks-*.log | "
        "grep -q 'args=p:device:0x7f0000000000:' && "
        "grep -q '^profile ticks_per_ns=[0-9.]* cb_count=[0-9]* cb_ns=[0-9]* wait_ns=[0-9]* "
        "walks=3 walk_nodes=9 walk_ns=[0-9]* query_ns=[0-9]* query_calls=[0-9]* "
        "name_ns=[0-9]* name_calls=2 name_hits=4 "
        "ptr_ns=[0-9]* ptr_calls=12 ptr_map=12 ptr_cache=0 ptr_driver=0 "
        "write_ns=[0-9]* append_ns=[0-9]* cb=.*drv:cuGraphLaunch:%d:[0-9]*' callbacks-*.log && "
        "grep -q '^profile .*res:node-created:9:' callbacks-*.log && "
        "grep -q '^profile .*,drv:idle:4:0' callbacks-*.log && grep -q '^profile .*,rt:idle:2:0' "
        "callbacks-*.log && "
        "! grep -q '^profile .*cuKernelGetName' callbacks-*.log && "
        "! grep -q '^profile .*cuModuleLoadData' callbacks-*.log && "
        "grep -q '^end lost_launches=0$' callbacks-*.log",
        dir, 2 * (10 + launches));
    CHECK_EQ(system(grep), 0);
}

#endif

/* Runs the recorder's selftest with 'launches' launches of its second
 * executable. */
static void check_selftest(int launches)
{
#ifdef GR_RECORD_SELFTEST_PATH
    char dir[512];
    run_selftest(dir, sizeof dir, launches);
    unstage(dir);
#else
    (void)launches;
    GR_TEST_SKIP("the recorder's selftest is built only where CMake finds the CUDA toolkit's headers");
#endif
}

GR_TEST_T(record_the_recorder_code_on_a_stand_in_driver, 60)
{
    check_selftest(2);
}

GR_TEST_T(record_subscribes_once_and_counts_many_launches, 60)
{
    /* 70 graph launches with no capture open, then a capture: the
     * callbacks the capture needs come without switching anything (the
     * selftest fails where a domain was switched). */
    check_selftest(70);
}

GR_TEST_T(record_a_live_cuda_program, 300)
{
    /* The seed capture (record/clients/seed_capture.cu), built with nvcc
     * and run under 'graphrt record': the driver loads the recorder, which
     * needs an NVIDIA GPU and its driver. tools/record-check.sh records
     * all the clients there and writes the fixtures the tests above read. */
    gr_test_device_or_skip(1);
    gr_test_real_gpu_or_skip();
#ifndef GR_RECORD_LIB_BUILT
    GR_TEST_SKIP("the recorder is built only where CMake finds the CUDA toolkit with CUPTI");
#else
    if (system("command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") != 0)
        GR_TEST_SKIP("needs nvcc to build a CUDA program to record");
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "/tmp/graphrt-record-live-%ld-XXXXXX", (long)getpid());
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd,
             "PATH=\"$PATH:/usr/local/cuda/bin\" nvcc -O2 -arch=native -o '%s/seed_capture' "
             "'%s/record/clients/seed_capture.cu' >'%s/nvcc.txt' 2>&1",
             dir, GR_SOURCE_DIR, dir);
    CHECK_EQ(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "record -o '%s/rec' --quiet --stale -- '%s/seed_capture'", dir, dir);
    CHECK_EQ(tool(cmd), 0);
    char rec[600];
    snprintf(rec, sizeof rec, "%s/rec", dir);
    char *rep = read_recorded(rec, "report.txt");
    CHECK_HAS(rep, "graphs recorded: 1");
    CHECK_HAS(rep, "nodes: 3 (kernel 2, memcpy 1), edges: 2");
    CHECK_HAS(rep, "(cuStreamBeginCapture_v2, mode global, thread 1");
    /* The driver's name (cudaGraphInstantiate is not subscribed to); the
     * runtime's in a log recorded before it was. */
    CHECK(strstr(rep, "instantiated by cudaGraphInstantiate") != NULL ||
          strstr(rep, "instantiated by cuGraphInstantiate") != NULL);
    CHECK_HAS(rep, "launches in all: 100");
    CHECK_HAS(rep, "none: no launch used an address freed before it");
    free(rep);
    char *file = read_recorded(rec, "graph-1.graph");
    CHECK_HAS(file, "\"_Z3fooPfi\"");
    CHECK_HAS(file, "kind=DeviceToDevice");
    free(file);
    unstage(dir);
#endif
}

#endif /* GR_TOOL_PATH */
