/*
 * Per-device kernel parameters: one table of rows, the first matching row wins, default
 * rows last. CLRADIX_TUNING and the caller's clradix_tuning override the row; the result
 * is clamped to the device's work-group limit here, and to local memory per variant
 * when a program is built (program.c).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tuning_row {
    const char *vendor;       /* substring of CL_DEVICE_VENDOR, NULL: any */
    cl_device_type type;      /* CL_DEVICE_TYPE_ALL: any */
    const char *name;         /* substring of CL_DEVICE_NAME, NULL: any */
    radix_params params;      /* radix_bits, wg, kpt, rank_bits, hist_copies, scatter, groups_per_cu, scan_wg */
} tuning_row;

static const tuning_row tuning_table[] = {
    /* CPUs (POCL and others): few long-running work-groups, each streaming one block. */
    { NULL, CL_DEVICE_TYPE_CPU, NULL, { 8, 1, 4096, 8, 1, 1, 1, 64 } },
    /* GPUs: many groups, 8-bit digits ranked in two 4-bit rounds to keep counters small,
       tiles sorted in local memory so that writes coalesce. */
    { NULL, CL_DEVICE_TYPE_GPU, NULL, { 8, 256, 8, 4, 8, 2, 8, 256 } },
    /* Anything else: small, conservative shape. */
    { NULL, CL_DEVICE_TYPE_ALL, NULL, { 4, 64, 4, 4, 4, 2, 4, 64 } },
};

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

/* Checks the overrides in tuning and applies the non-zero ones to params. */
static clradix_status apply_overrides(const clradix_tuning *tuning, radix_params *params)
{
    if (tuning->radix_bits > 8 || tuning->keys_per_item > 65536 || tuning->groups_per_unit > 1024
        || tuning->scatter > 2
        || (tuning->work_group_size && (!is_power_of_two(tuning->work_group_size) || tuning->work_group_size > 65536))
        || (tuning->hist_copies && !is_power_of_two(tuning->hist_copies)))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (tuning->radix_bits)
        params->radix_bits = tuning->radix_bits;
    if (tuning->work_group_size)
        params->wg = tuning->work_group_size;
    if (tuning->keys_per_item)
        params->kpt = tuning->keys_per_item;
    if (tuning->groups_per_unit)
        params->groups_per_cu = tuning->groups_per_unit;
    if (tuning->hist_copies)
        params->hist_copies = tuning->hist_copies;
    if (tuning->scatter)
        params->scatter = tuning->scatter;
    if (tuning->rank_bits) {
        if (tuning->rank_bits > params->radix_bits || (params->scatter == 1 && tuning->rank_bits != params->radix_bits))
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        params->rank_bits = tuning->rank_bits;
    } else if (params->rank_bits > params->radix_bits || params->scatter == 1) {
        params->rank_bits = params->radix_bits;
    }
    return CLRADIX_SUCCESS;
}

/* Parses "NAME=VALUE,NAME=VALUE" (names as the kernels' build options) into tuning. */
static clradix_status parse_tuning(const char *text, clradix_tuning *tuning)
{
    static const struct { const char *name; size_t offset; } fields[] = {
        { "RADIX_BITS", offsetof(clradix_tuning, radix_bits) },
        { "WG", offsetof(clradix_tuning, work_group_size) },
        { "KPT", offsetof(clradix_tuning, keys_per_item) },
        { "RANK_BITS", offsetof(clradix_tuning, rank_bits) },
        { "GROUPS_PER_CU", offsetof(clradix_tuning, groups_per_unit) },
        { "HIST_COPIES", offsetof(clradix_tuning, hist_copies) },
        { "SCATTER", offsetof(clradix_tuning, scatter) },
    };
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
        while (f < sizeof fields / sizeof fields[0]
               && !(strlen(fields[f].name) == name_len && !strncmp(fields[f].name, text, name_len)))
            ++f;
        if (f == sizeof fields / sizeof fields[0])
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        *(unsigned *)((char *)tuning + fields[f].offset) = (unsigned)value;
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

clradix_status tuning_select(const device_limits *limits, cl_device_id device, const clradix_tuning *tuning,
                             radix_params *params)
{
    char vendor[256] = "", name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);

    size_t row = 0;
    while (!matches(&tuning_table[row], limits->type, vendor, name))
        ++row;  /* the last row matches everything */
    *params = tuning_table[row].params;

    const char *env = getenv("CLRADIX_TUNING");
    if (env && *env) {
        clradix_tuning from_env = { 0 };
        clradix_status status = parse_tuning(env, &from_env);
        if (status == CLRADIX_SUCCESS)
            status = apply_overrides(&from_env, params);
        if (status != CLRADIX_SUCCESS)
            return status;
    }
    if (tuning) {
        clradix_status status = apply_overrides(tuning, params);
        if (status != CLRADIX_SUCCESS)
            return status;
    }

    const unsigned max_wg = round_down_pow2(limits->max_wg);
    if (params->wg > max_wg)
        params->wg = max_wg;
    if (params->scan_wg > max_wg)
        params->scan_wg = max_wg;
    if (params->hist_copies > params->wg)
        params->hist_copies = params->wg;
    return CLRADIX_SUCCESS;
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

int tuning_fit(radix_params *params, cl_ulong local_mem, unsigned key_bytes, unsigned value_bytes)
{
    for (;;) {
        const size_t word = sizeof(cl_uint), radix = (size_t)1 << params->radix_bits;
        const size_t histogram = word * params->hist_copies * radix;
        const size_t scatter = params->scatter == 1
            ? word * (radix * params->wg + 2 * radix)
            : (size_t)params->wg * params->kpt * (key_bytes + value_bytes)
                  + word * (((size_t)1 << params->rank_bits) * params->wg + 3 * radix);
        const size_t scan = word * 2 * params->scan_wg;
        if (histogram > local_mem) {
            if (params->hist_copies == 1)
                return 0;
            params->hist_copies /= 2;
        } else if (scatter > local_mem) {
            if (params->scatter == 2 && params->kpt > 1)
                params->kpt /= 2;  /* a smaller tile */
            else if (!tuning_halve_wg(params, 0))
                return 0;
        } else if (scan > local_mem) {
            if (!tuning_halve_wg(params, 1))
                return 0;
        } else {
            return 1;
        }
    }
}
