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

/* dir/name read into a malloc'd string. */
static char *slurp(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char *s = malloc(1 << 20);
    CHECK(s != NULL);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = '\0';
    fclose(f);
    return s;
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
    return slurp(dir, "report.txt");
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
    char *file = slurp(dir, "graph-1.graph");
    CHECK_HAS(file, "kernel k0 \"_Z3fooPfi\" 8 4\n");
    CHECK_HAS(file, "n1 memcpy dst=b1+0 src=b0+0 count=4096 kind=DeviceToDevice after=n0\n");
    free(file);
    char path[600];
    snprintf(path, sizeof path, "%s/graph-1.graph", dir);
    grGraph_t g;
    CHECK_EQ(grGraphLoadFromFile(&g, path, grGraphLoadStandIns), grSuccess);
    CHECK_EQ(tl_node_count(g), 3);
    grGraphExec_t e;
    CHECK_EQ(grGraphInstantiate(&e, g, 0), grSuccess);
    CHECK_EQ(grGraphLaunch(e, NULL), grSuccess);
    CHECK_EQ(grStreamSynchronize(NULL), grSuccess);
    grGraphExecDestroy(e);
    grGraphDestroy(g);
    /* The capture's walk and the instantiation's are the same graph: one file. */
    struct stat st;
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
    char *file = slurp(dir, "graph-1.graph");
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
        char *js = slurp(dir, "session.json");
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
    char *rep = slurp(dir, "report.txt");
    /* The second log has no 'end' line: the program did not exit normally. */
    char *second = strstr(rep, "callbacks-2.log");
    CHECK(second != NULL);
    CHECK(strstr(rep, "no 'end' line") > second);
    free(rep);
    char *js = slurp(dir, "session.json");
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

GR_TEST_T(record_the_recorder_code_on_a_stand_in_driver, 60)
{
#ifdef GR_RECORD_SELFTEST_PATH
    /* The recorder's callbacks, log and helper-thread walk, fed by
     * record/selftest/ (a stand-in driver and CUPTI playing the seed
     * capture, five launches, a free, one more launch). */
    char dir[512], cmd[2048];
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/graphrt-record-%ld-XXXXXX", base, (long)getpid());
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "GRAPHRT_RECORD_DIR='%s' '%s'", dir, GR_RECORD_SELFTEST_PATH);
    CHECK_EQ(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "record --convert '%s' --quiet --stale", dir);
    CHECK_EQ(tool(cmd), 0);
    char *rep = slurp(dir, "report.txt");
    CHECK_HAS(rep, "nodes: 3 (kernel 2, memcpy 1), edges: 2");
    CHECK_HAS(rep, "origin: captured from stream 0x5000 (cuStreamBeginCapture_v2, mode global");
    CHECK_HAS(rep, "launches in all: 6");
    /* Named by the call that made it, not by the runtime call before it
     * whose exit callback never came. */
    CHECK_HAS(rep, "executable 1: instantiated by cuGraphInstantiateWithFlags on thread 1");
    CHECK_HAS(rep, "stale: graph 1 (graph-1.graph) n0 kernel \"_Z3fooPfi\" argument 0 = 0x7f0000000000");
    CHECK_HAS(rep, "freed by cuMemFree_v2 on thread 1");
    CHECK(strstr(rep, "no 'end' line") == NULL);
    CHECK_HAS(rep, "capture on stream 0x6000 (cuStreamBeginCapture_v2, mode global, thread 1");
    CHECK_HAS(rep,
              "invalidated by: cuMemAlloc_v2, which returned CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (900), on "
              "thread 2 (its capture mode global)");
    CHECK_HAS(rep, "first reported to: cuLaunchKernel on thread 1");
    free(rep);
    char *file = slurp(dir, "graph-1.graph");
    CHECK_HAS(file, "n1 memcpy dst=b1+0 src=b0+0 count=4096 kind=DeviceToDevice after=n0\n");
    free(file);
    unstage(dir);
#else
    GR_TEST_SKIP("the recorder's selftest is built only where CMake finds the CUDA toolkit's headers");
#endif
}

GR_TEST(record_a_live_cuda_program)
{
    /* Recording runs a CUDA program with the recorder injected by the
     * driver: that needs an NVIDIA GPU, its driver and the recorder built
     * with the CUDA toolkit. tools/record-check.sh does it on a GPU
     * machine and writes the fixtures the tests above read. */
    GR_TEST_SKIP("needs an NVIDIA GPU and driver: tools/record-check.sh records real programs there");
}

#endif /* GR_TOOL_PATH */
