/*
 * test-fuzz-regress.c - seeds the fuzzers found, replayed as short runs in
 * the normal suite (docs/fuzzing.md, "Turning a seed into a test").
 *
 * Each entry is the command line a failure report printed (--save keeps
 * it in a file), minus the program name. A seed stays here after the bug
 * it found was fixed (in graphrt or in the fuzzer's model), so that the
 * same sequence of calls keeps being checked. The seeds were found with
 * the classes of unfixed bugs off; every class is fixed and on now, so
 * they replay other sequences than the ones that failed (each bug has its
 * own regression test in the suite) and stay as fixed call sequences.
 *
 * Needs the fuzz library (GR_BUILD_FUZZ, on by default); without it this
 * file has one test that says so.
 */
#include "test.h"

#include <fcntl.h>
#include <unistd.h>

#ifdef GR_HAVE_FUZZ

int fz_api_main(int argc, char **argv);
int fz_diff_main(int argc, char **argv);

typedef int (*fuzz_main)(int, char **);

/* Runs one saved command line; the fuzzer's summary line goes to
 * /dev/null (the runner's stdout is TAP), its failure report to stderr. */
static void replay(fuzz_main fn, const char *prog, const char *args)
{
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    argv[argc++] = (char *)prog;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 30; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc++] = "--quiet";
    argv[argc] = NULL;
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0)
        dup2(null, 1);
    int rc = fn(argc, argv);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, 1);
        close(saved);
    }
    if (null >= 0)
        close(null);
    if (rc != 0)
        GR_TEST_FAIL_("%s %s exited with %d", prog, args, rc);
}

/* fuzz-api: seeds whose runs found model and library bugs. */
static const char *const api_seeds[] = {
    /* grStreamIsCapturing's refusals name grStreamGetCaptureInfo
     * (now tested by is_capturing_refusal_names_grStreamIsCapturing). */
    "--seed 0x1 --iterations 1",
    /* A zero-byte grMemset during a blocking capture is refused
     * (the capture rule comes before the zero-byte shortcut), and so are
     * zero-byte async copies on an invalidated capture. */
    "--seed 0x3 --iterations 1",
    /* Launching into a capture, and synchronising after it, under the
     * mode rules. */
    "--seed 0x6 --iterations 1",
    /* A launch's queued reads made unknown by later writes of other
     * streams (taint propagation in the model). */
    "--seed 0x9 --iterations 1",
    /* Graph memory: a foreign free node of an allocation its destroyed
     * executable may keep (destroying_an_exec_ends_its_allocations_while_a_stream_holds_it). */
    "--seed 0xb --iterations 1",
    /* Update refusals inside child graphs, and child-graph setters. */
    "--seed 0xc --iterations 1",
    "--seed 0x11712 --iterations 1",
    /* Event record nodes re-record events marked by a capture in
     * progress. */
    "--seed 0x21 --iterations 1",
    /* Graph-memory free nodes and captured frees of other graphs'
     * allocations, rollback of captures into graphs (graphmem_capture_rollback_forgets_its_free_node). */
    "--seed 0x23fc --iterations 1",
    "--seed 0x50498 --iterations 1",
    /* Re-instantiating a graph with memory nodes right after its
     * executable was destroyed (graph_memory_reinstantiation_after_destroy_is_never_refused). */
    "--seed 0x616 --iterations 1",
    /* Event wait nodes and records on the legacy stream: the generator
     * must not make a wait node wait for itself. */
    "--seed 0x487 --iterations 1",
    /* A destroyed stream finishing its work while grDeviceSynchronize
     * walks the registry (registry_streams_are_not_retained_after_their_last_reference). */
    "--seed 0x2100194c --iterations 1",
    /* A run of fresh seeds, short. */
    "--seed 0x5eed0000 --iterations 4 --steps 1500",
};

/* fuzz-api with threads sharing streams and executables. */
static const char *const api_mt_seeds[] = {
    "--seed 0x15c --iterations 6 --threads 3 --steps 1500",
    "--seed 0x1fa --iterations 6 --threads 3 --steps 1500",
};

/* fuzz-diff: programs, each run with 1, 2 and 4 workers. */
static const char *const diff_seeds[] = {
    "--seed 0x64 --iterations 16",
    "--seed 0x3e8 --iterations 16",
    "--seed 0x7 --iterations 8 --threads 2",
};

GR_TEST_T(fuzz_api_replays_saved_seeds, 180)
{
    for (size_t i = 0; i < sizeof api_seeds / sizeof api_seeds[0]; i++)
        replay(fz_api_main, "fuzz-api", api_seeds[i]);
}

GR_TEST_T(fuzz_api_replays_saved_seeds_with_threads, 180)
{
    for (size_t i = 0; i < sizeof api_mt_seeds / sizeof api_mt_seeds[0]; i++)
        replay(fz_api_main, "fuzz-api", api_mt_seeds[i]);
}

GR_TEST_T(fuzz_diff_replays_saved_programs, 180)
{
    for (size_t i = 0; i < sizeof diff_seeds / sizeof diff_seeds[0]; i++)
        replay(fz_diff_main, "fuzz-diff", diff_seeds[i]);
}

#else

GR_TEST(fuzz_regress_needs_the_fuzz_library)
{
    /* Configured with GR_BUILD_FUZZ=OFF: there is nothing to replay. */
}

#endif
