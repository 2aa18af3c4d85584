/*
 * Sorts that reach every kernel and variant at small sizes, for a run under oclgrind
 * (--data-races --uninitialized): both digit widths, keys, pairs of every value size,
 * argsort, 64-bit keys, descending order, bit ranges, skipped passes, several work-groups
 * and tiles, the single-launch path; the segmented-sort engine's every class, through flat
 * sorts that partition first and through segment mixes; every GPU row of the tuning table on a device with a
 * GPU's limits (oclgrind's --local-mem-size and --max-wgsize); and sequences of calls on
 * one sorter, where what one call leaves (pooled temporaries, built programs, queues)
 * meets the next. Every result is checked against the oracle.
 *
 * oclgrind 21.10 keeps stale uninitialised-memory state for a buffer's address after the
 * buffer is released: a later buffer at that address, written by a kernel, reads as
 * uninitialised past the old buffer's size (tests/oclgrind-reuse.c shows it with plain
 * OpenCL, no clradix). So this program links the test build of the library and holds
 * every buffer release, its own included, until the case is over: no address is reused
 * within a run. It also starts its --log afresh for every new context, so each case runs
 * in a process of its own (tests/oclgrind-check.sh): `kernel_check --count` prints how
 * many cases there are, `kernel_check --options I` the oclgrind options case I needs,
 * `kernel_check I` runs it. No Check here, so nothing forks. Exits 0 when every sort was
 * right; the caller reads the log.
 */
#include "testing.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct step {
    clradix_key_type type;
    dist d;
    size_t n;                 /* segmented steps: anything but 0, which ends the list */
    sort_call call;
    clradix_options options;
    const size_t *segments;   /* not NULL: a segmented sort of these lengths (MIX of them) */
    size_t topk_rows, topk_k; /* topk_k > 0: a top-k instead, of n keys in topk_rows rows (0: 1), indices of
                                 call.value_size bytes */
    const struct record_step *records;  /* not NULL: a record sort of n records instead */
} step;

/* A record sort's shape (argsort with 4-byte indices). */
typedef struct record_step {
    records_call call;
    size_t record_size;
    unsigned num_fields;
    clradix_key_field fields[5];
    size_t zero_from, zero_len;  /* bytes made 0 in every record (small values of a field) */
    int pooled;                  /* the first field (64 bits) one of 12 random values */
} record_step;

enum { MAX_STEPS = 12 };

typedef struct check_case {
    const char *shape;    /* CLRADIX_TUNING-style description, for the report */
    clradix_tuning tuning;
    const char *oclgrind; /* oclgrind options: the device's limits */
    step steps[MAX_STEPS];  /* sorts on one sorter, in order; n == 0 ends the list */
    const char *environment;  /* CLRADIX_TUNING while the sorter is made, or NULL */
    unsigned long loop_budget;  /* the sorter plans for loops that stop after so many iterations (0: none) */
} check_case;

/* Segments for every class of the engine under the thresholds the cases set: empty,
   length 1, tiny, local, medium and (under the lower MEDIUM_N) large. */
static const size_t mix[] = { 0, 1, 17, 2, 64, 65, 300, 1025, 16, 0, 700, 5 };
enum { MIX = sizeof mix / sizeof mix[0] };
/* Large segments (past MEDIUM_N=512) of up to n / (2 x compute units) keys, and one longer. */
static const size_t long_mix[MIX] = { 600, 3, 0, 2500, 40, 700, 1, 17, 0, 5, 64, 650 };

/* 64-bit keys at GPU shapes sort bits 40 .. 64 (three passes): every kernel of their
   variants runs, without oclgrind simulating five more passes of the same code by hundreds
   of work-items.
   Shapes: the table's CPU row (one work-item per group, clamped to oclgrind's 32 KiB of
   local memory; oclgrind's own row would be another, as its device is a GPU and a CPU at
   once, with 32 KiB), 4-bit digits
   without and with FUSED, GPU-like ranks in two rounds, 5-bit digits with uneven rounds,
   and the table's GPU rows (rows 1 and 4) at GPU limits. */
#define OWN { 8, 1, 65536, 8, 1, 1, 2, 65536 }      /* CPUs */
#define OWN_ENGINE { 8, 1, 65536, 8, 1, 1, 2, 0 } /* with SMALL_N from the environment */
#define CPU "STRATEGY=2,MEDIUM_N=131072,LOCAL_N=131072"  /* the CPU row's other fields */
#define RADIX4 { .radix_bits = 4, .work_group_size = 8, .keys_per_item = 8, .groups_per_unit = 3, .hist_copies = 2, \
                 .fused = 1, .small_n = 1 }
#define RADIX4_FUSED { .radix_bits = 4, .work_group_size = 8, .keys_per_item = 8, .groups_per_unit = 3, \
                       .hist_copies = 8, .fused = 2, .small_n = 1 }
#define GPU_LIKE { .radix_bits = 8, .work_group_size = 64, .keys_per_item = 4, .rank_bits = 4, .groups_per_unit = 2, \
                   .hist_copies = 4, .fused = 1, .small_n = 512 }
#define RADIX5 { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16, .rank_bits = 3, .groups_per_unit = 3, \
                 .hist_copies = 2, .fused = 2, .small_n = 1 }
#define GPU_ROW { 8, 128, 32, 8, 8, 4, 1, 4096 }     /* NVIDIA, AMD and Intel GPUs */
#define SIMD_CPU_ROW { 8, 8, 128, 8, 1, 1, 1, 1024 } /* CPUs with little local memory (Mesa's llvmpipe) */
#define OTHER_GPU_ROW { 8, 64, 32, 8, 8, 2, 1, 2048 } /* other GPUs */
#define OWN_RADIX4 { 4, 1, 256, 4, 1, 1, 2, 0 }       /* one work-item, splits by value from a sample of 256 */
#define LIMITS_48K "--local-mem-size 49152 --max-wgsize 1024"
#define LIMITS_64K "--local-mem-size 65536 --max-wgsize 256"

/* The engine (partition first, segments) with small thresholds, so that small arrays
   reach every class of cl/segments.cl. */
#define ENGINE "STRATEGY=2,SMALL_N=64,MEDIUM_N=512"
#define ENGINE_GPU "STRATEGY=2,MEDIUM_N=1024"

#define KEYS(api) { API_##api, SORT_KEYS, 0 }
#define PAIRS(api, size) { API_##api, SORT_PAIRS, size }
#define ARGSORT(api, size) { API_##api, SORT_ARGSORT, size }

/* Records: moved through a sort (16 bytes, one word), by gathers of bytes (13) and of
   words (12, 24 and 32 bytes: the last as one vector), keys of two words (most significant first, then runs of
   equal words: 128-bit keys, a field across two words, a top word of a byte), argsort, and
   records that are their key (one 32-bit word). */
static const record_step record_16 = { RECORDS_DEVICE_SORT, 16, 1, { { CLRADIX_U32, 4, 0 } } };
/* past MEDIUM_N, the sort reads the field from the records (seg_sample, seg_histogram); of
   16 bits (its top bytes zeroed): level 0's top digit does not vary */
static const record_step record_16_small = { RECORDS_DEVICE_SORT, 16, 1, { { CLRADIX_I32, 12, 1 } }, 14, 2 };
static const record_step record_13 = { RECORDS_DEVICE_SORT, 13, 3,
                                       { { CLRADIX_I16, 3, 1 }, { CLRADIX_F32_NUMPY, 7, 0 }, { CLRADIX_U8, 0, 0 } } };
static const record_step record_12 = { RECORDS_DEVICE_SORT, 12, 2, { { CLRADIX_F16, 1, 0 }, { CLRADIX_U32, 8, 1 } } };
static const record_step record_24 = { RECORDS_DEVICE_SORT, 24, 2, { { CLRADIX_U64, 8, 0 }, { CLRADIX_U64, 0, 0 } } };
static const record_step record_32 = { RECORDS_DEVICE_ARGSORT, 32, 2, { { CLRADIX_I64, 5, 1 }, { CLRADIX_F64, 17, 0 } } };
static const record_step record_32_sort = { RECORDS_DEVICE_SORT, 32, 1, { { CLRADIX_U8, 31, 0 } } };
static const record_step record_tiled = { RECORDS_DEVICE_SORT, 12, 2, { { CLRADIX_I64, 4, 0 }, { CLRADIX_F32, 0, 1 } } };
static const record_step record_tiled_32 = { RECORDS_DEVICE_SORT, 4, 3,
                                             { { CLRADIX_U8, 0, 0 }, { CLRADIX_I8, 1, 1 }, { CLRADIX_F16, 2, 1 } } };
/* Records read as keys by the sort itself (RECORD_IMAGE): float fields, and integer ones. */
static const record_step record_as_key_floats = { RECORDS_DEVICE_ARGSORT, 8, 2,
                                                  { { CLRADIX_F32, 2, 1 }, { CLRADIX_I16, 0, 0 } } };
static const record_step record_as_key = { RECORDS_DEVICE_SORT, 4, 2, { { CLRADIX_I16, 2, 1 }, { CLRADIX_U8, 1, 0 } } };
/* Two words whose top one (a byte) repeats in long runs: sorted by the next word in segments. */
static const record_step record_runs = { RECORDS_DEVICE_SORT, 16, 2, { { CLRADIX_U8, 15, 0 }, { CLRADIX_U64, 0, 1 } } };
/* 128-bit keys whose high field is below 256 (its bytes above the lowest 0): the top word
   cut below its constant bits, the low field's part made again (records_lead and
   records_key_runs without runs). */
static const record_step record_small_high = { RECORDS_DEVICE_SORT, 16, 2, { { CLRADIX_U64, 8, 0 },
                                               { CLRADIX_U64, 0, 0 } }, 9, 7, 0 };
/* The same whose high field takes 12 random values: the top word of their ranks
   (records_dict, records_dict_key, records_dict_use). */
static const record_step record_ranked_high = { RECORDS_DEVICE_ARGSORT, 16, 2, { { CLRADIX_U64, 8, 1 },
                                                { CLRADIX_U64, 0, 0 } }, 0, 0, 1 };
/* A top word of 16 bits' worth (a field twice) over a few thousand records: most alone in
   their run, a few dozen pairs (the scans that step over eight records at once, and the
   kernels of the words below); the next word the same, so that it varies within no run. */
static const record_step record_few_runs = { RECORDS_DEVICE_SORT, 16, 5,
                                             { { CLRADIX_U16, 14, 0 }, { CLRADIX_U16, 14, 1 }, { CLRADIX_U16, 14, 0 },
                                               { CLRADIX_U16, 14, 1 }, { CLRADIX_U64, 0, 1 } } };

static const check_case cases[] = {
    /* Each shape's cases in one process (oclgrind's start and its compile of a program
       cost seconds each), one sort after another on one sorter. */
    { "own", OWN, "",
      { { CLRADIX_U32, DIST_RANDOM, 3000, KEYS(DEVICE), { 0 } },
        { CLRADIX_F32, DIST_RANDOM, 3000, PAIRS(DEVICE, 4), { 0, 0, 1 } },
        { CLRADIX_U32, DIST_EQUAL, 2000, PAIRS(DEVICE, 4), { 0 } },   /* every pass skipped */
        { CLRADIX_U32, DIST_RANDOM, 1000, KEYS(DEVICE), { 8, 8, 0 } } },  /* empty range */
      CPU },
    { "radix4", RADIX4, "",
      { { CLRADIX_U32, DIST_RANDOM, 2500, KEYS(DEVICE), { 0 } },
        { CLRADIX_I32, DIST_LOW_ENTROPY, 2500, PAIRS(DEVICE, 8), { 0 } },
        { CLRADIX_U64, DIST_RANDOM, 1500, ARGSORT(DEVICE, 8), { 0 } } } },
    { "radix4-fused", RADIX4_FUSED, "",
      { { CLRADIX_U32, DIST_RANDOM, 2500, PAIRS(DEVICE, 16), { 0 } },
        { CLRADIX_F64, DIST_TOP_DIGIT, 1500, KEYS(DEVICE), { 4, 60, 1 } } } },
    { "gpu-like", GPU_LIKE, "",
      { { CLRADIX_U32, DIST_RANDOM, 3000, KEYS(DEVICE), { 0 } },
        { CLRADIX_I64, DIST_SIXTEEN, 2000, PAIRS(DEVICE, 4), { 40, 64, 0 } },
        { CLRADIX_F32, DIST_RANDOM, 400, PAIRS(DEVICE, 16), { 0 } },  /* one launch */
        { CLRADIX_U32, DIST_RANDOM, 300, ARGSORT(DEVICE, 8), { 0, 0, 1 } } } },
    { "radix5", RADIX5, "",
      { { CLRADIX_U32, DIST_RANDOM, 2000, PAIRS(DEVICE, 4), { 3, 29, 0 } },
        { CLRADIX_U64, DIST_BOTTOM_DIGIT, 1200, ARGSORT(DEVICE, 4), { 0 } } } },

    /* The GPU rows at GPU limits: several tiles and groups, and the one-launch path. */
    { "gpu-row-48k", GPU_ROW, LIMITS_48K,
      { { CLRADIX_U32, DIST_RANDOM, 5000, KEYS(DEVICE), { 0 } },
        { CLRADIX_F64, DIST_RANDOM, 2500, PAIRS(HOST, 16), { 40, 64, 1 } } } },
    { "gpu-row-64k", GPU_ROW, LIMITS_64K,
      { { CLRADIX_I32, DIST_LOW_ENTROPY, 4500, PAIRS(DEVICE, 8), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 1500, ARGSORT(DEVICE, 8), { 0 } } } },
    { "other-gpu-row-48k", OTHER_GPU_ROW, LIMITS_48K,
      { { CLRADIX_U64, DIST_RANDOM, 2500, ARGSORT(HOST, 4), { 40, 64, 0 } },
        { CLRADIX_F32, DIST_RANDOM, 700, PAIRS(DEVICE, 4), { 0 } } } },
    { "other-gpu-row-64k", OTHER_GPU_ROW, LIMITS_64K,
      { { CLRADIX_U32, DIST_RANDOM, 3500, PAIRS(DEVICE, 16), { 5, 27, 0 } },
        { CLRADIX_I64, DIST_SIXTEEN, 1200, KEYS(DEVICE), { 40, 64, 0 } } } },

    /* Sequences on one sorter: the uninitialised reads once reported after pairs of one key
       (the default device and sorter), then mixed widths, value sizes, growing and
       shrinking sizes, argsort, keys after pairs and pairs after keys (at GPU shapes over
       a few tiles each: what one call leaves is what matters here). */
    { "own", OWN, "",
      { { CLRADIX_U32, DIST_RANDOM, 1, PAIRS(HOST, 4), { 0 } }, { CLRADIX_U32, DIST_RANDOM, 4097, KEYS(HOST), { 0 } } },
      CPU },
    { "own", OWN, "",
      { { CLRADIX_U32, DIST_RANDOM, 4097, KEYS(HOST), { 0 } },
        { CLRADIX_U64, DIST_RANDOM, 3000, PAIRS(DEVICE, 8), { 0 } },
        { CLRADIX_F32, DIST_RANDOM, 5000, ARGSORT(HOST, 4), { 0 } },
        { CLRADIX_I32, DIST_LOW_ENTROPY, 700, PAIRS(DEVICE, 16), { 0 } },
        { CLRADIX_F64, DIST_RANDOM, 2500, KEYS(HOST), { 0, 0, 1 } },
        { CLRADIX_U64, DIST_RANDOM, 4097, ARGSORT(DEVICE, 8), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 1, PAIRS(HOST, 4), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 6000, KEYS(DEVICE), { 0 } },
        { CLRADIX_I64, DIST_SEQUENTIAL, 3000, PAIRS(DEVICE, 16), { 0 } } },  /* written a line at a time */
      CPU },
    { "gpu-like", GPU_LIKE, "",
      { { CLRADIX_U32, DIST_RANDOM, 1500, PAIRS(HOST, 4), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 300, KEYS(DEVICE), { 0 } },
        { CLRADIX_I64, DIST_RANDOM, 1300, ARGSORT(HOST, 8), { 40, 64, 0 } },
        { CLRADIX_F32, DIST_RANDOM, 2000, PAIRS(DEVICE, 8), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 1200, KEYS(HOST), { 0 } } } },
    { "gpu-row-48k", GPU_ROW, LIMITS_48K,
      { { CLRADIX_U32, DIST_RANDOM, 2, PAIRS(HOST, 4), { 0 } },
        { CLRADIX_U32, DIST_RANDOM, 2500, KEYS(HOST), { 0 } },
        { CLRADIX_U64, DIST_RANDOM, 1500, PAIRS(DEVICE, 4), { 40, 64, 0 } },
        { CLRADIX_U32, DIST_RANDOM, 900, ARGSORT(HOST, 8), { 0 } } } },

    /* The segmented-sort engine: flat sorts that partition first (levels, re-queued jobs
       whose top digits do not vary, jobs done after a partition and copied back) and
       segment mixes, on the device's own shape, a GPU-like one, 5-bit digits without a
       local class, and the GPU rows at GPU limits. */
    { "own engine", OWN_ENGINE, "",
      { { CLRADIX_U32, DIST_RANDOM, 2000, KEYS(DEVICE), { 0 } },
        { CLRADIX_F64, DIST_SIXTEEN, 1500, PAIRS(DEVICE, 16), { 0, 0, 1 } },
        { CLRADIX_U64, DIST_BOTTOM_DIGIT, 1500, ARGSORT(DEVICE, 8), { 0 } },
        { CLRADIX_U32, DIST_TOP_DIGIT, 2500, PAIRS(HOST, 4), { 0 } },
        { CLRADIX_I64, DIST_RANDOM, 1, PAIRS(DEVICE, 8), { 0 }, mix },
        { CLRADIX_F32, DIST_RANDOM, 1, ARGSORT(DEVICE, 4), { 3, 30, 0 }, mix },
        { CLRADIX_U32, DIST_SEQUENTIAL, 1, PAIRS(DEVICE, 4), { 0 }, mix } },  /* medium jobs a line at a time */
      ENGINE },
    /* Large segments of random keys that become medium jobs (LONG_MEDIUM_N: those of up to
       n / (2 x compute units) keys) next to one that is partitioned. */
    { "own engine long segments", OWN_ENGINE, "",
      { { CLRADIX_U32, DIST_RANDOM, 1, PAIRS(DEVICE, 16), { 0 }, long_mix },
        { CLRADIX_F32, DIST_RANDOM, 1, ARGSORT(DEVICE, 4), { 0, 0, 1 }, long_mix } },
      ENGINE ",LONG_MEDIUM_N=4096" },
    /* Skewed keys on a shape of one work-item: the engine splits them by value (seg_sample,
       its tables, and buckets that fall back to digits: the 4-bit digits keep the sample
       small, 256 keys). */
    { "own radix4 engine", OWN_RADIX4, "",
      { { CLRADIX_U32, DIST_LOW_ENTROPY, 3000, KEYS(DEVICE), { 0 } },
        { CLRADIX_F32_NUMPY, DIST_UNIT_NAN, 2000, PAIRS(DEVICE, 4), { 0, 0, 1 } },
        { CLRADIX_U64, DIST_ENDS, 2000, ARGSORT(DEVICE, 8), { 0 } },
        { CLRADIX_I32, DIST_NORMAL, 1, KEYS(DEVICE), { 2, 30, 0 }, mix },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_16_small } },
      ENGINE },
    { "gpu-like engine", GPU_LIKE, "",
      { { CLRADIX_U32, DIST_RANDOM, 2500, PAIRS(DEVICE, 4), { 0 } },
        { CLRADIX_U32, DIST_LOW_ENTROPY, 1, KEYS(DEVICE), { 0 }, mix },
        { 0, 0, 2500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_16 } },
      ENGINE_GPU },
    /* (64-bit keys at GPU shapes with few keys: oclgrind takes minutes and gigabytes for a
       local sort of 56 bits in 4-bit rounds by hundreds of work-items.) */
    { "gpu-row-48k engine", GPU_ROW, LIMITS_48K,
      { { CLRADIX_U32, DIST_RANDOM, 2200, KEYS(DEVICE), { 0 } },
        { CLRADIX_F32, DIST_RANDOM, 1, PAIRS(DEVICE, 16), { 0 }, mix },
        { CLRADIX_U64, DIST_RANDOM, 1200, ARGSORT(DEVICE, 8), { 40, 64, 1 } } },
      ENGINE_GPU },
    { "radix5 engine", RADIX5, "",
      { { CLRADIX_U32, DIST_RANDOM, 2000, KEYS(DEVICE), { 0 } },
        { CLRADIX_I32, DIST_RANDOM, 1, PAIRS(DEVICE, 4), { 0 }, mix } },
      "STRATEGY=2,MEDIUM_N=300" },
    { "other-gpu-row-64k engine", OTHER_GPU_ROW, LIMITS_64K,
      { { CLRADIX_I64, DIST_RANDOM, 1200, PAIRS(DEVICE, 8), { 40, 64, 0 } },
        { CLRADIX_U32, DIST_SIXTEEN, 1, ARGSORT(DEVICE, 4), { 0 }, mix } },
      ENGINE_GPU },

    /* 8- and 16-bit keys (bytes and half-words in local memory, next to each other's
       work-items): LSD passes (flat sorts of one or two passes take them everywhere), the
       one-launch path, and segments through the engine, at GPU shapes and the own one. */
    { "gpu-like narrow", GPU_LIKE, "",
      { { CLRADIX_U8, DIST_RANDOM, 3000, KEYS(DEVICE), { 0 } },
        { CLRADIX_I16, DIST_SIXTEEN, 2000, PAIRS(DEVICE, 8), { 0, 0, 1 } },
        { CLRADIX_F16, DIST_RANDOM, 300, PAIRS(DEVICE, 16), { 0 } },
        { CLRADIX_BF16, DIST_RANDOM, 1500, ARGSORT(HOST, 4), { 3, 13, 1 } } } },
    { "gpu-row-48k narrow", GPU_ROW, LIMITS_48K,
      { { CLRADIX_U16, DIST_RANDOM, 5000, PAIRS(DEVICE, 4), { 0 } },
        { CLRADIX_I8, DIST_RANDOM, 2500, ARGSORT(DEVICE, 8), { 0 } } } },
    { "own narrow", OWN_ENGINE, "",
      { { CLRADIX_U8, DIST_RANDOM, 1500, PAIRS(DEVICE, 4), { 0 } },
        { CLRADIX_I16, DIST_RANDOM, 1, KEYS(DEVICE), { 0 }, mix } },
      ENGINE },
    { "gpu-like engine narrow", GPU_LIKE, "",
      { { CLRADIX_F16, DIST_RANDOM, 1, PAIRS(DEVICE, 4), { 0 }, mix },
        { CLRADIX_U8, DIST_LOW_ENTROPY, 1, ARGSORT(DEVICE, 4), { 0 }, mix } },
      ENGINE_GPU },

    /* Floats in numpy's order (programs of their own; random bits hold NaNs of every
       kind; descending with NaNs last): LSD passes at GPU shapes, and segments through the
       engine. */
    { "gpu-like numpy order", GPU_LIKE, "",
      { { CLRADIX_F32_NAN_LAST, DIST_RANDOM, 2000, PAIRS(DEVICE, 4), { 0, 0, 1 } },
        { CLRADIX_BF16_NUMPY, DIST_RANDOM, 1, ARGSORT(DEVICE, 4), { 0 }, mix } },
      ENGINE_GPU },

    /* The row of CPUs with little local memory (tiles of 1024 keys ranked by 8 work-items),
       as it runs on Mesa's llvmpipe: planned for its loop budget (each work-group a few
       tiles or jobs, copies in pieces), then with a budget far smaller still. */
    { "simd-cpu-row budget", SIMD_CPU_ROW, "",
      { { CLRADIX_U32, DIST_RANDOM, 9000, PAIRS(DEVICE, 4), { 0 } },
        { CLRADIX_U32, DIST_SIXTEEN, 1, ARGSORT(DEVICE, 4), { 0 }, mix },
        { CLRADIX_F32, DIST_RANDOM, 6000, ARGSORT(DEVICE, 4), { 0 }, NULL, 0, 200 },
        { CLRADIX_U16, DIST_RANDOM, 3000, ARGSORT(DEVICE, 4), { 0 }, NULL, 30, 9 } },
      "MEDIUM_N=2048", 65535 },
    { "simd-cpu-row small budget", SIMD_CPU_ROW, "",
      { { CLRADIX_U64, DIST_LOW_ENTROPY, 5000, KEYS(DEVICE), { 40, 64, 0 } },
        { CLRADIX_U32, DIST_TWO, 1, PAIRS(DEVICE, 8), { 0 }, mix } },
      "STRATEGY=2,SMALL_N=64,MEDIUM_N=512", 5000 },

    /* Top-k: the radix select's kernels (several groups, ties at the threshold, a bit
       range, descending), rows (one work-group per row, then the engine), and the prefix
       of a full sort for a large k (TOPK_SORT) and for rows past MEDIUM_N, on the own shape
       and a GPU-like one. */
    { "own top-k", OWN, "",
      { { CLRADIX_U32, DIST_SIXTEEN, 3000, ARGSORT(DEVICE, 4), { 0 }, NULL, 0, 700 },
        { CLRADIX_F64, DIST_RANDOM, 2000, ARGSORT(DEVICE, 8), { 5, 60, 1 }, NULL, 0, 33 },
        { CLRADIX_I16, DIST_RANDOM, 1200, ARGSORT(HOST, 4), { 0 }, NULL, 40, 7 },
        { CLRADIX_F16_NUMPY, DIST_RANDOM, 1000, ARGSORT(DEVICE, 4), { 0, 0, 1 }, NULL, 0, 50 } },
      CPU },
    { "gpu-like top-k", GPU_LIKE, "",
      { { CLRADIX_F32_NUMPY, DIST_RANDOM, 2500, ARGSORT(DEVICE, 8), { 0, 0, 1 }, NULL, 0, 100 },
        { CLRADIX_U8, DIST_RANDOM, 1500, ARGSORT(DEVICE, 4), { 0 }, NULL, 50, 3 },
        { CLRADIX_U32, DIST_SIXTEEN, 1200, ARGSORT(DEVICE, 4), { 0 }, NULL, 0, 400 },
        { CLRADIX_U16, DIST_RANDOM, 1000, ARGSORT(DEVICE, 4), { 0 }, NULL, 10, 7 } },
      "TOPK_SORT=4,MEDIUM_N=64" },

    /* Records (cl/records.cl): each word made on the device, sorted with the positions,
       the records gathered; on the own shape and a GPU-like one. */
    { "own records", OWN, "",
      { { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_16 },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_13 },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_24 },
        { 0, 0, 1500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_32 },
        { 0, 0, 1500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_32_sort },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_tiled },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_tiled_32 },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_as_key_floats },
        { 0, 0, 5000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_runs },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_few_runs },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_small_high },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_ranked_high } },
      CPU },
    { "gpu-like records", GPU_LIKE, "",
      { { 0, 0, 2500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_12 },
        { 0, 0, 1200, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_24 },
        { 0, 0, 1500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_tiled },
        { 0, 0, 2500, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_as_key },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_runs },
        { 0, 0, 3000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_few_runs },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_small_high },
        { 0, 0, 2000, KEYS(DEVICE), { 0 }, NULL, 0, 0, &record_ranked_high } } },
};
enum { CASES = sizeof cases / sizeof cases[0] };

static int record_step_check(test_device *t, const record_step *r, size_t n, uint64_t seed, char *msg,
                             size_t msg_size)
{
    if (!r->zero_len && !r->pooled)
        return records_case(t, r->call, r->record_size, n, r->fields, r->num_fields, 4, seed, msg, msg_size);
    unsigned char *records = make_records(r->record_size, n, seed);
    uint64_t state = seed, pool[12];
    for (size_t k = 0; k < 12; ++k)
        pool[k] = rng_next(&state);
    for (size_t k = 0; k < n; ++k) {
        unsigned char *record = records + k * r->record_size;
        memset(record + r->zero_from, 0, r->zero_len);
        if (r->pooled)
            memcpy(record + r->fields[0].offset, &pool[rng_next(&state) % 12], 8);
    }
    const int wrong = records_check(t, r->call, records, r->record_size, n, r->fields, r->num_fields, 4, msg, msg_size);
    free(records);
    return wrong;
}

static int run_case(size_t i, cl_context context, cl_device_id device)
{
    const check_case *c = &cases[i];
    cl_int err = CL_SUCCESS;
    test_device t = { context, device, clCreateCommandQueue(context, device, 0, &err), NULL, NULL };
    if (c->environment)
        setenv("CLRADIX_TUNING", c->environment, 1);
    const clradix_testing_traits traits = { .loop_budget = c->loop_budget };
    clradix_testing_set_traits(&traits);
    clradix_status status = clradix_sorter_create_tuned(context, device, &c->tuning, &t.sorter);
    if (status != CLRADIX_SUCCESS || err != CL_SUCCESS) {
        fprintf(stderr, "kernel_check: case %zu: sorter: %s\n%s\n", i, clradix_status_string(status),
                clradix_build_log(NULL));
        return 1;
    }
    int failed = 0;
    for (int s = 0; s < MAX_STEPS && c->steps[s].n; ++s) {
        const step *p = &c->steps[s];
        char msg[256], call[64];
        const size_t rows = p->topk_rows ? p->topk_rows : 1;
        const int wrong = p->records
            ? record_step_check(&t, p->records, p->n, 100 * i + s, msg, sizeof msg)
            : p->topk_k
            ? topk_case(&t, p->type, p->d, rows, p->n / rows, p->topk_k, p->call.api == API_HOST, p->call.value_size, 0,
                        &p->options, 100 * i + s, msg, sizeof msg)
            : p->segments
            ? segments_case(&t, &p->call, p->type, p->d, p->segments, MIX, 3, 2, &p->options, 100 * i + s, NULL, msg,
                            sizeof msg)
            : sort_case(&t, &p->call, p->type, p->d, p->n, &p->options, 100 * i + s, msg, sizeof msg);
        fprintf(stderr, "kernel_check: case %zu.%d: %s %s type %d %s %s%zu %s: %s\n", i, s, c->shape, c->oclgrind,
                p->type, dist_name(p->d), p->segments ? "segments, " : "n=", p->segments ? (size_t)MIX : p->n,
                sort_call_name(&p->call, call, sizeof call), wrong ? msg : "ok");
        failed |= wrong;
    }
    clradix_sorter_release(t.sorter);
    clReleaseCommandQueue(t.queue);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--count")) {
        printf("%d\n", CASES);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--options")) {
        const int i = atoi(argv[2]);
        printf("%s\n", i >= 0 && i < CASES ? cases[i].oclgrind : "");
        return 0;
    }
    const int i = argc == 2 ? atoi(argv[1]) : -1;
    if (i < 0 || i >= CASES) {
        fprintf(stderr, "usage: kernel_check --count | --options I | I (a case, 0 .. %d)\n", CASES - 1);
        return 2;
    }
    cl_device_id device;
    char name[256] = "";
    cl_int err = CL_SUCCESS;
    if (clradix_device_find(NULL, &device) != CLRADIX_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS
        || !strstr(name, "Oclgrind")) {
        fprintf(stderr, "kernel_check: runs only under oclgrind (the device is %s)\n", name);
        return 1;
    }
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return 1;
    clradix_testing_hold_releases(1);
    release_buffer = clradix_testing_release;  /* held as the library's are */
    const int failed = run_case((size_t)i, context, device);
    clradix_testing_hold_releases(0);
    clReleaseContext(context);
    return failed;
}
