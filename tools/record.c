/*
 * record.c - 'graphrt record': runs an unmodified CUDA program with the
 * recorder injected (CUDA_INJECTION64_PATH=libgraphrt_record.so,
 * GRAPHRT_RECORD_DIR=DIR), then converts what it recorded
 * (record_report.c). 'graphrt record --convert DIR' converts a recording
 * made elsewhere, which is how the converter runs without a GPU.
 */
#define _XOPEN_SOURCE 700
#include "record.h"
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_record[] =
    "usage: graphrt record [-o DIR] [--timing] [--stale] -- PROGRAM [ARGS...]\n"
    "       graphrt record --convert DIR [--stale]\n"
    "\n"
    "Runs PROGRAM, an unmodified CUDA program, with graphrt's CUPTI recorder\n"
    "injected (CUDA_INJECTION64_PATH), and records every CUDA graph it creates,\n"
    "captures, clones, instantiates, updates and launches. Then writes into DIR\n"
    "(default graphrt-record): one graph file per recorded graph\n"
    "(graph-ID.graph, loadable by 'graphrt info/dot/analyze/diff/replay'),\n"
    "session.json, and report.txt, which is also printed: per graph its node\n"
    "counts, analysis (critical path, width, redundant edges, serialised\n"
    "fork-joins with the event that chained them), instantiations and\n"
    "launches; each failed exec update with every difference; each failed\n"
    "capture with the call and thread that invalidated it.\n"
    "\n"
    "  -o DIR      where to write (created; a previous recording there is removed)\n"
    "  --timing    also record each graph node's GPU time (CUPTI activity records)\n"
    "  --stale     report kernel arguments and copy addresses freed before a launch\n"
    "  --sync-walks  walk graphs in the calling thread at the end of the CUDA call\n"
    "              (a fallback for drivers where the helper thread cannot walk)\n"
    "  --convert DIR  convert the callbacks-*.log already in DIR; run nothing\n"
    "\n"
    "The recorder (libgraphrt_record.so) is looked for in $GRAPHRT_RECORD_LIB,\n"
    "next to this program and in ../lib. It is built where CMake finds the CUDA\n"
    "toolkit. Exit status: the program's (128+N for signal N), 1 if the\n"
    "conversion failed, 2 usage error. docs/record.md is the manual.\n";

static bool exists(const char *p)
{
    return access(p, R_OK) == 0;
}

static bool find_lib(char *out, size_t cap)
{
    const char *env = getenv("GRAPHRT_RECORD_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return exists(out);
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            if (snprintf(out, cap, "%s/libgraphrt_record.so", self) < (int)cap && exists(out))
                return true;
            if (snprintf(out, cap, "%s/../lib/libgraphrt_record.so", self) < (int)cap && exists(out))
                return true;
            if (snprintf(out, cap, "%s/../lib64/libgraphrt_record.so", self) < (int)cap && exists(out))
                return true;
        }
    }
    return false;
}

/* Removes what a previous recording left in dir. */
static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        bool ours = (strncmp(e->d_name, "callbacks-", 10) == 0 && len > 4 &&
                     strcmp(e->d_name + len - 4, ".log") == 0) ||
                    (len > 6 && strcmp(e->d_name + len - 6, ".graph") == 0) ||
                    strcmp(e->d_name, "report.txt") == 0 || strcmp(e->d_name, "session.json") == 0;
        if (ours) {
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
}

int tool_record(int argc, char **argv)
{
    const char *dir = "graphrt-record", *convert = NULL;
    rec_options opt = {false, false};
    bool timing = false, sync_walks = false;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage_record, stdout);
            return TOOL_OK;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--timing") == 0) {
            timing = true;
        } else if (strcmp(argv[i], "--sync-walks") == 0) {
            sync_walks = true;
        } else if (strcmp(argv[i], "--stale") == 0) {
            opt.stale = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            opt.quiet = true;
        } else if (strcmp(argv[i], "--convert") == 0 && i + 1 < argc) {
            convert = argv[++i];
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            tool_error("record", "unexpected argument '%s'", argv[i]);
            fputs(usage_record, stderr);
            return TOOL_USAGE;
        }
    }
    if (convert)
        return i < argc ? (fputs(usage_record, stderr), TOOL_USAGE) : rec_convert_dir(convert, &opt);
    if (i >= argc) {
        fputs(usage_record, stderr);
        return TOOL_USAGE;
    }
    char lib[PATH_MAX];
    if (!find_lib(lib, sizeof lib)) {
        tool_error("record",
                   "libgraphrt_record.so not found (set GRAPHRT_RECORD_LIB; it is built where CMake "
                   "finds the CUDA toolkit with CUPTI)");
        return TOOL_FAIL;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        tool_error("record", "cannot create '%s': %s", dir, strerror(errno));
        return TOOL_FAIL;
    }
    clear_dir(dir);
    char absdir[PATH_MAX], abslib[PATH_MAX];
    if (!realpath(dir, absdir) || !realpath(lib, abslib)) {
        tool_error("record", "cannot resolve '%s' or '%s'", dir, lib);
        return TOOL_FAIL;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        tool_error("record", "fork: %s", strerror(errno));
        return TOOL_FAIL;
    }
    if (pid == 0) {
        setenv("CUDA_INJECTION64_PATH", abslib, 1);
        setenv("GRAPHRT_RECORD_DIR", absdir, 1);
        setenv("GRAPHRT_RECORD_TIMING", timing ? "1" : "0", 1);
        setenv("GRAPHRT_RECORD_SYNC_WALKS", sync_walks ? "1" : "0", 1);
        execvp(argv[i], argv + i);
        fprintf(stderr, "graphrt record: cannot run '%s': %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int prc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    fprintf(stderr, "graphrt record: %s exited with status %d; converting %s\n", argv[i], prc, dir);
    if (rec_convert_dir(dir, &opt) != 0)
        return TOOL_FAIL;
    return prc;
}
