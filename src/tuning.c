/*
 * Per-device kernel parameters: one table of rows, the first matching row wins, default
 * rows last. CLRADIX_TUNING and the caller's clradix_tuning override the row; the result
 * is clamped to the device's work-group limit here, and to local memory per variant
 * when a program is built (program.c).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { FUSED_GROUPS_MAX = 64 };  /* FUSED keeps RADIX counters per group in local memory */

typedef struct tuning_row {
    const char *vendor;       /* substring of CL_DEVICE_VENDOR, NULL: any */
    cl_device_type type;      /* CL_DEVICE_TYPE_ALL: any */
    const char *name;         /* substring of CL_DEVICE_NAME, NULL: any */
    clradix_tuning params;    /* every field set; fused and small_n as in clradix_tuning */
    const char *devices;      /* the match, in words */
} tuning_row;

/* Fields: radix_bits, work_group_size, keys_per_item, rank_bits, groups_per_unit,
   hist_copies, fused (1 no, 2 yes), small_n (1: none). */
static const tuning_row tuning_table[] = {
    /* CPUs: one work-item per group and compute unit, each streaming a long block in tiles
       that fit the caches; POCL runs a work-group on one thread. Measured on POCL 3.1. */
    { NULL, CL_DEVICE_TYPE_CPU, NULL, { 8, 1, 65536, 8, 1, 1, 2, 65536 }, "CPUs" },
    /* GPUs (published designs: 8-bit digits, 256 work-items, many groups), ranked in two
       4-bit rounds to keep the counters small; tiles of 2048 keys, so that 32-bit keys run
       exactly this shape in 48 KiB of local memory (NVIDIA's limit per group; AMD and
       Intel have 64). Other variants use smaller tiles where they must: README.md lists
       them. Not yet measured on a GPU. */
    { "NVIDIA", CL_DEVICE_TYPE_GPU, NULL, { 8, 256, 8, 4, 8, 4, 1, 2048 }, "NVIDIA GPUs" },
    { "Advanced Micro Devices", CL_DEVICE_TYPE_GPU, NULL, { 8, 256, 8, 4, 8, 4, 1, 2048 }, "AMD GPUs" },
    { "Intel", CL_DEVICE_TYPE_GPU, NULL, { 8, 256, 8, 4, 8, 4, 1, 2048 }, "Intel GPUs" },
    /* Other GPUs: 32-bit keys as given in 32 KiB. */
    { NULL, CL_DEVICE_TYPE_GPU, NULL, { 8, 128, 8, 4, 8, 2, 1, 1024 }, "other GPUs" },
    /* Anything else: small, conservative shape. */
    { NULL, CL_DEVICE_TYPE_ALL, NULL, { 4, 64, 4, 4, 4, 2, 1, 256 }, "any other device" },
};

/* The fields of clradix_tuning in version 1.0, by their CLRADIX_TUNING names. The calls
   read and write these and no others, so that a caller's struct from an older header is
   never read or written past its end (see clradix.h). */
static const struct { const char *name; size_t offset; } tuning_fields[] = {
    { "RADIX_BITS", offsetof(clradix_tuning, radix_bits) },
    { "WG", offsetof(clradix_tuning, work_group_size) },
    { "KPT", offsetof(clradix_tuning, keys_per_item) },
    { "RANK_BITS", offsetof(clradix_tuning, rank_bits) },
    { "GROUPS_PER_CU", offsetof(clradix_tuning, groups_per_unit) },
    { "HIST_COPIES", offsetof(clradix_tuning, hist_copies) },
    { "FUSED", offsetof(clradix_tuning, fused) },
    { "SMALL_N", offsetof(clradix_tuning, small_n) },
};
enum { TUNING_FIELDS = sizeof tuning_fields / sizeof tuning_fields[0] };

static unsigned *tuning_field(clradix_tuning *tuning, size_t f)
{
    return (unsigned *)((char *)tuning + tuning_fields[f].offset);
}

static unsigned tuning_value(const clradix_tuning *tuning, size_t f)
{
    return *(const unsigned *)((const char *)tuning + tuning_fields[f].offset);
}

clradix_status clradix_tuning_row(unsigned index, clradix_tuning *tuning, const char **devices)
{
    if (!tuning || index >= sizeof tuning_table / sizeof tuning_table[0])
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    for (size_t f = 0; f < TUNING_FIELDS; ++f)
        *tuning_field(tuning, f) = tuning_value(&tuning_table[index].params, f);
    if (devices)
        *devices = tuning_table[index].devices;
    return CLRADIX_SUCCESS;
}

static int matches(const tuning_row *row, cl_device_type type, const char *vendor, const char *name)
{
    return (row->type == CL_DEVICE_TYPE_ALL || (row->type & type))
        && (!row->vendor || strstr(vendor, row->vendor))
        && (!row->name || strstr(name, row->name));
}

static int is_power_of_two(unsigned v)
{
    return v && !(v & (v - 1));
}

/* Checks the overrides in tuning and copies the non-zero ones into row. */
static clradix_status apply_overrides(const clradix_tuning *tuning, clradix_tuning *row)
{
    if (tuning->radix_bits > 8 || tuning->keys_per_item > 65536 || tuning->groups_per_unit > 1024
        || tuning->fused > 2 || tuning->small_n > 65536 || (tuning->small_n > 1 && !is_power_of_two(tuning->small_n))
        || (tuning->work_group_size && (!is_power_of_two(tuning->work_group_size) || tuning->work_group_size > 65536))
        || (tuning->hist_copies && !is_power_of_two(tuning->hist_copies)))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    for (size_t f = 0; f < TUNING_FIELDS; ++f)
        if (tuning_value(tuning, f))
            *tuning_field(row, f) = tuning_value(tuning, f);
    if (tuning->rank_bits && tuning->rank_bits > row->radix_bits)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (row->rank_bits > row->radix_bits)
        row->rank_bits = row->radix_bits;
    return CLRADIX_SUCCESS;
}

/* Parses "NAME=VALUE,NAME=VALUE" (names as the kernels' build options) into tuning. */
static clradix_status parse_tuning(const char *text, clradix_tuning *tuning)
{
    while (*text) {
        const char *eq = strchr(text, '=');
        if (!eq)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        size_t name_len = (size_t)(eq - text);
        char *end;
        unsigned long value = strtoul(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ',') || value == 0 || value > 65536)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        size_t f = 0;
        while (f < TUNING_FIELDS
               && !(strlen(tuning_fields[f].name) == name_len && !strncmp(tuning_fields[f].name, text, name_len)))
            ++f;
        if (f == TUNING_FIELDS)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        *tuning_field(tuning, f) = (unsigned)value;
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
static void params_from(const clradix_tuning *chosen, const device_limits *limits, radix_params *params)
{
    const unsigned max_wg = round_down_pow2(limits->max_wg);
    params->radix_bits = chosen->radix_bits;
    params->rank_bits = chosen->rank_bits;
    params->wg = chosen->work_group_size < max_wg ? chosen->work_group_size : max_wg;
    params->kpt = chosen->keys_per_item;
    params->groups_per_cu = chosen->groups_per_unit;
    params->hist_copies = chosen->hist_copies < params->wg ? chosen->hist_copies : params->wg;
    params->max_groups = limits->compute_units * chosen->groups_per_unit;
    params->fused = chosen->fused == 2 && params->max_groups <= FUSED_GROUPS_MAX;
    params->small_n = chosen->small_n > 1 ? chosen->small_n : 0;
    params->scan_wg = 256 < max_wg ? 256 : max_wg;
}

clradix_status tuning_select(const device_limits *limits, cl_device_id device, const clradix_tuning *tuning,
                             radix_params *params)
{
    char vendor[256] = "", name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);

    size_t row = 0;
    while (!matches(&tuning_table[row], limits->type, vendor, name))
        ++row;  /* the last row matches everything */
    clradix_tuning chosen = tuning_table[row].params;

    const char *env = getenv("CLRADIX_TUNING");
    if (env && *env) {
        clradix_tuning from_env = { 0 };
        clradix_status status = parse_tuning(env, &from_env);
        if (status == CLRADIX_SUCCESS)
            status = apply_overrides(&from_env, &chosen);
        if (status != CLRADIX_SUCCESS)
            return status;
    }
    if (tuning) {
        clradix_status status = apply_overrides(tuning, &chosen);
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

int tuning_halve_wg(radix_params *params, int scan_kernel)
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

static local_needs local_needs_of(const radix_params *params, unsigned key_bytes, unsigned value_bytes)
{
    const size_t word = sizeof(cl_uint), item = key_bytes + value_bytes;
    const size_t radix = (size_t)1 << params->radix_bits, rank_radix = (size_t)1 << params->rank_bits;
    const size_t passes = (8 * key_bytes + params->radix_bits - 1) / params->radix_bits;
    const unsigned wg = params->wg;
    const size_t counters = padded(rank_radix * wg, wg);
    local_needs needs;
    needs.histogram = word * params->hist_copies * (passes * radix + 1);  /* radix_histogram_all */
    needs.scatter = 2 * padded((size_t)wg * params->kpt, wg) * item
        + word * (counters + radix + padded(radix, wg) + 1 + (params->fused ? radix * params->max_groups : 0));
    needs.small = params->small_n ? 2 * padded(params->small_n, wg) * item + word * (counters + 1) : 0;
    needs.scan = word * padded(2 * (size_t)params->scan_wg, wg);
    return needs;
}

int tuning_fit(radix_params *params, cl_ulong local_mem, unsigned key_bytes, unsigned value_bytes)
{
    for (;;) {
        const local_needs needs = local_needs_of(params, key_bytes, value_bytes);
        if (needs.histogram > local_mem) {
            if (params->hist_copies == 1)
                return 0;
            params->hist_copies /= 2;
        } else if (needs.scatter > local_mem) {
            if (params->kpt > 1)
                params->kpt /= 2;  /* a smaller tile */
            else if (params->fused)
                params->fused = 0;
            else if (!tuning_halve_wg(params, 0))
                return 0;
        } else if (needs.small > local_mem) {
            params->small_n = params->small_n / 2 >= params->wg ? params->small_n / 2 : 0;
        } else if (needs.scan > local_mem) {
            if (!tuning_halve_wg(params, 1))
                return 0;
        } else {
            return 1;
        }
    }
}

#ifdef CLRADIX_TESTING
clradix_status clradix_testing_fit(const clradix_tuning *row, cl_ulong local_mem, size_t max_wg, cl_uint compute_units,
                                   unsigned key_bytes, unsigned value_bytes, clradix_tuning *shape,
                                   size_t *local_bytes)
{
    clradix_tuning chosen = tuning_table[0].params;
    clradix_status status = apply_overrides(row, &chosen);
    if (status != CLRADIX_SUCCESS)
        return status;
    device_limits limits = { 0 };
    limits.local_mem = local_mem;
    limits.max_wg = max_wg;
    limits.compute_units = compute_units;
    radix_params params;
    params_from(&chosen, &limits, &params);
    if (!tuning_fit(&params, local_mem, key_bytes, value_bytes))
        return CLRADIX_ERROR_UNSUPPORTED;
    tuning_report(&params, shape);
    const local_needs needs = local_needs_of(&params, key_bytes, value_bytes);
    size_t most = needs.histogram;
    const size_t others[] = { needs.scatter, needs.small, needs.scan };
    for (int i = 0; i < 3; ++i)
        most = others[i] > most ? others[i] : most;
    *local_bytes = most;
    return CLRADIX_SUCCESS;
}
#endif
