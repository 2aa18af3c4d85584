/*
 * clradix-bench: sorts n random u32 keys on an OpenCL device with clradix, verifies the
 * result, and reports median and minimum times next to C qsort on the same data.
 */
#include <clradix.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof *v, compare_double);
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}

static double minimum(const double *v, int count)
{
    double m = v[0];
    for (int i = 1; i < count; ++i)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* Accepts 16777216, 2^24, 16M, 64K, 1G. */
static int parse_size(const char *text, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text)
        return 0;
    if (*end == '^') {
        const unsigned long long base = v;
        unsigned long long e = strtoull(end + 1, &end, 10);
        if (e > 40)
            return 0;
        for (v = 1; e--;)
            v *= base;
    } else if (*end == 'K' || *end == 'k') {
        v <<= 10, ++end;
    } else if (*end == 'M' || *end == 'm') {
        v <<= 20, ++end;
    } else if (*end == 'G' || *end == 'g') {
        v <<= 30, ++end;
    }
    if (*end)
        return 0;
    *out = (size_t)v;
    return 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: clradix-bench [--n N] [--runs R] [--device SPEC] [--no-qsort]\n"
               "  --n N          keys to sort (default 2^24; 2^20, 16M and plain numbers work)\n"
               "  --runs R       timed sorts, after one untimed first sort (default 9)\n"
               "  --device SPEC  device index or name substring (default: CLRADIX_DEVICE, else the\n"
               "                 first GPU, else the first device)\n"
               "  --no-qsort     leave out the qsort baseline\n");
}

int main(int argc, char **argv)
{
    size_t n = (size_t)1 << 24;
    int runs = 9, with_qsort = 1;
    const char *device_spec = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            if (!parse_size(argv[++i], &n) || n == 0 || n > CLRADIX_MAX_N) {
                fprintf(stderr, "clradix-bench: bad --n %s\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1) {
                fprintf(stderr, "clradix-bench: bad --runs\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device_spec = argv[++i];
        } else if (!strcmp(argv[i], "--no-qsort")) {
            with_qsort = 0;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    cl_device_id device;
    clradix_status status = clradix_device_find(device_spec, &device);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix-bench: no device %s: %s\n", device_spec ? device_spec : "(default)",
                clradix_status_string(status));
        return 1;
    }
    char device_name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(context, device, 0, &err) : NULL;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clradix-bench: cannot create a context and queue (OpenCL error %d)\n", err);
        return 1;
    }

    double t0 = now();
    clradix_sorter *sorter;
    status = clradix_sorter_create(context, device, &sorter);
    const double create_time = now() - t0;
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix-bench: sorter: %s\n%s\n", clradix_status_string(status), clradix_build_log(NULL));
        return 1;
    }

    uint32_t *keys = malloc(n * sizeof *keys), *result = malloc(n * sizeof *keys), *expected = NULL;
    double *times = malloc((size_t)runs * sizeof *times);
    if (!keys || !result || !times) {
        fprintf(stderr, "clradix-bench: out of host memory\n");
        return 1;
    }
    uint64_t state = 42;
    for (size_t i = 0; i < n; ++i) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        keys[i] = (uint32_t)((z ^ (z >> 31)) >> 32);
    }
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof *keys, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clradix-bench: cannot allocate %zu bytes on the device\n", n * sizeof *keys);
        return 1;
    }

    /* The first sort builds nothing more for u32 keys but touches fresh memory: timed apart. */
    double first_time = 0;
    for (int run = -1; run < runs; ++run) {
        clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, n * sizeof *keys, keys, 0, NULL, NULL);
        t0 = now();
        status = clradix_sort_keys(sorter, queue, CLRADIX_U32, buffer, n, NULL, 0, NULL, NULL);
        if (status == CLRADIX_SUCCESS && clFinish(queue) != CL_SUCCESS)
            status = CLRADIX_ERROR_OPENCL;
        const double t = now() - t0;
        if (status != CLRADIX_SUCCESS) {
            fprintf(stderr, "clradix-bench: sort failed: %s\n", clradix_status_string(status));
            return 1;
        }
        if (run < 0)
            first_time = t;
        else
            times[run] = t;
    }
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, n * sizeof *keys, result, 0, NULL, NULL);

    double qsort_median = 0, qsort_min = 0;
    const int qsort_runs = runs < 3 ? runs : 3;
    if (with_qsort) {
        expected = malloc(n * sizeof *keys);
        double *qtimes = malloc((size_t)qsort_runs * sizeof *qtimes);
        for (int run = 0; run < qsort_runs; ++run) {
            memcpy(expected, keys, n * sizeof *keys);
            t0 = now();
            qsort(expected, n, sizeof *expected, compare_u32);
            qtimes[run] = now() - t0;
        }
        qsort_min = minimum(qtimes, qsort_runs);
        qsort_median = median(qtimes, qsort_runs);
        free(qtimes);
    }

    /* Verify: ordered and a permutation of the input (equal to qsort's result, or by checksums). */
    int ok = 1;
    for (size_t i = 1; i < n && ok; ++i)
        ok = result[i - 1] <= result[i];
    if (ok && expected) {
        ok = !memcmp(result, expected, n * sizeof *keys);
    } else if (ok) {
        uint64_t sum_in = 0, sum_out = 0, sq_in = 0, sq_out = 0;
        for (size_t i = 0; i < n; ++i) {
            sum_in += keys[i], sum_out += result[i];
            sq_in += (uint64_t)keys[i] * keys[i], sq_out += (uint64_t)result[i] * result[i];
        }
        ok = sum_in == sum_out && sq_in == sq_out;
    }

    const double clradix_min = minimum(times, runs), clradix_median = median(times, runs);
    printf("device: %s\n", device_name);
    printf("keys: %zu random u32; sorter creation %.1f ms; first sort %.2f ms\n", n, create_time * 1e3,
           first_time * 1e3);
    printf("%-10s %6s %12s %12s %14s\n", "sort", "runs", "median ms", "min ms", "median Mkeys/s");
    printf("%-10s %6d %12.2f %12.2f %14.1f\n", "clradix", runs, clradix_median * 1e3, clradix_min * 1e3,
           (double)n / clradix_median * 1e-6);
    if (with_qsort) {
        printf("%-10s %6d %12.2f %12.2f %14.1f\n", "qsort", qsort_runs, qsort_median * 1e3, qsort_min * 1e3,
               (double)n / qsort_median * 1e-6);
        printf("clradix vs qsort: %.1fx faster (medians)\n", qsort_median / clradix_median);
    }
    if (!ok) {
        fprintf(stderr, "clradix-bench: WRONG RESULT: the sorted keys are not the input in order\n");
        return 1;
    }
    printf("verified: sorted and a permutation of the input\n");

    clReleaseMemObject(buffer);
    clradix_sorter_release(sorter);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(keys);
    free(result);
    free(expected);
    free(times);
    return 0;
}
