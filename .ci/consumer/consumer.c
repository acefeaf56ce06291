/* consumer.c - a program built against an installed graphrt, by
 * .ci/install-check.sh: it must compile with only the installed header and
 * link with only the installed library. */
#include <graphrt.h>

#include <stdio.h>

int main(void)
{
    int count = 0;
    grError_t err = grGetDeviceCount(&count);
    if (err != grSuccess || count != 1) {
        fprintf(stderr, "grGetDeviceCount: %s (%s), count %d, expected grSuccess and 1\n",
                grGetErrorName(err), grGetLastErrorDetail(), count);
        return 1;
    }
    printf("consumer: graphrt %d.%d.%d, %d device\n", GRAPHRT_VERSION_MAJOR, GRAPHRT_VERSION_MINOR,
           GRAPHRT_VERSION_PATCH, count);
    return 0;
}
