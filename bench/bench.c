/*
 * clradix-bench: times clradix on one or more OpenCL devices for several key types, sizes
 * and distributions, next to C qsort and (when built with it) Boost.Compute's radix sort
 * on the same data, verifies every result, and prints a table (stdout), progress
 * (stderr), and optionally JSON and CSV files.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ITEMS = 32 };

typedef struct options {
    const char *device_specs[MAX_ITEMS];
    int device_count, all_devices;
    clradix_key_type types[MAX_ITEMS];
    int type_count;
    size_t sizes[MAX_ITEMS];
    int size_count;
    bench_dist dists[MAX_ITEMS];
    int dist_count;
    size_t value_sizes[MAX_ITEMS];  /* 0: keys only */
    int value_count;
    int runs;
    size_t qsort_max_n;
    int qsort, boost, tune;
    const char *json_path, *csv_path;
    /* --memory-limit: budgets of the host-array sort, each a fraction 1/divisor of the
       case's data (divisor > 0) or bytes */
    unsigned limit_divisors[MAX_ITEMS];
    size_t limit_bytes[MAX_ITEMS];
    int limit_count;
    /* --strategy: flat sorts by the device's row (0), LSD passes (1) or partition first (2),
       each with a sorter of its own */
    unsigned strategies[MAX_ITEMS];
    int strategy_count;
    /* --segments: segmented sorts of the same keys in segments of these lengths (0: a
       power-law mix) */
    size_t segment_lengths[MAX_ITEMS];
    int segment_count;
    /* --topk: the k smallest keys of the whole array and of every row of TOPK_ROW keys */
    size_t topk_ks[MAX_ITEMS];
    int topk_count;
    /* --records: record sorts of the same n and distribution (with the first type and value size) */
    record_spec records[MAX_ITEMS];
    int record_count;
} options;

enum { TOPK_ROW = 4096 };  /* the row length of --topk's rows */

typedef struct device_report {
    int index;
    char platform[256], name[256], kind[16];
    cl_uint compute_units;
    cl_ulong global_mem, local_mem, max_alloc;
    size_t max_wg;
    double copy_gbps, create_ms;
    clradix_tuning tuning;
} device_report;

typedef struct result {
    int device;           /* index into the device reports */
    const char *impl;     /* clradix, boost, qsort */
    clradix_key_type type;
    size_t value_size, n;
    bench_dist dist;
    int runs;
    double first_ms, median_ms, min_ms, max_ms;
    double mkeys, gbps, copy_share;  /* gbps and copy_share only for clradix */
    double speedup;                  /* baseline rows: clradix's speedup over this one */
    double outside;                  /* host rows: share of the time outside the device-buffer sort */
    unsigned passes;
    double bytes_per_key;
    int verified;
    char note[160];
} result;

static result *results;
static size_t result_count, result_capacity;

/* Median, min and max of times (seconds) into r, in milliseconds. */
static void summarize(double *times, int count, result *r)
{
    r->median_ms = sort_times(times, count) * 1e3;
    r->runs = count;
    r->min_ms = times[0] * 1e3;
    r->max_ms = times[count - 1] * 1e3;
    r->mkeys = (double)r->n / (r->median_ms * 1e-3) * 1e-6;
}

static result *add_result(const result *r)
{
    if (result_count == result_capacity) {
        result_capacity = result_capacity ? 2 * result_capacity : 64;
        results = realloc(results, result_capacity * sizeof *results);
        if (!results) {
            fprintf(stderr, "clradix-bench: out of host memory\n");
            exit(1);
        }
    }
    results[result_count] = *r;
    return &results[result_count++];
}

/* --- Options ------------------------------------------------------------------------- */

static int add_type(void *context, const char *item)
{
    options *o = context;
    return o->type_count < MAX_ITEMS && parse_type(item, &o->types[o->type_count]) && ++o->type_count;
}

static int add_size(void *context, const char *item)
{
    options *o = context;
    size_t n;
    if (!parse_size(item, &n) || n == 0 || n > CLRADIX_MAX_N || o->size_count == MAX_ITEMS)
        return 0;
    o->sizes[o->size_count++] = n;
    return 1;
}

static int add_dist(void *context, const char *item)
{
    options *o = context;
    return o->dist_count < MAX_ITEMS && parse_dist(item, &o->dists[o->dist_count]) && ++o->dist_count;
}

static int add_value_size(void *context, const char *item)
{
    options *o = context;
    return o->value_count < MAX_ITEMS && parse_value_size(item, &o->value_sizes[o->value_count]) &&
           ++o->value_count;
}

static int add_limit(void *context, const char *item)
{
    options *o = context;
    if (o->limit_count == MAX_ITEMS)
        return 0;
    o->limit_divisors[o->limit_count] = 0;
    o->limit_bytes[o->limit_count] = 0;
    if (!strncmp(item, "1/", 2)) {
        char *end;
        const unsigned long d = strtoul(item + 2, &end, 10);
        if (*end || d < 2 || d > 1u << 20)
            return 0;
        o->limit_divisors[o->limit_count++] = (unsigned)d;
        return 1;
    }
    if (!parse_size(item, &o->limit_bytes[o->limit_count]) || !o->limit_bytes[o->limit_count])
        return 0;
    ++o->limit_count;
    return 1;
}

static const char *const strategy_names[] = { "clradix", "lsd", "partition" };

static int add_strategy(void *context, const char *item)
{
    options *o = context;
    for (unsigned k = 0; k < 3 && o->strategy_count < MAX_ITEMS; ++k)
        if (!strcmp(item, k ? strategy_names[k] : "default")) {
            o->strategies[o->strategy_count++] = k;
            return 1;
        }
    return 0;
}

static int add_segments(void *context, const char *item)
{
    options *o = context;
    size_t length = 0;
    if (o->segment_count == MAX_ITEMS || (strcmp(item, "powerlaw") && (!parse_size(item, &length) || !length)))
        return 0;
    o->segment_lengths[o->segment_count++] = length;
    return 1;
}

static int add_topk(void *context, const char *item)
{
    options *o = context;
    size_t k = 0;
    if (o->topk_count == MAX_ITEMS || !parse_size(item, &k) || !k)
        return 0;
    o->topk_ks[o->topk_count++] = k;
    return 1;
}

static int add_records(options *o, const char *spec)
{
    return o->record_count < MAX_ITEMS && parse_record_spec(spec, &o->records[o->record_count]) && ++o->record_count;
}

static int add_device(void *context, const char *item)
{
    options *o = context;
    if (!strcmp(item, "all"))
        o->all_devices = 1;
    else if (o->device_count < MAX_ITEMS)
        o->device_specs[o->device_count++] = strdup(item);  /* item lives in for_each_item's buffer */
    else
        return 0;
    return 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clradix-bench [options]\n"
            "Times clradix next to qsort (and Boost.Compute's radix sort, when built with it) on the same\n"
            "data, verifies every result, and prints a table; progress goes to stderr.\n"
            "  --list              list every OpenCL platform and device, then exit\n"
            "  --device D          device index, name substring or 'all' (repeatable, or D1,D2);\n"
            "                      default: CLRADIX_DEVICE, else the first GPU, else the first device\n"
            "  --type T            u32,i32,f32,u64,i64,f64,u8,i8,u16,i16,f16,bf16, and\n"
            "                      f32-numpy,f64-numpy,f16-numpy,bf16-numpy (several with\n"
            "                      commas; default u32)\n"
            "  --pairs SIZE        sort key-value pairs with SIZE-byte values: 4, 8 or 16; several with\n"
            "                      commas, 0 meaning keys only (default: keys only)\n"
            "  --n N               keys per sort, several with commas: 16777216, 2^24, 16M (default 2^24)\n"
            "  --dist D            random (every bit pattern; floats: every finite one), sorted, reverse,\n"
            "                      equal, few (16 values), lowentropy (AND of 3 random words), range16\n"
            "                      (below 2^16); real data: unit (floats in [0, 1), integers below\n"
            "                      2^20), normal, zipf (exponent 1.1); CUB's entropy levels\n"
            "                      entropy0.811, entropy0.544, entropy0.337, entropy0.201 (a random\n"
            "                      key ANDed with 1, 2, 3, 4 more); the IPS4o suite's exponential (2^j\n"
            "                      plus a draw below 2^j, j uniform below log2(n) + 1, hashed), rootdup\n"
            "                      (i mod sqrt(n)), twodup ((i^2 + m/2) mod m, m a power of two <= n),\n"
            "                      almostsorted (i, then sqrt(n) random swaps); integers i as keys of\n"
            "                      the type. Several with commas (default random)\n"
            "  --runs R            timed sorts per case after the first, at least 5 (default 5)\n"
            "  --qsort-max-n N     leave qsort out above N keys (default 2^24); --no-qsort: always\n"
            "  --memory-limit L    also time the host-array sort in core ('host') and under these device\n"
            "                      memory budgets (clradix_sorter_set_memory_limit), out of core: bytes\n"
            "                      (64M) or fractions of the case's data (1/4); several with commas.\n"
            "                      With several devices, a row for the host sort shared by all ('multi')\n"
            "  --strategy S        flat sorts by default (the device's row), lsd (LSD passes) or\n"
            "                      partition (partition first, then the buckets as segments); several\n"
            "                      with commas, each timed on the same data (rows named by strategy)\n"
            "  --segments L        also segmented sorts of the same keys (clradix_sort_segments_keys\n"
            "                      or _pairs) in segments of L keys each, or 'powerlaw' (as many segments\n"
            "                      of 2^e .. 2^(e+1)-1 keys for each e < 20); several with commas (seg/L)\n"
            "  --topk K            also the K smallest keys (clradix_topk, keys and 4-byte indices of\n"
            "                      device buffers) of the whole array (topk/K) and of each row of 4096\n"
            "                      keys (clradix_topk_rows: topk-rows/K); several with commas; speedup:\n"
            "                      the row's median / the full sort's (0.1x: 10 times as fast)\n"
            "  --records SIZE:F    also sorts of records of SIZE bytes keyed by fields of types F, most\n"
            "                      significant first, one after another from byte 0 (16:u32, 32:u64,u64,f32;\n"
            "                      a field's own distribution after a slash: 16:u64/few,u64;\n"
            "                      repeatable), at each n and distribution: clradix_sort_records\n"
            "                      (records/SPEC), clradix_argsort of the composite key then clradix_gather\n"
            "                      (key+gather/SPEC), and the plain sort of the composite's width, with the\n"
            "                      records as values where they are 4, 8 or 16 bytes (plain/SPEC); speedup:\n"
            "                      the row's median / records/SPEC's\n"
            "  --no-boost          leave Boost.Compute out\n"
            "  --json FILE         write every result as JSON; --csv FILE: as CSV\n"
            "  --tune              search the kernel parameters for the first device, type, value size\n"
            "                      and n given, and print the best as CLRADIX_TUNING and as a table row\n"
            "  --help              this text\n"
            "Columns: first = the case's first sort, including any kernel build it triggers; median,\n"
            "min, max over the timed sorts; GB/s = bytes the executed passes move per key (reads and\n"
            "writes of every kernel) x keys / median time; %%copy = that against the device's copy-kernel\n"
            "bandwidth measured in the same run; speedup = a row's median / the first clradix row's median;\n"
            "outside = for host-array sorts, the share of their time not spent in the device-buffer sort\n"
            "of the same data (transfers, and partitioning when out of core).\n");
}

static int parse_options(int argc, char **argv, options *o, int *list_only)
{
    memset(o, 0, sizeof *o);
    o->runs = 5;
    o->qsort = 1;
    o->boost = 1;
    o->qsort_max_n = (size_t)1 << 24;
    *list_only = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, used = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--list")) {
            *list_only = 1, used = 0;
        } else if (!strcmp(a, "--no-qsort")) {
            o->qsort = 0, used = 0;
        } else if (!strcmp(a, "--no-boost")) {
            o->boost = 0, used = 0;
        } else if (!strcmp(a, "--tune")) {
            o->tune = 1, used = 0;
        } else if (!v) {
            ok = 0;
        } else if (!strcmp(a, "--device")) {
            ok = for_each_item(v, add_device, o);
        } else if (!strcmp(a, "--type")) {
            ok = for_each_item(v, add_type, o);
        } else if (!strcmp(a, "--n")) {
            ok = for_each_item(v, add_size, o);
        } else if (!strcmp(a, "--dist")) {
            ok = for_each_item(v, add_dist, o);
        } else if (!strcmp(a, "--pairs")) {
            ok = for_each_item(v, add_value_size, o);
        } else if (!strcmp(a, "--runs")) {
            o->runs = atoi(v);
            ok = o->runs >= 5 && o->runs <= 1000;
        } else if (!strcmp(a, "--qsort-max-n")) {
            ok = parse_size(v, &o->qsort_max_n);
        } else if (!strcmp(a, "--memory-limit")) {
            ok = for_each_item(v, add_limit, o);
        } else if (!strcmp(a, "--strategy")) {
            ok = for_each_item(v, add_strategy, o);
        } else if (!strcmp(a, "--segments")) {
            ok = for_each_item(v, add_segments, o);
        } else if (!strcmp(a, "--topk")) {
            ok = for_each_item(v, add_topk, o);
        } else if (!strcmp(a, "--records")) {
            ok = add_records(o, v);
        } else if (!strcmp(a, "--json")) {
            o->json_path = v;
        } else if (!strcmp(a, "--csv")) {
            o->csv_path = v;
        } else {
            ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "clradix-bench: bad option %s%s%s\n", a, v && used ? " " : "", v && used ? v : "");
            usage(stderr);
            return 0;
        }
        i += used;
    }
    if (!o->type_count)
        o->types[o->type_count++] = CLRADIX_U32;
    if (!o->size_count)
        o->sizes[o->size_count++] = (size_t)1 << 24;
    if (!o->dist_count)
        o->dists[o->dist_count++] = DIST_RANDOM;
    if (!o->value_count)
        o->value_sizes[o->value_count++] = 0;
    if (!o->strategy_count)
        o->strategies[o->strategy_count++] = 0;
    return 1;
}

/* --- Devices ----------------------------------------------------------------------------- */

static void describe_device(cl_device_id device, int index, device_report *d)
{
    memset(d, 0, sizeof *d);
    d->index = index;
    cl_platform_id platform = NULL;
    cl_device_type type = 0;
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof d->platform - 1, d->platform, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    snprintf(d->kind, sizeof d->kind, "%s",
             type & CL_DEVICE_TYPE_GPU ? "GPU" : type & CL_DEVICE_TYPE_CPU ? "CPU"
             : type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other");
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units, &d->compute_units, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem, &d->global_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg, NULL);
}

static int list_devices(void)
{
    cl_uint count = 0;
    if (clradix_device_list(0, NULL, &count) != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix-bench: cannot list OpenCL devices\n");
        return 1;
    }
    cl_device_id *devices = malloc((count ? count : 1) * sizeof *devices);
    clradix_device_list(count, devices, &count);
    if (count == 0)
        printf("no OpenCL devices\n");
    for (cl_uint i = 0; i < count; ++i) {
        device_report d;
        describe_device(devices[i], (int)i, &d);
        printf("%u: %s / %s\n   %s, %u compute units, global memory %.0f MiB, local memory %.0f KiB, "
               "max allocation %.0f MiB, max work-group %zu\n",
               i, d.platform, d.name, d.kind, d.compute_units, d.global_mem / 1048576.0, d.local_mem / 1024.0,
               d.max_alloc / 1048576.0, d.max_wg);
    }
    free(devices);
    return 0;
}

/* Resolves the --device options to indices in the device numbering. */
static int select_devices(const options *o, int *indices, int *count)
{
    cl_uint total = 0;
    if (clradix_device_list(0, NULL, &total) != CLRADIX_SUCCESS || total == 0) {
        fprintf(stderr, "clradix-bench: no OpenCL device found\n");
        return 0;
    }
    cl_device_id *devices = malloc(total * sizeof *devices);
    clradix_device_list(total, devices, &total);
    *count = 0;
    if (o->all_devices)
        for (cl_uint i = 0; i < total && *count < MAX_ITEMS; ++i)
            indices[(*count)++] = (int)i;
    const int specs = o->all_devices ? 0 : o->device_count ? o->device_count : 1;  /* none given: the default */
    for (int s = 0; s < specs; ++s) {
        const char *spec = o->device_count ? o->device_specs[s] : NULL;
        cl_device_id device;
        if (clradix_device_find(spec, &device) != CLRADIX_SUCCESS) {
            fprintf(stderr, "clradix-bench: no device matches '%s' (see --list)\n", spec ? spec : "$CLRADIX_DEVICE");
            free(devices);
            return 0;
        }
        for (cl_uint i = 0; i < total; ++i)
            if (devices[i] == device)
                indices[(*count)++] = (int)i;
    }
    free(devices);
    return 1;
}

/* --- Output -------------------------------------------------------------------------------- */

static const char *size_text(size_t n, char *buf, size_t size)
{
    if (n && !(n & (n - 1))) {
        int e = 0;
        while ((n >> e) > 1)
            ++e;
        snprintf(buf, size, "2^%d", e);
    } else {
        snprintf(buf, size, "%zu", n);
    }
    return buf;
}

static void print_header(void)
{
    printf("%-4s %-6s %-9s %-12s %-14s %9s %9s %9s %9s %9s %7s %6s %8s %8s\n", "type", "values", "n", "dist", "impl",
           "first ms", "median ms", "min ms", "max ms", "Mkeys/s", "GB/s", "%copy", "speedup", "outside");
}

static void print_row(const result *r)
{
    char n[32], values[16], first[16], gbps[16], share[16], speedup[16], outside[16];
    snprintf(values, sizeof values, r->value_size ? "%zuB" : "-", r->value_size);
    snprintf(first, sizeof first, r->first_ms > 0 ? "%.2f" : "-", r->first_ms);
    snprintf(gbps, sizeof gbps, r->gbps > 0 ? "%.1f" : "-", r->gbps);
    snprintf(share, sizeof share, r->copy_share > 0 ? "%.0f%%" : "-", r->copy_share * 100);
    snprintf(speedup, sizeof speedup, r->speedup > 0 ? (r->speedup < 1 ? "%.2fx" : "%.1fx") : "", r->speedup);
    snprintf(outside, sizeof outside, r->outside > 0 ? "%.0f%%" : "", r->outside * 100);
    if (r->runs == 0) {
        printf("%-4s %-6s %-9s %-12s %-14s   %s\n", type_name(r->type), values, size_text(r->n, n, sizeof n),
               dist_name(r->dist), r->impl, r->note);
        return;
    }
    printf("%-4s %-6s %-9s %-12s %-14s %9s %9.2f %9.2f %9.2f %9.1f %7s %6s %8s %8s%s%s\n", type_name(r->type), values,
           size_text(r->n, n, sizeof n), dist_name(r->dist), r->impl, first, r->median_ms, r->min_ms, r->max_ms,
           r->mkeys, gbps, share, speedup, outside, r->verified ? "" : "  WRONG RESULT: ", r->verified ? "" : r->note);
    fflush(stdout);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static int write_json(const char *path, const device_report *devices, int device_count)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f, "{\n  \"devices\": [\n");
    for (int i = 0; i < device_count; ++i) {
        const device_report *d = &devices[i];
        fprintf(f, "    {\"index\": %d, \"platform\": ", d->index);
        json_string(f, d->platform);
        fprintf(f, ", \"name\": ");
        json_string(f, d->name);
        fprintf(f,
                ", \"type\": \"%s\", \"compute_units\": %u, \"global_mem\": %llu, \"local_mem\": %llu, "
                "\"max_alloc\": %llu, \"max_work_group\": %zu, \"copy_gbps\": %.3f, \"sorter_create_ms\": %.3f, "
                "\"tuning\": {\"radix_bits\": %u, \"work_group_size\": %u, \"keys_per_item\": %u, \"rank_bits\": %u, "
                "\"groups_per_unit\": %u, \"hist_copies\": %u, \"fused\": %u, \"small_n\": %u}}%s\n",
                d->kind, d->compute_units, (unsigned long long)d->global_mem, (unsigned long long)d->local_mem,
                (unsigned long long)d->max_alloc, d->max_wg, d->copy_gbps, d->create_ms, d->tuning.radix_bits,
                d->tuning.work_group_size, d->tuning.keys_per_item, d->tuning.rank_bits, d->tuning.groups_per_unit,
                d->tuning.hist_copies, d->tuning.fused, d->tuning.small_n, i + 1 < device_count ? "," : "");
    }
    fprintf(f, "  ],\n  \"results\": [\n");
    for (size_t i = 0; i < result_count; ++i) {
        const result *r = &results[i];
        fprintf(f,
                "    {\"device\": %d, \"impl\": \"%s\", \"type\": \"%s\", \"value_size\": %zu, \"n\": %zu, "
                "\"dist\": \"%s\", \"runs\": %d, \"first_ms\": %.4f, \"median_ms\": %.4f, \"min_ms\": %.4f, "
                "\"max_ms\": %.4f, \"mkeys_per_s\": %.3f, \"gb_per_s\": %.3f, \"copy_share\": %.4f, "
                "\"speedup\": %.3f, \"outside_share\": %.4f, \"passes\": %u, \"bytes_per_key\": %.1f, "
                "\"verified\": %s, \"note\": ",
                devices[r->device].index, r->impl, type_name(r->type), r->value_size, r->n, dist_name(r->dist),
                r->runs, r->first_ms, r->median_ms, r->min_ms, r->max_ms, r->mkeys, r->gbps, r->copy_share, r->speedup,
                r->outside, r->passes, r->bytes_per_key, r->verified ? "true" : "false");
        json_string(f, r->note);
        fprintf(f, "}%s\n", i + 1 < result_count ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0;
}

/* text with the commas and quotes that would split a CSV field replaced by with. */
static void csv_safe(char *out, size_t size, const char *text, char with)
{
    snprintf(out, size, "%s", text);
    for (char *c = out; *c; ++c)
        if (*c == ',' || *c == '"')
            *c = with;
}

static int write_csv(const char *path, const device_report *devices)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f, "device,device_name,impl,type,value_size,n,dist,runs,first_ms,median_ms,min_ms,max_ms,mkeys_per_s,"
               "gb_per_s,copy_share,speedup,passes,bytes_per_key,verified,outside_share\n");
    for (size_t i = 0; i < result_count; ++i) {
        const result *r = &results[i];
        if (r->runs == 0)
            continue;
        char name[256], impl[128];
        csv_safe(name, sizeof name, devices[r->device].name, ' ');
        csv_safe(impl, sizeof impl, r->impl, '+');  /* records/32:u64+u64+f32 */
        fprintf(f, "%d,%s,%s,%s,%zu,%zu,%s,%d,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.4f,%.3f,%u,%.1f,%d,%.4f\n",
                devices[r->device].index, name, impl, type_name(r->type), r->value_size, r->n, dist_name(r->dist),
                r->runs, r->first_ms, r->median_ms, r->min_ms, r->max_ms, r->mkeys, r->gbps, r->copy_share, r->speedup,
                r->passes, r->bytes_per_key, r->verified, r->outside);
    }
    return fclose(f) == 0;
}

/* --- Running the cases --------------------------------------------------------------------- */

typedef struct device_run {
    cl_context context;
    cl_command_queue queue;
    clradix_sorter *sorter;                     /* the first strategy's */
    clradix_sorter *strategy_sorters[MAX_ITEMS];  /* one per --strategy */
    int report;  /* index into the device reports */
} device_run;

/* The host data of one case. */
typedef struct workload {
    clradix_key_type type;
    size_t n, value_size;
    bench_dist dist;
    void *keys, *values;  /* the input */
    void *out_keys, *out_values;
    input_digest digest;
} workload;

static int upload(const device_run *d, const workload *w, cl_mem keys, cl_mem values)
{
    cl_int err = clEnqueueWriteBuffer(d->queue, keys, CL_FALSE, 0, w->n * type_bytes(w->type), w->keys, 0, NULL, NULL);
    if (err == CL_SUCCESS && values)
        err = clEnqueueWriteBuffer(d->queue, values, CL_FALSE, 0, w->n * w->value_size, w->values, 0, NULL, NULL);
    return err == CL_SUCCESS && clFinish(d->queue) == CL_SUCCESS;
}

/* Reads the result back and verifies it: as one sorted array, or segment by segment
   (offsets not NULL, num_segments of them). */
static int download_and_verify(const device_run *d, const workload *w, cl_mem keys, cl_mem values,
                               const uint32_t *offsets, size_t num_segments, result *r)
{
    cl_int err = clEnqueueReadBuffer(d->queue, keys, CL_TRUE, 0, w->n * type_bytes(w->type), w->out_keys, 0, NULL, NULL);
    if (err == CL_SUCCESS && values)
        err = clEnqueueReadBuffer(d->queue, values, CL_TRUE, 0, w->n * w->value_size, w->out_values, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        snprintf(r->note, sizeof r->note, "reading the result failed (OpenCL error %d)", err);
        return 0;
    }
    const void *out_values = values ? w->out_values : NULL;
    r->verified = offsets ? !verify_segments(w->type, w->keys, w->out_keys, out_values, w->value_size, offsets,
                                             num_segments, r->note, sizeof r->note)
                          : !verify_sort(w->type, w->keys, w->digest, w->out_keys, out_values, w->value_size, w->n,
                                         r->note, sizeof r->note);
    return 1;
}

/* Sorts through a device-buffer implementation: 0 clradix (segmented when offsets is not
   NULL), 1 Boost.Compute. */
static int sort_once(int impl, const device_run *d, const workload *w, cl_mem keys, cl_mem values, cl_mem offsets,
                     size_t num_segments, char *why, size_t why_size)
{
    if (impl == 0) {
        clradix_status s;
        if (offsets)
            s = w->value_size ? clradix_sort_segments_pairs(d->sorter, d->queue, w->type, keys, values, w->value_size,
                                                            w->n, offsets, num_segments, NULL, 0, NULL, NULL)
                              : clradix_sort_segments_keys(d->sorter, d->queue, w->type, keys, w->n, offsets,
                                                           num_segments, NULL, 0, NULL, NULL);
        else
            s = w->value_size ? clradix_sort_pairs(d->sorter, d->queue, w->type, keys, values, w->value_size, w->n,
                                                   NULL, 0, NULL, NULL)
                              : clradix_sort_keys(d->sorter, d->queue, w->type, keys, w->n, NULL, 0, NULL, NULL);
        if (s == CLRADIX_SUCCESS && clFinish(d->queue) != CL_SUCCESS)
            s = CLRADIX_ERROR_OPENCL;
        if (s != CLRADIX_SUCCESS)
            snprintf(why, why_size, "%s", clradix_status_string(s));
        return s == CLRADIX_SUCCESS ? 0 : 2;
    }
#ifdef CLRADIX_BENCH_BOOST
    return boost_sort(d->queue, w->type, keys, w->value_size ? values : NULL, w->value_size, w->n, why, why_size);
#else
    snprintf(why, why_size, "not built: install libboost-dev and rebuild");
    return 1;
#endif
}

/* One implementation on device buffers: the first sort apart, then runs timed sorts; a
   segmented sort when offsets is not NULL (num_segments segments). */
static void time_device_sort(int impl, const device_run *d, const workload *w, const uint32_t *offsets,
                             size_t num_segments, int runs, const device_report *dev, result *r)
{
    cl_int err;
    cl_mem keys = clCreateBuffer(d->context, CL_MEM_READ_WRITE, w->n * type_bytes(w->type), NULL, &err);
    cl_mem values = w->value_size && err == CL_SUCCESS
        ? clCreateBuffer(d->context, CL_MEM_READ_WRITE, w->n * w->value_size, NULL, &err) : NULL;
    cl_mem offsets_buffer = offsets && err == CL_SUCCESS
        ? clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (num_segments + 1) * sizeof *offsets,
                         (void *)offsets, &err)
        : NULL;
    double *times = malloc((size_t)runs * sizeof *times);
    int status = 0;
    if (err != CL_SUCCESS) {
        snprintf(r->note, sizeof r->note, "cannot allocate the buffers (OpenCL error %d)", err);
        status = 2;
    }
    for (int run = -1; run < runs && status == 0; ++run) {
        if (!upload(d, w, keys, values)) {
            snprintf(r->note, sizeof r->note, "uploading the keys failed");
            status = 2;
            break;
        }
        const double t0 = seconds();
        status = sort_once(impl, d, w, keys, values, offsets_buffer, num_segments, r->note, sizeof r->note);
        const double t = seconds() - t0;
        if (run < 0)
            r->first_ms = t * 1e3;
        else
            times[run] = t;
    }
    if (status == 0) {
        summarize(times, runs, r);
        download_and_verify(d, w, keys, values, offsets, num_segments, r);
        if (impl == 0 && !offsets) {
            r->passes = executed_passes(w->type, w->keys, w->n, dev->tuning.radix_bits);
            r->bytes_per_key = bytes_per_key(w->type, w->value_size, w->n, r->passes, &dev->tuning);
            r->gbps = r->bytes_per_key * (double)w->n / (r->median_ms * 1e-3) * 1e-9;
            r->copy_share = dev->copy_gbps > 0 ? r->gbps / dev->copy_gbps : 0;
        }
    } else {
        r->runs = 0;
        r->verified = status == 1;  /* not supported is no wrong result */
    }
    free(times);
    if (keys)
        clReleaseMemObject(keys);
    if (values)
        clReleaseMemObject(values);
    if (offsets_buffer)
        clReleaseMemObject(offsets_buffer);
}

/* clradix_topk (rows == 1) or clradix_topk_rows of the first rows * row_length keys of w on
   device buffers, keys and 4-byte indices out: the first call apart, then runs timed calls. */
static void time_topk(const device_run *d, const workload *w, size_t rows, size_t row_length, size_t k, int runs,
                      result *r)
{
    const size_t key_bytes = type_bytes(w->type), n = rows * row_length;
    cl_int err;
    cl_mem keys = clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * key_bytes, w->keys, &err);
    cl_mem out_keys = err == CL_SUCCESS
        ? clCreateBuffer(d->context, CL_MEM_READ_WRITE, rows * k * key_bytes, NULL, &err) : NULL;
    cl_mem out_indices = err == CL_SUCCESS
        ? clCreateBuffer(d->context, CL_MEM_READ_WRITE, rows * k * sizeof(uint32_t), NULL, &err) : NULL;
    double *times = malloc((size_t)runs * sizeof *times);
    clradix_status status = err == CL_SUCCESS ? CLRADIX_SUCCESS : CLRADIX_ERROR_OPENCL;
    for (int run = -1; run < runs && status == CLRADIX_SUCCESS; ++run) {
        const double t0 = seconds();
        status = rows == 1 ? clradix_topk(d->sorter, d->queue, w->type, keys, n, k, out_keys, out_indices, 4, NULL, 0,
                                          NULL, NULL)
                           : clradix_topk_rows(d->sorter, d->queue, w->type, keys, rows, row_length, k, out_keys,
                                               out_indices, 4, NULL, 0, NULL, NULL);
        if (status == CLRADIX_SUCCESS && clFinish(d->queue) != CL_SUCCESS)
            status = CLRADIX_ERROR_OPENCL;
        const double t = seconds() - t0;
        if (run < 0)
            r->first_ms = t * 1e3;
        else
            times[run] = t;
    }
    void *host_keys = malloc(rows * k * key_bytes);
    uint32_t *host_indices = malloc(rows * k * sizeof *host_indices);
    if (status == CLRADIX_SUCCESS && host_keys && host_indices
        && clEnqueueReadBuffer(d->queue, out_keys, CL_TRUE, 0, rows * k * key_bytes, host_keys, 0, NULL, NULL)
               == CL_SUCCESS
        && clEnqueueReadBuffer(d->queue, out_indices, CL_TRUE, 0, rows * k * sizeof *host_indices, host_indices, 0,
                               NULL, NULL)
               == CL_SUCCESS) {
        summarize(times, runs, r);
        r->verified = !verify_topk(w->type, w->keys, rows, row_length, k, host_keys, host_indices, r->note,
                                   sizeof r->note);
    } else {
        snprintf(r->note, sizeof r->note, "%s", clradix_status_string(status));
        r->runs = 0;
        r->verified = 0;
    }
    free(host_keys);
    free(host_indices);
    free(times);
    const cl_mem buffers[] = { keys, out_keys, out_indices };
    for (int i = 0; i < 3; ++i)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
}

static void time_qsort(const workload *w, int runs, result *r)
{
    double *times = malloc((size_t)runs * sizeof *times);
    const size_t key_bytes = w->n * type_bytes(w->type);
    for (int run = 0; run < runs; ++run) {
        memcpy(w->out_keys, w->keys, key_bytes);
        if (w->value_size)
            memcpy(w->out_values, w->values, w->n * w->value_size);
        const double t0 = seconds();
        qsort_sort(w->type, w->out_keys, w->value_size ? w->out_values : NULL, w->value_size, w->n);
        times[run] = seconds() - t0;
    }
    summarize(times, runs, r);
    r->verified = !verify_sort(w->type, w->keys, w->digest, w->out_keys, w->value_size ? w->out_values : NULL,
                               w->value_size, w->n, r->note, sizeof r->note);
    free(times);
}

/* The host-array sort of w on sorters (one: the single-device call, with the sorter's memory
   limit set to limit; several: the multi-device call), the first sort apart. */
static void time_host_sort(clradix_sorter *const *sorters, unsigned count, size_t limit, const workload *w, int runs,
                           result *r)
{
    double *times = malloc((size_t)runs * sizeof *times);
    const size_t key_bytes = w->n * type_bytes(w->type), value_bytes = w->n * w->value_size;
    clradix_status status = count == 1 ? clradix_sorter_set_memory_limit(sorters[0], limit) : CLRADIX_SUCCESS;
    for (int run = -1; run < runs && status == CLRADIX_SUCCESS; ++run) {
        memcpy(w->out_keys, w->keys, key_bytes);
        if (value_bytes)
            memcpy(w->out_values, w->values, value_bytes);
        const double t0 = seconds();
        if (count == 1)
            status = value_bytes ? clradix_sort_pairs_host(sorters[0], NULL, w->type, w->out_keys, w->out_values,
                                                           w->value_size, w->n, NULL)
                                 : clradix_sort_keys_host(sorters[0], NULL, w->type, w->out_keys, w->n, NULL);
        else
            status = value_bytes ? clradix_sort_pairs_host_multi(sorters, count, w->type, w->out_keys, w->out_values,
                                                                 w->value_size, w->n, NULL)
                                 : clradix_sort_keys_host_multi(sorters, count, w->type, w->out_keys, w->n, NULL);
        const double t = seconds() - t0;
        if (run < 0)
            r->first_ms = t * 1e3;
        else
            times[run] = t;
    }
    if (count == 1)
        clradix_sorter_set_memory_limit(sorters[0], 0);
    if (status == CLRADIX_SUCCESS) {
        summarize(times, runs, r);
        r->verified = !verify_sort(w->type, w->keys, w->digest, w->out_keys, value_bytes ? w->out_values : NULL,
                                   w->value_size, w->n, r->note, sizeof r->note);
    } else {
        snprintf(r->note, sizeof r->note, "%s", clradix_status_string(status));
        r->runs = 0;
        r->verified = 0;
    }
    free(times);
}

static int case_number, case_total;
static double start_time;

static void progress(const device_report *dev, const workload *w, const char *impl)
{
    char n[32];
    char values[32] = "";
    if (w->value_size)
        snprintf(values, sizeof values, " pairs %zuB", w->value_size);
    fprintf(stderr, "[case %d/%d, %.0f s] device %d %s%s n=%s %s: %s\n", case_number, case_total,
            seconds() - start_time, dev->index, type_name(w->type), values, size_text(w->n, n, sizeof n),
            dist_name(w->dist), impl);
}

/* A result row of case w on device report `device`, before anything is measured. */
static result result_of(int device, const workload *w)
{
    result r = { 0 };
    r.device = device;
    r.type = w->type;
    r.value_size = w->value_size;
    r.n = w->n;
    r.dist = w->dist;
    r.verified = 1;
    return r;
}

/* The rows of one --records spec for w's n and distribution; 0 when a result was wrong. */
static int time_record_rows(const options *o, const device_run *d, const device_report *dev, const workload *w,
                            const record_spec *spec)
{
    static const char *const ways[RECORD_WAYS] = { "records", "key+gather", "plain" };
    unsigned char *input = make_records(spec, w->dist, w->n, 99);
    double *times = malloc((size_t)o->runs * sizeof *times), records_ms = 0;
    int ok = input && times;
    for (int way = 0; way < RECORD_WAYS && input && times; ++way) {
        char label[96];
        snprintf(label, sizeof label, "%s/%s", ways[way], spec->text);
        progress(dev, w, label);
        result r = result_of(d->report, w);
        r.impl = strdup(label);
        r.type = spec->key_bits <= 32 ? CLRADIX_U32 : CLRADIX_U64;
        r.value_size = way == RECORDS_PLAIN ? plain_value_size(spec) : spec->record_size;
        const int verified = time_records((record_way)way, spec, d->context, d->queue, d->sorter, input, w->n,
                                          o->runs, times, &r.first_ms, r.note, sizeof r.note);
        if (verified >= 0 && !r.note[0]) {
            summarize(times, o->runs, &r);
            if (way == RECORDS_SORT)
                records_ms = r.median_ms;
            else if (records_ms > 0)
                r.speedup = r.median_ms / records_ms;
        }
        r.verified = verified != 0;
        ok &= r.verified;
        print_row(add_result(&r));
    }
    free(input);
    free(times);
    return ok;
}

/* Runs one case on one device; returns 0 when any result was wrong. */
static int run_case(const options *o, const device_run *d, const device_report *dev, workload *w)
{
    int ok = 1;
    ++case_number;
    const result base = result_of(d->report, w);

    /* The flat sort, by each strategy; the first one is what baselines are compared with. */
    double clradix_ms = 0;
    result r;
    for (int k = 0; k < o->strategy_count; ++k) {
        device_run by = *d;
        by.sorter = d->strategy_sorters[k];
        const char *impl = strategy_names[o->strategies[k]];
        progress(dev, w, impl);
        r = base;
        r.impl = impl;
        time_device_sort(0, &by, w, NULL, 0, o->runs, dev, &r);
        if (k == 0)
            clradix_ms = r.runs ? r.median_ms : 0;
        else if (r.runs && clradix_ms > 0)
            r.speedup = r.median_ms / clradix_ms;  /* as for the baselines: the first strategy's speedup */
        ok &= r.verified && r.runs > 0;
        print_row(add_result(&r));
    }

    /* Segmented sorts of the same data. */
    for (int g = 0; g < o->segment_count; ++g) {
        char label[48], size[32];
        const size_t length = o->segment_lengths[g];
        snprintf(label, sizeof label, "seg/%s", length ? size_text(length, size, sizeof size) : "pow");
        progress(dev, w, label);
        r = base;
        r.impl = strdup(label);
        size_t count;
        uint32_t *offsets = make_segment_offsets(w->n, length, 7, &count);
        time_device_sort(0, d, w, offsets, count, o->runs, dev, &r);
        free(offsets);
        ok &= r.verified && r.runs > 0;
        print_row(add_result(&r));
    }

    /* Top-k of the same keys, as one array and as rows, next to the full sort. */
    for (int t = 0; t < o->topk_count; ++t) {
        const size_t k = o->topk_ks[t];
        for (int as_rows = 0; as_rows < 2; ++as_rows) {
            const size_t row_length = as_rows ? TOPK_ROW : w->n, rows = w->n / row_length;
            char label[48], size[32];
            snprintf(label, sizeof label, "%s/%s", as_rows ? "topk-rows" : "topk", size_text(k, size, sizeof size));
            r = base;
            r.impl = strdup(label);
            if (k > row_length || rows == 0) {
                snprintf(r.note, sizeof r.note, "k is more than the %zu keys of a row", row_length);
            } else {
                progress(dev, w, label);
                time_topk(d, w, rows, row_length, k, o->runs, &r);
                if (r.runs && clradix_ms > 0)
                    r.speedup = r.median_ms / clradix_ms;  /* as for the strategies: against the full sort */
                ok &= r.verified && r.runs > 0;
            }
            print_row(add_result(&r));
        }
    }

    /* Record sorts at this n and distribution (once, with the first type and value size). */
    for (int s = 0; w->type == o->types[0] && w->value_size == o->value_sizes[0] && s < o->record_count; ++s)
        ok &= time_record_rows(o, d, dev, w, &o->records[s]);

    /* The host-array sort, in core and under each memory budget. */
    for (int l = -1; o->limit_count && l < o->limit_count; ++l) {
        const size_t data = w->n * (type_bytes(w->type) + w->value_size);
        const size_t limit = l < 0 ? 0 : o->limit_divisors[l] ? data / o->limit_divisors[l] : o->limit_bytes[l];
        char label[48], size[32];
        if (l < 0)
            snprintf(label, sizeof label, "host");
        else if (o->limit_divisors[l])
            snprintf(label, sizeof label, "host/%u", o->limit_divisors[l]);
        else
            snprintf(label, sizeof label, "host<%s", size_text(limit, size, sizeof size));
        progress(dev, w, label);
        r = base;
        r.impl = strdup(label);
        time_host_sort(&d->sorter, 1, limit, w, o->runs, &r);
        if (r.runs && clradix_ms > 0 && r.median_ms > clradix_ms)
            r.outside = 1 - clradix_ms / r.median_ms;
        ok &= r.verified && r.runs > 0;
        print_row(add_result(&r));
    }

    if (o->boost) {
        progress(dev, w, "boost");
        r = base;
        r.impl = "boost";
        time_device_sort(1, d, w, NULL, 0, o->runs, dev, &r);
        if (r.runs && clradix_ms > 0)
            r.speedup = r.median_ms / clradix_ms;
        ok &= r.verified;
        print_row(add_result(&r));
    }
    if (o->qsort) {
        r = base;
        r.impl = "qsort";
        if (w->n > o->qsort_max_n) {
            char limit[32];
            snprintf(r.note, sizeof r.note, "left out above %s keys (--qsort-max-n)",
                     size_text(o->qsort_max_n, limit, sizeof limit));
        } else {
            progress(dev, w, "qsort");
            time_qsort(w, o->runs < 5 ? o->runs : 5, &r);
            if (clradix_ms > 0)
                r.speedup = r.median_ms / clradix_ms;
            ok &= r.verified;
        }
        print_row(add_result(&r));
    }
    return ok;
}

static int case_count(const options *o)
{
    return o->type_count * o->value_count * o->size_count * o->dist_count;
}

/* The input of case c, by type, then value size, size and distribution. */
static workload make_workload(const options *o, int c)
{
    const int di = c % o->dist_count, si = c / o->dist_count % o->size_count;
    const int vi = c / (o->dist_count * o->size_count) % o->value_count;
    const int ti = c / (o->dist_count * o->size_count * o->value_count);
    workload w = { o->types[ti], o->sizes[si], o->value_sizes[vi], o->dists[di], NULL, NULL, NULL, NULL, { 0, 0 } };
    const size_t key_bytes = w.n * type_bytes(w.type), value_bytes = w.n * w.value_size;
    w.keys = malloc(key_bytes);
    w.out_keys = malloc(key_bytes);
    w.values = value_bytes ? malloc(value_bytes) : NULL;
    w.out_values = value_bytes ? malloc(value_bytes) : NULL;
    if (!w.keys || !w.out_keys || (value_bytes && (!w.values || !w.out_values))) {
        fprintf(stderr, "clradix-bench: out of host memory for n=%zu\n", w.n);
        exit(1);
    }
    make_keys(w.type, w.dist, w.n, 42 + (uint64_t)w.dist, w.keys);
    if (value_bytes)
        make_values(w.value_size, w.n, w.values);
    w.digest = digest_keys(w.type, w.keys, w.n);
    return w;
}

static void free_workload(workload *w)
{
    free(w->keys);
    free(w->out_keys);
    free(w->values);
    free(w->out_values);
}

/* With several devices: every case as one host sort shared by all of them ('multi'). */
static int run_multi(const options *o, const int *indices, int count)
{
    cl_uint total = 0;
    clradix_device_list(0, NULL, &total);
    cl_device_id *all = malloc(total * sizeof *all);
    clradix_device_list(total, all, &total);
    clradix_sorter *sorters[MAX_ITEMS];
    int ok = 1, made = 0;
    printf("\ndevices");
    for (int i = 0; i < count; ++i)
        printf("%s%d", i ? "+" : " ", indices[i]);
    printf(": one host-array sort shared by all ('multi'; 'outside' against the first device's clradix row)\n");
    print_header();
    for (; made < count && ok; ++made) {
        cl_int err;
        cl_context context = clCreateContext(NULL, 1, &all[indices[made]], NULL, NULL, &err);
        ok = err == CL_SUCCESS && clradix_sorter_create(context, all[indices[made]], &sorters[made]) == CLRADIX_SUCCESS;
        if (err == CL_SUCCESS)
            clReleaseContext(context);  /* the sorter keeps it */
    }
    if (!ok) {
        fprintf(stderr, "clradix-bench: cannot make a sorter on every device for the multi-device sort\n");
        --made;
    }
    for (int c = 0; c < case_count(o) && ok; ++c) {
        workload w = make_workload(o, c);
        ++case_number;
        result r = result_of(0, &w);
        r.impl = "multi";
        fprintf(stderr, "[case %d/%d, %.0f s] devices: multi\n", case_number, case_total, seconds() - start_time);
        time_host_sort(sorters, (unsigned)count, 0, &w, o->runs, &r);
        for (size_t i = 0; i < result_count; ++i) {  /* the first device's device-buffer sort of this case */
            const result *x = &results[i];
            if (x->device == 0 && !strcmp(x->impl, "clradix") && x->type == w.type && x->value_size == w.value_size
                && x->n == w.n && x->dist == w.dist && x->runs && r.runs && r.median_ms > x->median_ms)
                r.outside = 1 - x->median_ms / r.median_ms;
        }
        ok &= r.verified && r.runs > 0;
        print_row(add_result(&r));
        free_workload(&w);
    }
    for (int i = 0; i < made; ++i)
        clradix_sorter_release(sorters[i]);
    free(all);
    return ok;
}

/* A sorter of context and device whose flat sorts run by strategy (0: the device's row;
   else STRATEGY in CLRADIX_TUNING, next to what the caller's environment sets there). */
static clradix_status create_sorter(cl_context context, cl_device_id device, unsigned strategy, clradix_sorter **sorter)
{
    const char *own = getenv("CLRADIX_TUNING");
    char *saved = own ? strdup(own) : NULL, tuning[512];
    if (strategy) {
        snprintf(tuning, sizeof tuning, "%s%sSTRATEGY=%u", saved ? saved : "", saved && *saved ? "," : "", strategy);
        setenv("CLRADIX_TUNING", tuning, 1);
    }
    const clradix_status status = clradix_sorter_create(context, device, sorter);
    if (saved)
        setenv("CLRADIX_TUNING", saved, 1);
    else
        unsetenv("CLRADIX_TUNING");
    free(saved);
    return status;
}

static void release_sorters(device_run *d, int count)
{
    for (int k = 0; k < count; ++k)
        clradix_sorter_release(d->strategy_sorters[k]);  /* accepts NULL */
}

static int run_device(const options *o, int index, device_report *dev, int report)
{
    cl_uint total = 0;
    clradix_device_list(0, NULL, &total);
    cl_device_id *all = malloc(total * sizeof *all);
    clradix_device_list(total, all, &total);
    const cl_device_id device = all[index];
    free(all);

    describe_device(device, index, dev);
    device_run d = { 0 };
    d.report = report;
    cl_int err;
    d.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        d.queue = clCreateCommandQueue(d.context, device, 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clradix-bench: device %d: cannot create a context and queue (OpenCL error %d)\n", index, err);
        return 0;
    }
    clradix_status status = CLRADIX_SUCCESS;
    for (int k = 0; k < o->strategy_count && status == CLRADIX_SUCCESS; ++k) {
        const double t0 = seconds();
        status = create_sorter(d.context, device, o->strategies[k], &d.strategy_sorters[k]);
        if (k == 0)
            dev->create_ms = (seconds() - t0) * 1e3;
    }
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix-bench: device %d: %s\n%s\n", index, clradix_status_string(status),
                clradix_build_log(NULL));
        release_sorters(&d, o->strategy_count);
        return 0;
    }
    d.sorter = d.strategy_sorters[0];
    clradix_sorter_tuning(d.sorter, &dev->tuning);

    size_t largest = 0;
    for (int t = 0; t < o->type_count; ++t)
        for (int s = 0; s < o->size_count; ++s)
            for (int v = 0; v < o->value_count; ++v) {
                const size_t bytes = o->sizes[s] * (type_bytes(o->types[t]) + o->value_sizes[v]);
                largest = bytes > largest ? bytes : largest;
            }
    fprintf(stderr, "device %d: measuring the copy bandwidth\n", index);
    dev->copy_gbps = copy_bandwidth(d.context, device, d.queue, largest > (256u << 20) ? largest : (256u << 20));

    const clradix_tuning *t = &dev->tuning;
    printf("\ndevice %d: %s / %s (%s, %u compute units)\n", index, dev->platform, dev->name, dev->kind,
           dev->compute_units);
    printf("copy kernel %.1f GB/s; sorter creation %.1f ms; tuning RADIX_BITS=%u WG=%u KPT=%u RANK_BITS=%u "
           "GROUPS_PER_CU=%u HIST_COPIES=%u FUSED=%u SMALL_N=%u\n",
           dev->copy_gbps, dev->create_ms, t->radix_bits, t->work_group_size, t->keys_per_item, t->rank_bits,
           t->groups_per_unit, t->hist_copies, t->fused, t->small_n);
    print_header();

    int ok = 1;
    for (int c = 0; c < case_count(o); ++c) {
        workload w = make_workload(o, c);
        ok &= run_case(o, &d, dev, &w);
        free_workload(&w);
    }
    release_sorters(&d, o->strategy_count);
    clReleaseCommandQueue(d.queue);
    clReleaseContext(d.context);
    return ok;
}

int main(int argc, char **argv)
{
    options o;
    int list_only;
    if (!parse_options(argc, argv, &o, &list_only))
        return 2;
    if (list_only)
        return list_devices();
#ifndef CLRADIX_BENCH_BOOST
    if (o.boost)
        fprintf(stderr, "clradix-bench: Boost.Compute baseline not built (install libboost-dev and rebuild)\n");
    o.boost = 0;
#endif

    int indices[MAX_ITEMS], device_count = 0;
    if (!select_devices(&o, indices, &device_count))
        return 1;
    if (o.tune) {
        cl_uint total = 0;
        clradix_device_list(0, NULL, &total);
        cl_device_id *all = malloc(total * sizeof *all);
        clradix_device_list(total, all, &total);
        const int status = tune_device(all[indices[0]], o.types[0], o.value_sizes[0], o.sizes[0], o.runs);
        free(all);
        return status;
    }
    device_report devices[MAX_ITEMS];
    case_total = (device_count + (device_count > 1)) * case_count(&o);
    start_time = seconds();
    int ok = 1;
    for (int i = 0; i < device_count; ++i)
        ok &= run_device(&o, indices[i], &devices[i], i);
    if (device_count > 1)
        ok &= run_multi(&o, indices, device_count);
    fprintf(stderr, "done: %d cases in %.0f s\n", case_number, seconds() - start_time);

    if (o.json_path && !write_json(o.json_path, devices, device_count)) {
        fprintf(stderr, "clradix-bench: cannot write %s\n", o.json_path);
        ok = 0;
    }
    if (o.csv_path && !write_csv(o.csv_path, devices)) {
        fprintf(stderr, "clradix-bench: cannot write %s\n", o.csv_path);
        ok = 0;
    }
    if (!ok) {
        fprintf(stderr, "\nclradix-bench: FAILED: a sort gave a WRONG RESULT or could not run (see above)\n");
        return 1;
    }
    return 0;
}
