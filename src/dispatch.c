/*
 * Pass planning and launching. Small arrays go to one kernel that sorts them in local
 * memory. Otherwise the keys are split into one contiguous block per work-group, and the
 * sort is enqueued as: one read that counts the digits of every pass (radix_histogram_all),
 * the plan of which passes move data (radix_trivial, radix_plan, on the device), then per
 * pass the count table (radix_histogram, unless the first read or the scatter before
 * counted it), its scan in one launch (radix_scan_pass) and the scatter, and a final copy
 * back when the result ends in the temporaries; segmented sorts, and flat ones whose
 * strategy partitions first, go to the engine (segments.c). Everything that depends on the
 * data is decided by the kernels, so this code never waits for the device. Every command
 * waits on the previous one's event, so in-order and out-of-order queues behave the same.
 */
#include "internal.h"

#include <stdint.h>

typedef struct sort_plan {
    size_t tile;                          /* keys per tile: WG * KPT */
    cl_uint groups;                       /* work-groups (= blocks) of histogram and scatter */
    cl_uint block_len;                    /* keys per block */
    cl_uint copy_groups;                  /* work-groups of radix_copy_back */
} sort_plan;

enum { COPY_KEYS_PER_ITEM = 16 };  /* radix_copy_back: most keys a work-item copies */

/* 0 when the device's loop budget (loops.c) cannot run the sort. */
static int plan_sort(const radix_params *params, const device_limits *limits, const sort_request *r,
                     sort_plan *plan)
{
    const size_t n = r->n;
    plan->tile = (size_t)params->wg * params->kpt;
    const size_t tiles = (n + plan->tile - 1) / plan->tile;
    size_t max_groups = (size_t)limits->compute_units * params->groups_per_cu;
    if (max_groups < 1)
        max_groups = 1;
    size_t tiles_per_block = (tiles + max_groups - 1) / max_groups;
    /* Where loops stop early, as many more blocks as keep each block's loops within it. */
    const cl_ulong allowed = loops_allowed(limits), most_tiles = loops_lsd_tiles(params, r->key_bytes, allowed);
    if (most_tiles < tiles_per_block)
        tiles_per_block = (size_t)most_tiles;
    if (tiles_per_block == 0)
        return 0;
    plan->groups = (cl_uint)((tiles + tiles_per_block - 1) / tiles_per_block);
    /* With several blocks, block_len * (groups - 1) < n keeps it within 32 bits. */
    plan->block_len = plan->groups == 1 ? (cl_uint)n : (cl_uint)(tiles_per_block * plan->tile);

    plan->copy_groups = (cl_uint)groups_for(n, (size_t)params->scan_wg * COPY_KEYS_PER_ITEM);
    /* radix_trivial sums a digit's counts over the blocks in one work-item, radix_scan_pass
       a share of the table (each entry a sum over the blocks with FUSED) twice. */
    const cl_ulong table = (cl_ulong)plan->groups << params->radix_bits;
    const cl_ulong share = (table + params->scan_wg - 1) / params->scan_wg * (params->fused ? plan->groups : 1);
    return plan->groups < allowed && 2 * share + 64 < allowed;
}

/* The bytes of each temporary buffer that a multi-pass sort needs. */
static void scratch_needs(const radix_params *params, const sort_plan *plan, const sort_request *r, unsigned passes,
                          size_t bytes[SCRATCH_SLOTS])
{
    const size_t word = sizeof(cl_uint), radix = (size_t)1 << params->radix_bits, table = radix * plan->groups;
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        bytes[i] = 0;
    bytes[SCRATCH_KEYS] = r->keys_size;
    if (r->argsort && passes > 1)
        bytes[SCRATCH_KEYS_2] = r->keys_size;
    bytes[SCRATCH_VALUES] = r->values_size;  /* (by size: a host sort's estimate has no buffers yet) */
    bytes[SCRATCH_TABLE_ALL] = passes * table * word;
    if (params->fused)
        bytes[SCRATCH_PARTIALS] = plan->groups * table * word;
    /* The plan's layout is the variant's (PASSES: every pass of the key width), whatever
       the bit range (see PLAN_* in cl/common.cl). */
    const size_t most_passes = (8 * (size_t)r->key_bytes + params->radix_bits - 1) / params->radix_bits;
    bytes[SCRATCH_PLAN] = (1 + 2 * most_passes + most_passes * radix) * word;
    bytes[SCRATCH_LEVELS] = table * word;  /* each pass's count table, scanned in place */
}

/* Digit passes of a sort of r with radix_bits-bit digits. */
static unsigned passes_of(const sort_request *r, unsigned radix_bits)
{
    return r->n ? (r->end_bit - r->begin_bit + radix_bits - 1) / radix_bits : 0;
}

/* The plan of r's multi-pass sort with p, and the bytes of each temporary it needs;
   returns their sum, or 0 when the device cannot run that sort (a loop budget too small). */
static cl_ulong plan_temporaries(const clradix_sorter *sorter, const radix_program *p, const sort_request *r,
                                 unsigned passes, sort_plan *plan, size_t bytes[SCRATCH_SLOTS])
{
    if (!plan_sort(&p->params, &sorter->limits, r, plan))
        return 0;
    scratch_needs(&p->params, plan, r, passes, bytes);
    return scratch_total(bytes);
}

/* The program that sorts r: NULL when nothing needs one; the engine for segmented sorts
   and for flat ones past small_n of more than two passes whose strategy partitions first;
   else the LSD passes (with one or two passes, as for 8- and 16-bit keys, partitioning
   first saves no pass: on POCL pthread at 2^24 keys LSD passes were 2.1x faster for u8
   and 1.4x for u16). */
static clradix_status choose_program(clradix_sorter *sorter, const sort_request *r, unsigned passes,
                                     radix_program **p)
{
    const unsigned value_bytes = (unsigned)r->value_size;  /* 0 for keys alone */
    const key_variant keys = { r->key_bytes, r->numpy_order, record_variant(r->record) };
    *p = NULL;
    if (r->n == 0 || (passes == 0 && !r->argsort) || (r->segmented && r->num_segments == 0))
        return CLRADIX_SUCCESS;
    if (!r->segmented) {
        clradix_status status = program_get(sorter, PROGRAM_LSD, keys, value_bytes, p);
        if (status != CLRADIX_SUCCESS || r->n <= (*p)->params.small_n || passes <= 2
            || sorter->params.strategy != STRATEGY_PARTITION)
            return status;
    }
    return program_get(sorter, PROGRAM_SEGMENTS, keys, value_bytes, p);
}

clradix_status dispatch_temporary_bytes(clradix_sorter *sorter, const sort_request *r, cl_ulong *bytes)
{
    const unsigned passes = passes_of(r, sorter->params.radix_bits);
    radix_program *p;
    clradix_status status = choose_program(sorter, r, passes, &p);
    *bytes = 0;
    if (status != CLRADIX_SUCCESS || !p)
        return status;
    if (p->kind == PROGRAM_SEGMENTS) {
        *bytes = segments_temporary_bytes(sorter, p, r);
    } else if (r->n > p->params.small_n && passes > 0) {  /* else one launch, or nothing to sort */
        sort_plan plan;
        size_t needs[SCRATCH_SLOTS];
        *bytes = plan_temporaries(sorter, p, r, passes, &plan, needs);
        if (*bytes == 0)
            *bytes = ~(cl_ulong)0;  /* fits no device memory either */
    }
    return CLRADIX_SUCCESS;
}

int dispatch_takes_keys_in_values(clradix_sorter *sorter, const sort_request *r)
{
    radix_program *p;
    return r->values && !r->argsort && !r->segmented && r->value_size % r->key_bytes == 0
        && choose_program(sorter, r, passes_of(r, sorter->params.radix_bits), &p) == CLRADIX_SUCCESS && p
        && p->kind == PROGRAM_SEGMENTS && segments_takes_keys_in_values(sorter, p, r);
}

/* Sorts n <= small_n keys with one kernel; argsort fills the values with indices first. */
static cl_int enqueue_small(chain *c, const radix_program *p, const sort_request *r, const key_args *k)
{
    const cl_uint n = (cl_uint)r->n, argsort = (cl_uint)r->argsort, buffers = r->values ? 2 : 1;
    cl_int err = set_args(p->sort_small, buffers, ARG(r->keys), ARG(r->values));
    if (err == CL_SUCCESS)
        err = set_args_at(p->sort_small, buffers, 7, ARG(n), ARG(k->begin_bit), ARG(k->end_bit), KEY_ORDER_ARGS(k),
                          ARG(argsort));
    return err == CL_SUCCESS ? chain_kernel(c, p->sort_small, 1, p->params.wg) : err;
}

/* Argsort: the values start as the indices 0 .. n-1. */
static cl_int enqueue_iota(chain *c, const radix_program *p, cl_mem values, cl_uint n)
{
    const size_t wg = p->params.scan_wg;
    cl_int err = set_args(p->iota, 2, ARG(values), ARG(n));
    return err == CL_SUCCESS ? chain_kernel(c, p->iota, groups_for(n, wg), wg) : err;
}

/*
 * The buffers the passes choose from (see SOURCE and TARGET in cl/common.cl): executed
 * pass 0 reads `input`, later ones read what the one before wrote; even ones write
 * `first`, odd ones `second`. A sort in place has second = input = the caller's buffer,
 * so an even number of executed passes ends there; otherwise radix_copy_back copies
 * `first` back. Argsort only reads the caller's keys (first and second are
 * temporaries); its indices start in the caller's buffer like any values.
 */
typedef struct pass_buffers {
    cl_mem input, first, second;
    cl_mem input_values, first_values, second_values;
} pass_buffers;

static void pass_buffers_for(const sort_request *r, const scratch *s, pass_buffers *b)
{
    b->input = r->keys;
    b->first = s->buffer[SCRATCH_KEYS];
    b->second = !r->argsort ? r->keys : s->buffer[SCRATCH_KEYS_2] ? s->buffer[SCRATCH_KEYS_2] : b->first;
    b->input_values = b->second_values = r->values;
    b->first_values = s->buffer[SCRATCH_VALUES];
}

/* The whole multi-pass sort of r with the plan's groups. */
static cl_int enqueue_passes(chain *c, const radix_program *p, const sort_plan *plan, const sort_request *r,
                             const key_args *k, unsigned passes, const scratch *s)
{
    pass_buffers b;
    pass_buffers_for(r, s, &b);
    const cl_uint n = (cl_uint)r->n, groups = plan->groups, copy_keys = !r->argsort;
    const cl_uint passes32 = passes;
    const size_t radix = (size_t)1 << p->params.radix_bits;
    const cl_mem table_all = s->buffer[SCRATCH_TABLE_ALL];
    const cl_mem plan_buffer = s->buffer[SCRATCH_PLAN], table = s->buffer[SCRATCH_LEVELS];
    const cl_mem partials = s->buffer[SCRATCH_PARTIALS];  /* NULL unless FUSED */

    cl_int err = CL_SUCCESS;
    if (r->argsort)
        err = enqueue_iota(c, p, r->values, n);
    if (err == CL_SUCCESS)
        err = set_args(p->histogram_all, 9, ARG(b.input), ARG(n), ARG(plan->block_len), ARG(k->begin_bit),
                       ARG(k->end_bit), KEY_ORDER_ARGS(k), ARG(table_all));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->histogram_all, groups, p->params.wg);
    if (err == CL_SUCCESS)
        err = set_args(p->trivial, 5, ARG(table_all), ARG(n), ARG(passes32), ARG(groups), ARG(plan_buffer));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->trivial, groups_for(passes * radix, p->params.scan_wg), p->params.scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->plan, 2, ARG(passes32), ARG(plan_buffer));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->plan, 1, p->params.scan_wg);

    for (cl_uint pass = 0; pass < passes && err == CL_SUCCESS; ++pass) {
        /* Pass 0 is the first to move data or skipped: radix_histogram_all counted for it. */
        if (pass > 0 && !p->params.fused) {
            err = set_args(p->histogram, 12, ARG(b.first), ARG(b.second), ARG(n), ARG(plan->block_len), ARG(pass),
                           ARG(k->begin_bit), ARG(k->end_bit), KEY_ORDER_ARGS(k),
                           ARG(plan_buffer), ARG(table));
            if (err == CL_SUCCESS)
                err = chain_kernel(c, p->histogram, groups, p->params.wg);
        }
        if (err == CL_SUCCESS)
            err = set_args(p->scan_pass, 6, ARG(pass), ARG(groups), ARG(plan_buffer), ARG(table_all), ARG(partials),
                           ARG(table));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scan_pass, 1, p->params.scan_wg);

        /* The buffers a pass may use (values too when they move), then the rest. */
        const cl_uint buffer_args = r->values ? 6 : 3;
        if (err == CL_SUCCESS)
            err = set_args(p->scatter, buffer_args, ARG(b.input), ARG(b.first), ARG(b.second), ARG(b.input_values),
                           ARG(b.first_values), ARG(b.second_values));
        if (err == CL_SUCCESS)
            err = set_args_at(p->scatter, buffer_args, 11, ARG(n), ARG(plan->block_len), ARG(pass), ARG(k->begin_bit),
                              ARG(k->end_bit), KEY_ORDER_ARGS(k), ARG(plan_buffer),
                              ARG(table), ARG(partials));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scatter, groups, p->params.wg);
    }

    if (err == CL_SUCCESS)
        err = set_args(p->copy_back, r->values ? 7 : 5, ARG(plan_buffer), ARG(n), ARG(copy_keys), ARG(b.first),
                       ARG(r->keys), ARG(b.first_values), ARG(r->values));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->copy_back, plan->copy_groups, p->params.scan_wg);
    return err;
}

/* Enqueues the sort with program p (NULL when nothing needs one), whose kernels this sort
   alone uses meanwhile. */
static clradix_status enqueue_sort(clradix_sorter *sorter, chain *c, const radix_program *p, const sort_request *r,
                                   unsigned passes)
{
    if (!p)
        return CLRADIX_SUCCESS;  /* nothing to do */
    if (p->kind == PROGRAM_SEGMENTS)
        return enqueue_segments(sorter, c, p, r);
    key_args k;
    make_key_args(r, &k);
    if (r->n <= p->params.small_n)
        return status_from_cl(enqueue_small(c, p, r, &k));
    if (passes == 0)  /* nothing to sort; argsort still writes the indices */
        return status_from_cl(enqueue_iota(c, p, r->values, (cl_uint)r->n));

    sort_plan plan;
    size_t bytes[SCRATCH_SLOTS];
    if (!plan_temporaries(sorter, p, r, passes, &plan, bytes))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;  /* a table too large to scan, or loops too long for the device */
    scratch *s;
    clradix_status status = scratch_of_request(sorter, r, bytes, &s);
    if (status != CLRADIX_SUCCESS)
        return status;
    const cl_int err = enqueue_passes(c, p, &plan, r, &k, passes, s);
    scratch_done(sorter, r, s, c->last);  /* reused once this sort is over */
    return status_from_cl(err);
}

clradix_status dispatch_sort(clradix_sorter *sorter, cl_command_queue queue, const sort_request *r,
                             cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    int enqueued;
    return dispatch_sort_tracked(sorter, queue, r, num_wait, wait_list, event, &enqueued);
}

clradix_status dispatch_sort_tracked(clradix_sorter *sorter, cl_command_queue queue, const sort_request *r,
                                     cl_uint num_wait, const cl_event *wait_list, cl_event *event, int *enqueued)
{
    *enqueued = 0;
    const unsigned passes = passes_of(r, sorter->params.radix_bits);  /* radix_bits: the same in every variant */
    if (r->keys_size > sorter->limits.max_alloc || r->values_size > sorter->limits.max_alloc)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    radix_program *p;
    clradix_status status = choose_program(sorter, r, passes, &p);
    if (status != CLRADIX_SUCCESS)
        return status;

    chain c = { queue, num_wait, wait_list, NULL, 0 };
    radix_program *kernels = p ? program_kernels_take(sorter, p, &status) : NULL;
    if (status == CLRADIX_SUCCESS)
        status = enqueue_sort(sorter, &c, kernels, r, passes);
    program_kernels_return(sorter, p, kernels);
    status = chain_hand_over(&c, status, event);
    *enqueued = c.tried;  /* every command goes through the chain, the marker of a sort of nothing too */
    return status;
}
