/*
 * One sort at a GPU row's shape, for scripts/gpu-work-count.sh to run under
 * `oclgrind --inst-counts` with a real GPU's limits: what that GPU would execute, counted
 * per kernel launch. The row is the tuning table's (every field, forced through
 * CLRADIX_TUNING, since oclgrind's device would get a row of its own, with what
 * CLRADIX_TUNING already holds on top); the keys are random,
 * in device buffers, and the result is checked against the oracle (exit 1 when wrong).
 * Nothing else runs a kernel in this process, so every launch oclgrind reports is the
 * sort's.
 *   work_count --rows               the GPU rows: index and devices, one per line
 *   work_count ROW CASE N           one sort of N keys: CASE is u32, u32-pairs (4-byte
 *                                   values), u64, segments (rows of 4096 u32 keys) or
 *                                   topk (the 1024 smallest u32 keys, 4-byte indices)
 */
#include "testing.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEGMENT_LENGTH = 4096, TOP_K = 1024, MAX_SEGMENTS = 4096 };

static int run(unsigned row, const char *what, size_t n)
{
    char tuning[1024];
    if (clradix_testing_row_text(row, tuning, 512) != CLRADIX_SUCCESS)
        return 2;
    const char *more = getenv("CLRADIX_TUNING");
    if (more && *more)
        snprintf(tuning + strlen(tuning), sizeof tuning - strlen(tuning), ",%s", more);
    setenv("CLRADIX_TUNING", tuning, 1);
    test_device t;
    if (test_device_open(&t, NULL) != CLRADIX_SUCCESS) {
        fprintf(stderr, "work_count: no sorter with %s\n%s\n", tuning, clradix_build_log(NULL));
        return 1;
    }
    char msg[256] = "";
    int wrong;
    if (!strcmp(what, "u32") || !strcmp(what, "u64")) {
        const sort_call keys = { API_DEVICE, SORT_KEYS, 0 };
        wrong = sort_case(&t, &keys, what[1] == '3' ? CLRADIX_U32 : CLRADIX_U64, DIST_RANDOM, n, NULL, 1, msg,
                          sizeof msg);
    } else if (!strcmp(what, "u32-pairs")) {
        const sort_call pairs = { API_DEVICE, SORT_PAIRS, 4 };
        wrong = sort_case(&t, &pairs, CLRADIX_U32, DIST_RANDOM, n, NULL, 1, msg, sizeof msg);
    } else if (!strcmp(what, "segments") && n % SEGMENT_LENGTH == 0 && n / SEGMENT_LENGTH <= MAX_SEGMENTS) {
        static size_t lengths[MAX_SEGMENTS];
        for (size_t s = 0; s < n / SEGMENT_LENGTH; ++s)
            lengths[s] = SEGMENT_LENGTH;
        const sort_call keys = { API_DEVICE, SORT_KEYS, 0 };
        wrong = segments_case(&t, &keys, CLRADIX_U32, DIST_RANDOM, lengths, n / SEGMENT_LENGTH, 0, 0, NULL, 1, NULL,
                              msg, sizeof msg);
    } else if (!strcmp(what, "topk") && n >= TOP_K) {
        wrong = topk_case(&t, CLRADIX_U32, DIST_RANDOM, 1, n, TOP_K, 0, 4, 0, NULL, 1, msg, sizeof msg);
    } else {
        fprintf(stderr, "work_count: no case %s of %zu keys\n", what, n);
        wrong = 2;
    }
    if (wrong == 1)
        fprintf(stderr, "work_count: %s, %zu keys, %s: %s\n", what, n, tuning, msg);
    test_device_close(&t);
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--rows")) {
        clradix_tuning row;
        const char *devices;
        for (unsigned r = 0; clradix_tuning_row(r, &row, &devices) == CLRADIX_SUCCESS; ++r)
            if (strstr(devices, "GPU"))
                printf("%u %s\n", r, devices);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: work_count --rows | ROW CASE N\n");
        return 2;
    }
    return run((unsigned)atoi(argv[1]), argv[2], (size_t)strtoull(argv[3], NULL, 0));
}
