/*
 * analyze_env.c - GRAPHRT_ANALYZE=1: each graph instantiated is analysed
 * and its findings (redundant edges, detached nodes, serialised
 * fork-joins) are written to stderr, so that a program learns of a legal
 * but wrong graph without changing a line. Nothing is written for a graph
 * without findings.
 *
 * The variable is read once per process. The analysis runs after the
 * executable is built, from the graph (which the instantiating thread
 * owns for the call, as graphs are not internally synchronised), and
 * costs what grGraphAnalyze costs; off, one pthread_once check.
 */
#include "exec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t analyze_once = PTHREAD_ONCE_INIT;
static bool analyze_on; /* written once under analyze_once */

static void read_env(void)
{
    const char *v = getenv("GRAPHRT_ANALYZE");
    analyze_on = v != NULL && strcmp(v, "1") == 0;
}

/* The instantiation succeeded: its caller sees the last error it would
 * have seen without the analysis, whatever became of the analysis. */
static void keep_last_error(grError_t before)
{
    if (grPeekAtLastError() == before)
        return;
    if (before == grSuccess)
        (void)grGetLastError();
    else
        (void)gr__fail_again(before);
}

void gr__exec_analyze_warn(grGraph_t g)
{
    pthread_once(&analyze_once, read_env);
    if (!analyze_on)
        return;
    grError_t before = grPeekAtLastError();
    grGraphAnalysis r;
    /* One block of lines per graph even when threads instantiate at once. */
    flockfile(stderr);
    if (grGraphAnalyze(g, &r, 0) == grSuccess) {
        (void)grGraphAnalysisPrint(&r, stderr, grGraphAnalysisPrintFindingsOnly);
        grGraphAnalysisDestroy(&r);
    } else {
        fprintf(stderr, "graphrt: analysis: graph %p not analysed: %s\n", GR_PTR(g), grGetLastErrorDetail());
    }
    funlockfile(stderr);
    keep_last_error(before);
}
