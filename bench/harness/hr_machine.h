/*
 * hr_machine.h - the machine line at the top of every table: cores online
 * and in the affinity mask, CPU model, kernel, compiler and graphrt's
 * commit, read once per program.
 *
 * Part of the harness under bench/harness/: graphrt's benches print it
 * through bench_util.h, the peers of bench/peers as a '# machine:' line
 * above their CSV rows, so that every figure carries where it was measured.
 * Valid C and C++. GR_BENCH_COMMIT is the commit the program was built from
 * (bench/CMakeLists.txt and bench/run.sh pass `git describe --dirty`).
 */
#ifndef HR_MACHINE_H
#define HR_MACHINE_H

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#ifndef GR_BENCH_COMMIT
#define GR_BENCH_COMMIT "unknown"
#endif

typedef struct hr_machine {
    char cpu[128];
    long cores;    /* online */
    long affinity; /* in this process's affinity mask: graphrt's default worker count */
    char kernel[200];
    char compiler[96];
} hr_machine;

static inline void hr_machine_read(hr_machine *m)
{
    char line[512];
    struct utsname u;
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    size_t len;
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    len = strcspn(p, "\n");
                    snprintf(m->cpu, sizeof m->cpu, "%.*s", (int)len, p);
                }
                break;
            }
        }
        fclose(f);
    }
    m->cores = sysconf(_SC_NPROCESSORS_ONLN);
    m->affinity = m->cores;
#ifdef CPU_COUNT
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            m->affinity = CPU_COUNT(&set);
    }
#endif
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(m->kernel, sizeof m->kernel, "unknown");
#if defined(__clang__)
    snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#else
    snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
}

/* "machine: N cores online (M in the affinity mask), CPU; kernel; compiler;
 * graphrt COMMIT" after prefix (e.g. "# " above CSV rows). */
static inline void hr_machine_print(FILE *out, const char *prefix, const hr_machine *m)
{
    fprintf(out, "%smachine: %ld cores online (%ld in the affinity mask), %s; %s; %s; graphrt %s\n", prefix,
            m->cores, m->affinity, m->cpu, m->kernel, m->compiler, GR_BENCH_COMMIT);
}

#endif /* HR_MACHINE_H */
