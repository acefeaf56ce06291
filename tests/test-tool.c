/*
 * test-tool.c - the graphrt command-line tool as a user runs it: the
 * binary built with this suite (GR_TOOL_PATH) on files saved here; exit
 * codes, the counts 'info' reports, DOT output, 'diff' verdicts, and
 * --json output that parses as JSON.
 */
#include "testlib.h"

#ifdef GR_TOOL_PATH

#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs the tool with 'args' and the shell redirections 'redirect'; what
 * reaches the pipe into out (cap bytes), its exit status returned. */
static int run_tool_redirected(const char *args, const char *redirect, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s %s", GR_TOOL_PATH, args, redirect);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Runs the tool with 'args'; its standard output into out (cap bytes),
 * its exit status returned. */
static int run_tool(const char *args, char *out, size_t cap)
{
    return run_tool_redirected(args, "2>/dev/null", out, cap);
}

/* The same, its standard error into out. */
static int run_tool_stderr(const char *args, char *out, size_t cap)
{
    return run_tool_redirected(args, "2>&1 >/dev/null", out, cap);
}

/* ------------------------------------------------ a small JSON checker */

static const char *json_value(const char *s);

static const char *after_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

static const char *json_string(const char *s)
{
    if (*s != '"')
        return NULL;
    for (s++; *s && *s != '"'; s++)
        if (*s == '\\' && !*++s)
            return NULL;
    return *s == '"' ? s + 1 : NULL;
}

static const char *json_value(const char *s)
{
    s = after_ws(s);
    if (*s == '{' || *s == '[') {
        char close = *s == '{' ? '}' : ']';
        s = after_ws(s + 1);
        if (*s == close)
            return s + 1;
        for (;;) {
            if (close == '}') {
                s = json_string(after_ws(s));
                if (!s || *(s = after_ws(s)) != ':')
                    return NULL;
                s++;
            }
            if (!(s = json_value(s)))
                return NULL;
            s = after_ws(s);
            if (*s == close)
                return s + 1;
            if (*s != ',')
                return NULL;
            s++;
        }
    }
    if (*s == '"')
        return json_string(s);
    if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
        return s + 4;
    if (strncmp(s, "false", 5) == 0)
        return s + 5;
    const char *b = s;
    if (*s == '-')
        s++;
    while ((*s >= '0' && *s <= '9') || *s == '.')
        s++;
    return s > b ? s : NULL;
}

/* out is exactly one JSON object (and a newline). */
static void check_json(const char *out)
{
    const char *end = json_value(out);
    if (!end || *after_ws(end) != '\0')
        GR_TEST_FAIL_("not one JSON value: %s", out);
}

/* Runs the tool's command cmd on file a (and b where not NULL) into out:
 * it must exit with 'status', print valid JSON where cmd asks for it
 * (--json), and print 'has' where that is not NULL. */
static void tool_expect(char *out, size_t cap, const char *cmd, const char *a, const char *b, int status,
                        const char *has)
{
    char args[512];
    if (b)
        snprintf(args, sizeof args, "%s '%s' '%s'", cmd, a, b);
    else
        snprintf(args, sizeof args, "%s '%s'", cmd, a);
    CHECK_EQ(run_tool(args, out, cap), status);
    if (strstr(cmd, "--json"))
        check_json(out);
    if (has && !strstr(out, has))
        GR_TEST_FAIL_("'%s' did not print '%s'", args, has);
}

/* --------------------------------------------------------- the files */

enum {
    PATH_CAP = 128
};

/* a -> {b, c} -> d with kernels, saved in temporary files named after tag
 * (their paths into same, params and topo); then b with another grid
 * (same topology) and with c's edge to d gone (another topology). */
static void save_diamonds(const char *tag, char same[PATH_CAP], char params[PATH_CAP], char topo[PATH_CAP])
{
    char t[64];
    snprintf(t, sizeof t, "%s-same", tag);
    tl_tmp_path(same, PATH_CAP, "tool", t, ".graph");
    snprintf(t, sizeof t, "%s-params", tag);
    tl_tmp_path(params, PATH_CAP, "tool", t, ".graph");
    snprintf(t, sizeof t, "%s-topo", tag);
    tl_tmp_path(topo, PATH_CAP, "tool", t, ".graph");
    grKernel_t k;
    static const size_t sz[] = {4};
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "step", 1, sz));
    for (int v = 0; v < 3; v++) {
        grGraph_t g;
        grGraphNode_t n[4];
        int x = 1;
        void *args[] = {&x};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), 0, args, NULL};
        CHECK_OK(grGraphCreate(&g, 0));
        CHECK_OK(grGraphAddKernelNode(&n[0], g, NULL, 0, &kp));
        kp.gridDim.x = v == 1 ? 4 : 2;
        CHECK_OK(grGraphAddKernelNode(&n[1], g, &n[0], 1, &kp));
        kp.gridDim.x = 2;
        CHECK_OK(grGraphAddKernelNode(&n[2], g, &n[0], 1, &kp));
        CHECK_OK(grGraphAddKernelNode(&n[3], g, &n[1], v == 2 ? 1 : 2, &kp));
        CHECK_OK(grGraphSaveToFile(g, v == 0 ? same : v == 1 ? params : topo, 0));
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST_T(tool_info_counts_nodes_and_prints_json, 60)
{
    char a[128], b[128], c[128], out[8192];
    save_diamonds("info", a, b, c);
    tool_expect(out, sizeof out, "info", a, NULL, 0, "kernel      4");
    tool_expect(out, sizeof out, "info --json", a, NULL, 0, "\"nodes\": 4");
    CHECK(strstr(out, "\"edges\": 4") != NULL);
    CHECK(strstr(out, "\"roots\": 1") != NULL);
    CHECK(strstr(out, "\"depth\": 3") != NULL);
    CHECK(strstr(out, "\"width\": 2") != NULL);
    tool_expect(out, sizeof out, "dot", a, NULL, 0, NULL);
    CHECK(strncmp(out, "digraph", 7) == 0);
    tool_expect(out, sizeof out, "replay -n 5 --json", a, NULL, 0, "\"replays\": 5");
    tool_expect(out, sizeof out, "analyze --json", a, NULL, 0, "\"depth\": 3");
    CHECK(strstr(out, "\"critical_path\": [\"n0\", \"n1\", \"n3\"]") != NULL);
    tool_expect(out, sizeof out, "analyze", a, NULL, 0, "critical path");
    tool_expect(out, sizeof out, "info --baked --json", a, NULL, 0, "\"baked\": [{");
    CHECK(strstr(out, "\"kernel\": \"step\"") != NULL);
    /* Usage errors (2), failures (1) and help (0). */
    static const struct {
        const char *args;
        int status;
    } usage[] = {{"", 2},
                 {"frobnicate x", 2},
                 {"info", 2},
                 {"info --bogus x", 2},
                 {"replay -n 0 x", 2},
                 {"info /nonexistent/file.graph", 1},
                 {"info --help", 0},
                 {"diff --help", 0},
                 {"replay --help", 0},
                 {"dot --help", 0},
                 {"analyze --help", 0},
                 {"analyze", 2}};
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        if (run_tool(usage[i].args, out, sizeof out) != usage[i].status)
            GR_TEST_FAIL_("'graphrt %s' did not exit with %d", usage[i].args, usage[i].status);
        if (strcmp(usage[i].args, "info --help") == 0)
            CHECK(strstr(out, "usage: graphrt info") != NULL);
    }
    unlink(a);
    unlink(b);
    unlink(c);
}

/* A directory is a file that cannot be read, not a request for 2^63
 * bytes of memory (the loader once sized it from ftell). */
GR_TEST(tool_info_refuses_a_directory_as_unreadable)
{
    char dir[] = "/tmp/graphrt-tool-dir-XXXXXX", args[256], out[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(args, sizeof args, "info '%s'", dir);
    CHECK_EQ(run_tool_stderr(args, out, sizeof out), 1);
    CHECK(strstr(out, "cannot read") != NULL);
    CHECK(strstr(out, "out of memory") == NULL);
    CHECK_EQ(rmdir(dir), 0);
}

GR_TEST_T(tool_diff_pairs_nodes_and_gives_the_update_verdict, 60)
{
    char a[128], b[128], c[128], out[8192];
    save_diamonds("diff", a, b, c);
    tool_expect(out, sizeof out, "diff --json", a, a, 0, "\"differences\": []");
    /* A parameter change: an update applies it. */
    tool_expect(out, sizeof out, "diff --json", a, b, 0,
                "\"kind\": \"parameters\", \"a\": \"n1\", \"b\": \"n1\"");
    CHECK(strstr(out, "grid=2,1,1 -> grid=4,1,1") != NULL);
    CHECK(strstr(out, "\"ok\": true") != NULL);
    /* A topology change: the update would fail, and says where. */
    tool_expect(out, sizeof out, "diff --json", a, c, 1, "\"kind\": \"topology\"");
    CHECK(strstr(out, "grGraphExecUpdateErrorTopologyChanged") != NULL);
    tool_expect(out, sizeof out, "diff", a, c, 1, "update      would fail");
    tool_expect(out, sizeof out, "diff", a, NULL, 2, NULL);
    unlink(a);
    unlink(b);
    unlink(c);
}

/* The whole of a file, NUL-terminated (caller frees). */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    CHECK(buf != NULL);
    size_t got;
    while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
        n += got;
        if (n == cap - 1) {
            cap *= 2;
            buf = realloc(buf, cap);
            CHECK(buf != NULL);
        }
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Runs a shell command line; its exit status. */
static int run_shell(const char *line)
{
    int st = system(line);
    CHECK(st != -1 && WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Every command writes to the standard output it was given, never to a
 * file reopened by name: appended output ('>>') keeps what the file held,
 * and output after other output in one '>' follows it. */
GR_TEST_T(tool_output_appends_to_what_stdout_already_holds, 60)
{
    char a[128], b[128], c[128], out[128], line[1024];
    static const char *const cmds[] = {"dot",     "dot --verbose", "info", "info --json",
                                       "analyze", "replay -n 1",   "diff"};
    tl_tmp_path(out, sizeof out, "tool", "app-out", ".graph");
    save_diamonds("app", a, b, c);
    tl_spit(out, "earlier line\n", strlen("earlier line\n"));
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *before = read_all(out);
        bool diff = strcmp(cmds[i], "diff") == 0;
        snprintf(line, sizeof line, "'%s' %s '%s'%s%s%s >> '%s' 2>/dev/null", GR_TOOL_PATH, cmds[i], a,
                 diff ? " '" : "", diff ? a : "", diff ? "'" : "", out);
        CHECK_EQ(run_shell(line), 0);
        char *after = read_all(out);
        CHECK(strlen(after) > strlen(before));
        if (strncmp(after, before, strlen(before)) != 0)
            GR_TEST_FAIL_("'%s' did not append: the file held '%.40s', now '%.40s'", cmds[i], before, after);
        free(before);
        free(after);
    }
    char *all = read_all(out);
    CHECK(starts_with(all, "earlier line\ndigraph"));
    free(all);
    /* One '>' for a group: the DOT follows the line before it. */
    snprintf(line, sizeof line, "{ echo first; '%s' dot '%s'; echo last; } > '%s' 2>/dev/null", GR_TOOL_PATH,
             a, out);
    CHECK_EQ(run_shell(line), 0);
    all = read_all(out);
    CHECK(starts_with(all, "first\ndigraph"));
    size_t n = strlen(all), tail = strlen("}\nlast\n");
    CHECK(n > tail && strcmp(all + n - tail, "}\nlast\n") == 0);
    free(all);
    unlink(a);
    unlink(b);
    unlink(c);
    unlink(out);
}

/* --json answers a file that cannot be read or is refused with an object
 * naming the error, and exit status 1. */
GR_TEST_T(tool_json_reports_a_refused_file_as_an_object, 60)
{
    char bad[128], good[128], b[128], c[128], args[512], out[8192];
    tl_tmp_path(bad, sizeof bad, "tool", "refused", ".graph");
    save_diamonds("json", good, b, c);
    tl_spit(bad, "this is not a graph file\n", strlen("this is not a graph file\n"));
    static const char *const cmds[] = {"info --json", "info --baked --json", "analyze --json",
                                       "replay -n 1 --json"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        for (int which = 0; which < 2; which++) {
            snprintf(args, sizeof args, "%s '%s'", cmds[i], which ? bad : "/nonexistent/file.graph");
            CHECK_EQ(run_tool(args, out, sizeof out), 1);
            check_json(out);
            CHECK(strstr(out, "\"error\": \"gr") != NULL);
            CHECK(strstr(out, "\"detail\": \"") != NULL);
            CHECK(strstr(out, which ? "\"file\": \"/" : "\"file\": \"/nonexistent/file.graph\"") != NULL);
        }
    }
    /* diff: the refused one of its two files. */
    tool_expect(out, sizeof out, "diff --json", good, bad, 1, "\"error\": \"gr");
    CHECK(strstr(out, bad) != NULL);
    /* Without --json, nothing on standard output. */
    tool_expect(out, sizeof out, "info", bad, NULL, 1, NULL);
    CHECK_EQ(out[0], '\0');
    unlink(bad);
    unlink(good);
    unlink(b);
    unlink(c);
}

/* The number of lines of s that start with prefix. */
static int count_lines(const char *s, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += strncmp(l, prefix, len) == 0;
    return n;
}

GR_TEST_T(tool_help_lists_each_command_once, 30)
{
    static const char *const cmds[] = {"info", "dot", "replay", "diff", "analyze"};
    char out[8192], line[32];
    CHECK_EQ(run_tool("--help", out, sizeof out), 0);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(line, sizeof line, "  %s ", cmds[i]);
        CHECK_EQ(count_lines(out, line), 1);
    }
}

/* A graph whose memset writes its own graph allocation: the replay's
 * per-node profile runs that memset alone, on memory the whole graph's
 * executable maps (it wrote reserved pages and crashed before). */
GR_TEST_T(tool_replay_profiles_a_node_on_graph_memory, 60)
{
    char path[256], out[8192];
    grGraph_t g;
    grGraphNode_t a, m, f;
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 1 << 20);
    tl_tmp_path(path, sizeof path, "tool", "graphmem", ".graph");
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    grMemsetParams mp = {ap.dptr, 0, 1, 1, 4096, 1};
    CHECK_OK(grGraphAddMemsetNode(&m, g, &a, 1, &mp));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &m, 1, ap.dptr));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    CHECK_OK(grGraphDestroy(g));
    tool_expect(out, sizeof out, "replay -n 5", path, NULL, 0, "memset");
    CHECK_EQ(unlink(path), 0);
}

#endif /* GR_TOOL_PATH */
