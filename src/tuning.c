/*
 * Per-device kernel parameters: one table of rows, the first matching row wins, default
 * rows last. CLRADIX_TUNING and the caller's clradix_tuning override the row; the result
 * is clamped to the device's work-group limit here, and to local memory per variant
 * when a program is built (program.c).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FUSED_GROUPS_MAX = 64 };  /* FUSED keeps RADIX counters per group in local memory */
enum { TILE_MAX = 32768 };       /* keys of a tile of several work-items (below 2^16: rank_digits) */

/* A row's parameters: those of clradix_tuning, and those only CLRADIX_TUNING reaches
   (clradix_tuning keeps its 1.0 fields; see clradix.h). */
typedef struct row_params {
    clradix_tuning t;         /* every field set; fused and small_n as in clradix_tuning */
    unsigned strategy;        /* STRATEGY: flat sorts past SMALL_N by STRATEGY_LSD (1) or STRATEGY_PARTITION (2) */
    unsigned medium_n;        /* MEDIUM_N: most keys of a segment that one work-group sorts by passes of its own */
    unsigned local_n;         /* LOCAL_N: most keys of a segment sorted in local memory, a power of two (0: SMALL_N) */
    unsigned topk_sort;       /* TOPK_SORT: a flat top-k of k >= n / TOPK_SORT keys: a full sort's prefix (0: never) */
    unsigned long_medium_n;   /* LONG_MEDIUM_N: medium_n for keys of up to 32 bits where jobs are many (0: none) */
} row_params;

typedef struct tuning_row {
    const char *vendor;       /* substring of CL_DEVICE_VENDOR, NULL: any */
    cl_device_type type;      /* CL_DEVICE_TYPE_ALL: any */
    const char *name;         /* substring of CL_DEVICE_NAME, NULL: any */
    cl_ulong min_local;       /* CL_DEVICE_LOCAL_MEM_SIZE at least this (0: any) */
    row_params params;
    const char *devices;      /* the match, in words */
} tuning_row;

/* Fields: radix_bits, work_group_size, keys_per_item, rank_bits, groups_per_unit,
   hist_copies, fused (1 no, 2 yes), small_n (1: none); strategy, medium_n, local_n, topk_sort,
   long_medium_n. */
static const tuning_row tuning_table[] = {
    /* CPUs: one work-item per group and compute unit, each streaming a long block in tiles
       that fit the caches; POCL runs a work-group on one thread. Flat sorts partition
       first (at 2^24 keys 1.7-2.0x faster than LSD passes on POCL pthread, 1.2-2.5x on
       POCL basic, in one run each; docs/performance.md): segments of up to 2^17 keys (two copies of
       32-bit keys in 1 MiB) in local memory, which is cached memory there, larger ones
       partitioned again. A top-k always selects: a full argsort's prefix was slower at every
       k (2^24 u32 keys, k = n / 4: 2.4x the select's time; n / 2: 1.3x). Large jobs of
       random 32-bit keys are sorted by the passes of one work-group up to 2^21 keys where
       they go round the cores twice (segments of 2^18 at 2^24 keys: 1.6-1.8x faster than
       partitioning them; segments.c). Measured on POCL 3.1.
       Local memory is cached memory there, as much as the tiles want (POCL 512 KiB, Intel's
       runtime 256 KiB); CPU devices with less run work-items as SIMD lanes (below). */
    { NULL, CL_DEVICE_TYPE_CPU, NULL, 128 * 1024,
      { { 8, 1, 65536, 8, 1, 1, 2, 65536 }, STRATEGY_PARTITION, 131072, 131072, 0, 2097152 }, "CPUs" },
    /* GPUs: 8-bit digits, each tile's digit ranked in one round (rank_digits in cl/common.cl:
       packed per-work-item counters, a raking scan), 32 keys per work-item held in private
       memory: the counters cost a tile RADIX / 2 words per work-item, so they must be
       shared by many keys; 128 work-items, so that the counters of half the digits fit
       beside the tile (two rounds of counting, one move) in 48 KiB (NVIDIA's limit per
       group; AMD and Intel have 64, where all of them would not fit either). Counted under
       oclgrind at each row's limits against 256 x 16 and 64 x 32 (scripts/gpu-work-count.sh,
       docs/performance.md#on-a-gpu): the fewest instructions and local bytes per key. Other
       variants use smaller tiles where they must: docs/tuning.md lists them. Flat sorts by
       LSD passes, segments of up to 2^14 keys one work-group's; a top-k of a quarter of the
       keys or more by a full sort's prefix. Not yet measured on a GPU. */
    { "NVIDIA", CL_DEVICE_TYPE_GPU, NULL, 0, { { 8, 128, 32, 8, 8, 4, 1, 4096 }, STRATEGY_LSD, 16384, 0, 4, 0 },
      "NVIDIA GPUs" },
    { "Advanced Micro Devices", CL_DEVICE_TYPE_GPU, NULL, 0,
      { { 8, 128, 32, 8, 8, 4, 1, 4096 }, STRATEGY_LSD, 16384, 0, 4, 0 }, "AMD GPUs" },
    { "Intel", CL_DEVICE_TYPE_GPU, NULL, 0, { { 8, 128, 32, 8, 8, 4, 1, 4096 }, STRATEGY_LSD, 16384, 0, 4, 0 },
      "Intel GPUs" },
    /* Other GPUs (32 KiB: Mali, Adreno, Apple): 64 work-items, the counters of half the
       digits at once beside tiles of 2048 keys (counted as the rows above: 128 work-items
       left 64-bit keys tiles of half the size). */
    { NULL, CL_DEVICE_TYPE_GPU, NULL, 0, { { 8, 64, 32, 8, 8, 2, 1, 2048 }, STRATEGY_LSD, 8192, 0, 4, 0 }, "other GPUs" },
    /* CPUs with little local memory, which run a work-group's work-items as the lanes of
       SIMD instructions (Mesa's llvmpipe: 8 lanes of 32 bits, 32 KiB): one group of 8 at
       a time, large tiles ranked in one round, LSD passes (at 2^20 u32 keys 2x faster than
       partitioning first, and 8 work-items 1.2-1.4x faster than 16 or 32; rusticl 22.3,
       one run each). */
    { NULL, CL_DEVICE_TYPE_CPU, NULL, 0, { { 8, 8, 128, 8, 1, 1, 1, 1024 }, STRATEGY_LSD, 8192, 0, 4, 0 },
      "CPUs with little local memory" },
    /* Anything else: small, conservative shape. */
    { NULL, CL_DEVICE_TYPE_ALL, NULL, 0, { { 4, 64, 4, 4, 4, 2, 1, 256 }, STRATEGY_LSD, 4096, 0, 4, 0 },
      "any other device" },
};

/* A row's fields by their CLRADIX_TUNING names: first those of clradix_tuning in version
   1.0, which the calls read and write and no others, so that a caller's struct from an
   older header is never read or written past its end (see clradix.h); then the fields
   only CLRADIX_TUNING sets. */
static const struct { const char *name; size_t offset; } tuning_fields[] = {
    { "RADIX_BITS", offsetof(row_params, t.radix_bits) },
    { "WG", offsetof(row_params, t.work_group_size) },
    { "KPT", offsetof(row_params, t.keys_per_item) },
    { "RANK_BITS", offsetof(row_params, t.rank_bits) },
    { "GROUPS_PER_CU", offsetof(row_params, t.groups_per_unit) },
    { "HIST_COPIES", offsetof(row_params, t.hist_copies) },
    { "FUSED", offsetof(row_params, t.fused) },
    { "SMALL_N", offsetof(row_params, t.small_n) },
    { "STRATEGY", offsetof(row_params, strategy) },
    { "MEDIUM_N", offsetof(row_params, medium_n) },
    { "LOCAL_N", offsetof(row_params, local_n) },
    { "TOPK_SORT", offsetof(row_params, topk_sort) },
    { "LONG_MEDIUM_N", offsetof(row_params, long_medium_n) },
};
enum { TUNING_FIELDS = sizeof tuning_fields / sizeof tuning_fields[0], PUBLIC_FIELDS = 8 };

static unsigned *tuning_field(row_params *row, size_t f)
{
    return (unsigned *)((char *)row + tuning_fields[f].offset);
}

static unsigned tuning_value(const row_params *row, size_t f)
{
    return *(const unsigned *)((const char *)row + tuning_fields[f].offset);
}

clradix_status clradix_tuning_row(unsigned index, clradix_tuning *tuning, const char **devices)
{
    if (!tuning || index >= sizeof tuning_table / sizeof tuning_table[0])
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    row_params row = tuning_table[index].params;
    for (size_t f = 0; f < PUBLIC_FIELDS; ++f)  /* the caller's struct has these alone */
        *tuning_field((row_params *)tuning, f) = tuning_value(&row, f);
    if (devices)
        *devices = tuning_table[index].devices;
    return CLRADIX_SUCCESS;
}

static int matches(const tuning_row *row, const device_limits *limits, const char *vendor, const char *name)
{
    return (row->type == CL_DEVICE_TYPE_ALL || (row->type & limits->type))
        && (!row->vendor || strstr(vendor, row->vendor))
        && (!row->name || strstr(name, row->name))
        && limits->local_mem >= row->min_local;
}

static int is_power_of_two(unsigned v)
{
    return v && !(v & (v - 1));
}

/* Checks the overrides (fields 0 .. fields - 1 of over: PUBLIC_FIELDS for a caller's
   clradix_tuning, all for CLRADIX_TUNING) and copies the non-zero ones into row. */
static clradix_status apply_overrides(const row_params *over, size_t fields, row_params *row)
{
    const clradix_tuning *t = &over->t;
    if (t->radix_bits > 8 || t->keys_per_item > 65536 || t->groups_per_unit > 1024 || t->fused > 2
        || t->small_n > 65536 || (t->small_n > 1 && !is_power_of_two(t->small_n))
        || (t->work_group_size && (!is_power_of_two(t->work_group_size) || t->work_group_size > 65536))
        || (t->hist_copies && !is_power_of_two(t->hist_copies)))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (fields > PUBLIC_FIELDS && (over->strategy > STRATEGY_PARTITION || over->medium_n > (1u << 24)
                                   || over->local_n > (1u << 20) || (over->local_n && !is_power_of_two(over->local_n))
                                   || over->topk_sort > 1024))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    for (size_t f = 0; f < fields; ++f)
        if (tuning_value(over, f))
            *tuning_field(row, f) = tuning_value(over, f);
    if (t->small_n && !(fields > PUBLIC_FIELDS && over->local_n))
        row->local_n = 0;  /* a SMALL_N of one's own is the engine's too, unless LOCAL_N is given */
    if (fields > PUBLIC_FIELDS && over->medium_n && !over->long_medium_n)
        row->long_medium_n = 0;  /* a MEDIUM_N of one's own holds for every job, unless LONG_MEDIUM_N is given */
    if (t->rank_bits && t->rank_bits > row->t.radix_bits)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (row->t.rank_bits > row->t.radix_bits)
        row->t.rank_bits = row->t.radix_bits;
    return CLRADIX_SUCCESS;
}

/* Parses "NAME=VALUE,NAME=VALUE" (names as the kernels' build options) into row. */
static clradix_status parse_tuning(const char *text, row_params *row)
{
    while (*text) {
        const char *eq = strchr(text, '=');
        if (!eq)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        size_t name_len = (size_t)(eq - text);
        char *end;
        unsigned long value = strtoul(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ',') || value == 0 || value > (1ul << 24))
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        size_t f = 0;
        while (f < TUNING_FIELDS
               && !(strlen(tuning_fields[f].name) == name_len && !strncmp(tuning_fields[f].name, text, name_len)))
            ++f;
        if (f == TUNING_FIELDS)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        *tuning_field(row, f) = (unsigned)value;
        text = *end ? end + 1 : end;
    }
    return CLRADIX_SUCCESS;
}

static unsigned round_down_pow2(size_t v)
{
    unsigned p = 1;
    while ((size_t)p * 2 <= v)
        p *= 2;
    return p;
}

/* The kernel parameters of the chosen row on a device with these limits, before fitting
   each variant to local memory. */
static void params_from(const row_params *row, const device_limits *limits, radix_params *params)
{
    const clradix_tuning *chosen = &row->t;
    const unsigned max_wg = round_down_pow2(limits->max_wg);
    params->radix_bits = chosen->radix_bits;
    params->rank_bits = chosen->rank_bits;
    params->counter_digits = 1u << chosen->rank_bits;  /* all at once, unless tuning_fit finds no room */
    params->wg = chosen->work_group_size < max_wg ? chosen->work_group_size : max_wg;
    params->kpt = chosen->keys_per_item;
    params->groups_per_cu = chosen->groups_per_unit;
    params->hist_copies = chosen->hist_copies < params->wg ? chosen->hist_copies : params->wg;
    params->max_groups = limits->compute_units * chosen->groups_per_unit;
    /* FUSED counts for at most MAX_GROUPS blocks: a loop budget may need more (loops.c). */
    params->fused = chosen->fused == 2 && params->max_groups <= FUSED_GROUPS_MAX && !limits->loop_budget;
    params->small_n = chosen->small_n > 1 ? chosen->small_n : 0;
    params->scan_wg = 256 < max_wg ? 256 : max_wg;
    params->strategy = row->strategy;
    params->medium_n = row->medium_n;
    params->local_n = row->local_n;
    params->topk_sort = row->topk_sort;
    params->long_medium_n = row->long_medium_n;
}

clradix_status tuning_select(const device_limits *limits, cl_device_id device, const clradix_tuning *tuning,
                             radix_params *params)
{
    char vendor[256] = "", name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);

    size_t row = 0;
    while (!matches(&tuning_table[row], limits, vendor, name))
        ++row;  /* the last row matches everything */
    row_params chosen = tuning_table[row].params;

    const char *env = getenv("CLRADIX_TUNING");
    if (env && *env) {
        row_params from_env = { { 0 }, 0, 0, 0, 0, 0 };
        clradix_status status = parse_tuning(env, &from_env);
        if (status == CLRADIX_SUCCESS)
            status = apply_overrides(&from_env, TUNING_FIELDS, &chosen);
        if (status != CLRADIX_SUCCESS)
            return status;
    }
    if (tuning) {
        row_params from_caller = { *tuning, 0, 0, 0, 0, 0 };
        clradix_status status = apply_overrides(&from_caller, PUBLIC_FIELDS, &chosen);
        if (status != CLRADIX_SUCCESS)
            return status;
    }
    params_from(&chosen, limits, params);
    return CLRADIX_SUCCESS;
}

void tuning_report(const radix_params *p, clradix_tuning *tuning)
{
    /* Field by field: only the fields of version 1.0 (see clradix_tuning). */
    tuning->radix_bits = p->radix_bits;
    tuning->work_group_size = p->wg;
    tuning->keys_per_item = p->kpt;
    tuning->rank_bits = p->rank_bits;
    tuning->groups_per_unit = p->groups_per_cu;
    tuning->hist_copies = p->hist_copies;
    tuning->fused = p->fused ? 2 : 1;
    tuning->small_n = p->small_n ? p->small_n : 1;
}

/* Halves the work-group size of the sort kernels (scan_kernel 0) or of the scan; 0 at 1. */
static int tuning_halve_wg(radix_params *params, int scan_kernel)
{
    unsigned *wg = scan_kernel ? &params->scan_wg : &params->wg;
    if (*wg == 1)
        return 0;
    *wg /= 2;
    if (params->hist_copies > params->wg)
        params->hist_copies = params->wg;
    return 1;
}

/* Elements an array of n takes with the spare words of PAD in cl/common.cl (none with one
   work-item per group). */
static size_t padded(size_t n, unsigned wg)
{
    return wg > 1 ? n + n / 32 : n;
}

/* Bytes of local memory the kernels of a variant use (cl/: the arrays they declare). */
typedef struct local_needs {
    size_t histogram, scatter, small, scan;
} local_needs;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Bytes of tile_scratch (cl/common.cl) in a variant of several work-items: the counters of
   rank_digits or the tile's keys or values in the same words, then the group's words. */
static size_t tile_scratch_bytes(const radix_params *params, unsigned key_bytes, unsigned value_bytes)
{
    const size_t word = sizeof(cl_uint), radix = (size_t)1 << params->radix_bits, wg = params->wg;
    const size_t tile = wg * params->kpt, lanes = params->counter_digits / 2, rake = lanes % 4 ? 1 : 4;
    size_t shared = (lanes * wg + wg * rake) * word;  /* COUNTER_WORDS */
    shared = tile * key_bytes > shared ? tile * key_bytes : shared;
    shared = tile * value_bytes > shared ? tile * value_bytes : shared;
    const size_t span = wg >= 128 ? 16 : wg >= 8 ? 8 : wg;
    const size_t words = (wg + wg / span + 1) + (radix + 1) + 3 * radix + 4;
    return round_up(round_up(shared, 16) + word * words, 16);
}

static local_needs local_needs_of(const radix_params *params, unsigned key_bytes, unsigned value_bytes)
{
    const size_t word = sizeof(cl_uint), item = key_bytes + value_bytes;
    const size_t radix = (size_t)1 << params->radix_bits, rank_radix = (size_t)1 << params->rank_bits;
    const size_t passes = (8 * key_bytes + params->radix_bits - 1) / params->radix_bits;
    const unsigned wg = params->wg;
    const size_t fused = params->fused ? radix * params->max_groups : 0;
    local_needs needs;
    needs.histogram = word * params->hist_copies * (passes * radix + 1);  /* radix_histogram_all */
    needs.scan = word * padded(2 * (size_t)params->scan_wg, wg);
    if (wg > 1) {
        /* radix_scatter (with FUSED's counts), seg_scatter, and seg_medium with its counts
           and two words; radix_sort_small, and seg_local with a word more */
        const size_t scratch = tile_scratch_bytes(params, key_bytes, value_bytes), medium = padded(radix, wg) + 2;
        needs.scatter = scratch + word * (fused > medium ? fused : medium);
        needs.small = params->small_n ? scratch + word : 0;
        return needs;
    }
    /* One work-item: the tile in two buffers, RANK_COUNTERS (a row per rank round of the
       key, and at least RANK_SPANS (2) rows), run_begin, digit_next and moved; radix_scatter
       with FUSED's counts, seg_medium without; the local sorts two arrays of SMALL_N. */
    const size_t rounds = (8 * key_bytes + params->rank_bits - 1) / params->rank_bits;
    const size_t counters = rank_radix * (rounds > 2 ? rounds : 2);
    needs.scatter = 2 * (size_t)params->kpt * item + word * (counters + 2 * radix + 3 + fused);
    needs.small = params->small_n ? 2 * (size_t)params->small_n * item + word * (counters + 2) : 0;
    return needs;
}

cl_ulong tuning_local_estimate(const radix_params *params, unsigned key_bytes, unsigned value_bytes)
{
    const local_needs needs = local_needs_of(params, key_bytes, value_bytes);
    size_t most = needs.histogram;
    const size_t others[] = { needs.scatter, needs.small, needs.scan };
    for (int i = 0; i < 3; ++i)
        most = others[i] > most ? others[i] : most;
    return most;
}

int tuning_fit(radix_params *params, const device_limits *limits, unsigned key_bytes, unsigned value_bytes)
{
    const cl_ulong local_mem = limits->local_mem, allowed = loops_allowed(limits);
    for (;;) {
        const local_needs needs = local_needs_of(params, key_bytes, value_bytes);
        if (needs.histogram > local_mem) {
            if (params->hist_copies == 1)
                return 0;
            params->hist_copies /= 2;
        } else if (params->wg > 1 && (size_t)params->wg * params->kpt > TILE_MAX) {
            params->kpt /= 2;  /* ranks of a tile are counted in 16 bits (rank_digits) */
        } else if (params->wg > 1 && params->small_n > params->wg * params->kpt) {
            params->small_n = params->wg * params->kpt;  /* sorted as a tile (radix_sort_small) */
        } else if (needs.scatter > local_mem) {
            /* Several work-items: the counters of fewer digits at once (up to four rounds of
               counting, where they take more than the tile); then a smaller tile. */
            const size_t counters = (size_t)params->counter_digits * params->wg * 2;
            const size_t tile = (size_t)params->wg * params->kpt * (key_bytes > value_bytes ? key_bytes : value_bytes);
            const unsigned rank_radix = 1u << params->rank_bits;
            if (params->wg > 1 && params->counter_digits > 2 && params->counter_digits > rank_radix / 4
                && counters >= tile)
                params->counter_digits /= 2;
            else if (params->kpt > 1)
                params->kpt /= 2;  /* a smaller tile */
            else if (params->wg > 1 && params->counter_digits > 2)
                params->counter_digits /= 2;
            else if (params->fused)
                params->fused = 0;
            else if (!tuning_halve_wg(params, 0))
                return 0;
        } else if (needs.small > local_mem
                   || (params->small_n && loops_small_sort(params, key_bytes, params->small_n) > allowed)) {
            params->small_n = params->small_n / 2 >= params->wg ? params->small_n / 2 : 0;
        } else if (needs.scan > local_mem) {
            if (!tuning_halve_wg(params, 1))
                return 0;
        } else {
            return 1;
        }
    }
}

int tuning_supported(const device_limits *limits, const radix_params *params)
{
    if (limits->local_mem < TUNING_MIN_LOCAL_MEM)
        return 0;
    static const unsigned value_sizes[] = { 0, 4, 8, 16 };
    for (unsigned key_bytes = 1; key_bytes <= (limits->int64 ? 8u : 4u); key_bytes *= 2)
        for (int v = 0; v < 4; ++v)
            for (int engine = 0; engine < 2; ++engine) {  /* the LSD program's shape, then the engine's */
                radix_params shape = *params;
                if (engine && shape.local_n)
                    shape.small_n = shape.local_n;
                if (!tuning_fit(&shape, limits, key_bytes, value_sizes[v]))
                    return 0;
            }
    return 1;
}

#ifdef CLRADIX_TESTING
clradix_status clradix_testing_fit(const clradix_tuning *row, cl_ulong local_mem, size_t max_wg, cl_uint compute_units,
                                   unsigned key_bytes, unsigned value_bytes, clradix_tuning *shape,
                                   unsigned *counter_digits, size_t *local_bytes)
{
    row_params chosen = tuning_table[0].params, from_caller = { *row, 0, 0, 0, 0, 0 };
    clradix_status status = apply_overrides(&from_caller, PUBLIC_FIELDS, &chosen);
    if (status != CLRADIX_SUCCESS)
        return status;
    device_limits limits = { 0 };
    limits.local_mem = local_mem;
    limits.max_wg = max_wg;
    limits.compute_units = compute_units;
    radix_params params;
    params_from(&chosen, &limits, &params);
    if (!tuning_fit(&params, &limits, key_bytes, value_bytes))
        return CLRADIX_ERROR_UNSUPPORTED;
    tuning_report(&params, shape);
    *counter_digits = params.counter_digits;
    *local_bytes = tuning_local_estimate(&params, key_bytes, value_bytes);
    return CLRADIX_SUCCESS;
}

clradix_status clradix_testing_row_text(unsigned index, char *text, size_t size)
{
    if (index >= sizeof tuning_table / sizeof tuning_table[0] || size == 0)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    size_t used = 0;
    text[0] = '\0';
    for (size_t f = 0; f < TUNING_FIELDS; ++f) {
        const unsigned value = tuning_value(&tuning_table[index].params, f);
        if (value && used < size)
            used += (size_t)snprintf(text + used, size - used, "%s%s=%u", used ? "," : "", tuning_fields[f].name,
                                     value);
    }
    return used < size ? CLRADIX_SUCCESS : CLRADIX_ERROR_INVALID_ARGUMENT;
}
#endif
