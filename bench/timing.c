/* Timing helpers of the benchmark. */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sort_times(double *times, int count)
{
    qsort(times, (size_t)count, sizeof *times, compare_double);
    return count % 2 ? times[count / 2] : (times[count / 2 - 1] + times[count / 2]) / 2;
}
