/*
 * Pass planning and launching: splits the keys into one contiguous block per
 * work-group, allocates the temporary buffers, and enqueues per digit pass the
 * histogram, the multi-level table scan and the scatter, ping-ponging between the
 * caller's buffers and the temporary ones. Every command waits on the previous one's
 * event, so in-order and out-of-order queues behave the same.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdint.h>

enum { MAX_SCAN_LEVELS = 8 };

typedef struct sort_plan {
    size_t tile;                          /* keys per tile: WG * KPT */
    cl_uint groups;                       /* work-groups (= blocks) of histogram and scatter */
    cl_uint block_len;                    /* keys per block */
    unsigned levels;                      /* scan levels */
    cl_uint level_count[MAX_SCAN_LEVELS]; /* entries scanned at each level; level 0 is the table */
    cl_uint level_groups[MAX_SCAN_LEVELS];
} sort_plan;

static void plan_sort(const radix_params *params, const device_limits *limits, size_t n, sort_plan *plan)
{
    plan->tile = (size_t)params->wg * params->kpt;
    const size_t tiles = (n + plan->tile - 1) / plan->tile;
    size_t max_groups = (size_t)limits->compute_units * params->groups_per_cu;
    if (max_groups < 1)
        max_groups = 1;
    const size_t tiles_per_block = (tiles + max_groups - 1) / max_groups;
    plan->groups = (cl_uint)((tiles + tiles_per_block - 1) / tiles_per_block);
    /* With several blocks, block_len * (groups - 1) < n keeps it within 32 bits. */
    plan->block_len = plan->groups == 1 ? (cl_uint)n : (cl_uint)(tiles_per_block * plan->tile);

    const size_t scan_tile = 2 * (size_t)params->scan_wg;
    size_t count = (size_t)plan->groups << params->radix_bits;
    plan->levels = 0;
    for (;;) {
        plan->level_count[plan->levels] = (cl_uint)count;
        plan->level_groups[plan->levels] = (cl_uint)((count + scan_tile - 1) / scan_tile);
        count = plan->level_groups[plan->levels++];
        if (count == 1 || plan->levels == MAX_SCAN_LEVELS)
            break;
    }
}

clradix_status status_from_cl(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return CLRADIX_SUCCESS;
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE: return CLRADIX_ERROR_OUT_OF_RESOURCES;
    default: return CLRADIX_ERROR_OPENCL;
    }
}

/* Sets count kernel arguments, given as (size_t size, const void *value) pairs. */
static cl_int set_args(cl_kernel kernel, cl_uint count, ...)
{
    va_list ap;
    va_start(ap, count);
    cl_int err = CL_SUCCESS;
    for (cl_uint i = 0; i < count && err == CL_SUCCESS; ++i) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        err = clSetKernelArg(kernel, i, size, value);
    }
    va_end(ap);
    return err;
}
#define ARG(x) sizeof(x), (const void *)&(x)

/* The commands of one sort, each waiting on the one before (the first on the caller's list). */
typedef struct chain {
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait_list;
    cl_event last;
} chain;

static cl_uint chain_wait_count(const chain *c) { return c->last ? 1 : c->num_wait; }
static const cl_event *chain_wait_list(const chain *c) { return c->last ? &c->last : c->wait_list; }

static cl_int chain_push(chain *c, cl_int err, cl_event event)
{
    if (err != CL_SUCCESS)
        return err;
    if (c->last)
        clReleaseEvent(c->last);
    c->last = event;
    return CL_SUCCESS;
}

static cl_int chain_kernel(chain *c, cl_kernel kernel, size_t groups, size_t wg)
{
    const size_t global = groups * wg;
    cl_event event = NULL;
    cl_int err = clEnqueueNDRangeKernel(c->queue, kernel, 1, NULL, &global, &wg, chain_wait_count(c),
                                        chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

static cl_int chain_copy(chain *c, cl_mem from, cl_mem to, size_t bytes)
{
    cl_event event = NULL;
    cl_int err = clEnqueueCopyBuffer(c->queue, from, to, 0, 0, bytes, chain_wait_count(c), chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

static cl_int chain_marker(chain *c)
{
    cl_event event = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(c->queue, chain_wait_count(c), chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

/* XOR masks that map keys of type to their order-preserving unsigned image (see digit_of). */
static void key_transform(clradix_key_type type, int descending, cl_ulong *pos_xor, cl_ulong *neg_xor)
{
    const int wide = type == CLRADIX_U64 || type == CLRADIX_I64 || type == CLRADIX_F64;
    const cl_ulong all = wide ? ~(cl_ulong)0 : 0xFFFFFFFFu, sign = wide ? (cl_ulong)1 << 63 : 0x80000000u;
    *pos_xor = *neg_xor = 0;
    if (type == CLRADIX_I32 || type == CLRADIX_I64)
        *pos_xor = *neg_xor = sign;
    else if (type == CLRADIX_F32 || type == CLRADIX_F64) {
        *pos_xor = sign;
        *neg_xor = all;
    }
    if (descending) {
        *pos_xor ^= all;
        *neg_xor ^= all;
    }
}

/* The temporary buffers of one sort. */
typedef struct scratch {
    cl_mem keys[2], values;
    cl_mem levels[MAX_SCAN_LEVELS];  /* levels[0] is the digit table, levels[i] the tile sums of level i-1 */
    cl_mem top;                      /* tile sums of the last level (its single total) */
} scratch;

static void release_all(cl_mem *buffers, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
}

static void scratch_release(scratch *s)
{
    release_all(s->keys, 2);
    release_all(&s->values, 1);
    release_all(s->levels, MAX_SCAN_LEVELS);
    release_all(&s->top, 1);
}

static cl_int scratch_alloc(cl_context context, const sort_plan *plan, unsigned key_buffers, size_t key_bytes,
                            size_t value_bytes, scratch *s)
{
    cl_int err = CL_SUCCESS;
    for (unsigned i = 0; i < key_buffers && err == CL_SUCCESS; ++i)
        s->keys[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, key_bytes, NULL, &err);
    if (err == CL_SUCCESS && value_bytes)
        s->values = clCreateBuffer(context, CL_MEM_READ_WRITE, value_bytes, NULL, &err);
    for (unsigned i = 0; i < plan->levels && err == CL_SUCCESS; ++i)
        s->levels[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, plan->level_count[i] * sizeof(cl_uint), NULL, &err);
    if (err == CL_SUCCESS)
        s->top = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    return err;
}

/* Exclusive scan of s->levels[0] in place, level by level. */
static cl_int enqueue_scan(chain *c, const radix_program *p, const sort_plan *plan, const scratch *s)
{
    cl_int err = CL_SUCCESS;
    for (unsigned i = 0; i < plan->levels && err == CL_SUCCESS; ++i) {
        const cl_mem sums = i + 1 < plan->levels ? s->levels[i + 1] : s->top;
        err = set_args(p->scan, 3, ARG(s->levels[i]), ARG(plan->level_count[i]), ARG(sums));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scan, plan->level_groups[i], p->params.scan_wg);
    }
    for (unsigned i = plan->levels - 1; i-- > 0 && err == CL_SUCCESS;) {
        err = set_args(p->scan_add, 3, ARG(s->levels[i]), ARG(plan->level_count[i]), ARG(s->levels[i + 1]));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scan_add, plan->level_groups[i], p->params.scan_wg);
    }
    return err;
}

/* Argsort: the values start as the indices 0 .. n-1. */
static cl_int enqueue_iota(chain *c, const radix_program *p, cl_mem values, cl_uint n)
{
    const size_t wg = p->params.scan_wg, groups = (n + wg - 1) / wg < 1024 ? (n + wg - 1) / wg : 1024;
    cl_int err = set_args(p->iota, 2, ARG(values), ARG(n));
    return err == CL_SUCCESS ? chain_kernel(c, p->iota, groups, wg) : err;
}

/*
 * Where each pass reads and writes. Pass p writes keys[p % 2] and values[p % 2] and
 * reads what pass p - 1 wrote; pass 0 reads first_keys and values[1]. A sort in place
 * has keys = { temporary, caller's } and first_keys = the caller's, so an even number of
 * passes ends in the caller's buffers. Argsort reads the caller's keys without writing
 * them (keys = two temporaries) and places the indices so that the last pass writes the
 * caller's buffer.
 */
typedef struct pass_buffers {
    cl_mem first_keys, keys[2], values[2];
} pass_buffers;

static void plan_buffers(const sort_request *r, unsigned passes, const scratch *s, pass_buffers *b)
{
    if (r->argsort) {
        b->first_keys = r->keys;
        b->keys[0] = s->keys[0];
        b->keys[1] = s->keys[1];
        b->values[(passes + 1) % 2] = r->values;  /* the last pass, passes - 1, writes the caller's */
        b->values[passes % 2] = s->values;
    } else {
        b->first_keys = r->keys;
        b->keys[0] = s->keys[0];
        b->keys[1] = r->keys;
        b->values[0] = s->values;
        b->values[1] = r->values;
    }
}

/* Enqueues the passes over bits [begin_bit, end_bit). */
static cl_int enqueue_passes(chain *c, const radix_program *p, const sort_plan *plan, const sort_request *r,
                             const scratch *s, const pass_buffers *b)
{
    cl_ulong pos_xor, neg_xor;
    key_transform(r->type, r->descending, &pos_xor, &neg_xor);
    const cl_uint pos_xor32 = (cl_uint)pos_xor, neg_xor32 = (cl_uint)neg_xor;
    const size_t xor_size = r->key_bytes;
    const void *pos_arg = r->key_bytes == 8 ? (const void *)&pos_xor : (const void *)&pos_xor32;
    const void *neg_arg = r->key_bytes == 8 ? (const void *)&neg_xor : (const void *)&neg_xor32;

    const cl_uint n = (cl_uint)r->n, radix_bits = p->params.radix_bits;
    cl_int err = CL_SUCCESS;
    unsigned pass = 0;
    for (cl_uint shift = r->begin_bit; shift < r->end_bit && err == CL_SUCCESS; shift += radix_bits, ++pass) {
        const cl_uint bits = r->end_bit - shift < radix_bits ? r->end_bit - shift : radix_bits;
        const cl_uint digit_mask = (1u << bits) - 1;
        const cl_mem src_keys = pass ? b->keys[(pass + 1) % 2] : b->first_keys, dst_keys = b->keys[pass % 2];
        const cl_mem src_values = b->values[(pass + 1) % 2], dst_values = b->values[pass % 2];

        /* radix_histogram and radix_scatter share their first eight arguments. */
        for (int k = 0; k < 2 && err == CL_SUCCESS; ++k)
            err = set_args(k ? p->scatter : p->histogram, 8, ARG(src_keys), ARG(n), ARG(plan->block_len), ARG(shift),
                           ARG(digit_mask), xor_size, pos_arg, xor_size, neg_arg, ARG(s->levels[0]));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->histogram, plan->groups, p->params.wg);
        if (err == CL_SUCCESS)
            err = enqueue_scan(c, p, plan, s);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(p->scatter, 8, sizeof dst_keys, &dst_keys);
        if (err == CL_SUCCESS && r->values)
            err = clSetKernelArg(p->scatter, 9, sizeof src_values, &src_values);
        if (err == CL_SUCCESS && r->values)
            err = clSetKernelArg(p->scatter, 10, sizeof dst_values, &dst_values);
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scatter, plan->groups, p->params.wg);
    }
    return err;
}

clradix_status dispatch_sort(clradix_sorter *sorter, cl_command_queue queue, const sort_request *r,
                             cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    chain c = { queue, num_wait, wait_list, NULL };
    const unsigned radix_bits = sorter->params.radix_bits;  /* the same in every variant */
    const unsigned passes = r->n ? (r->end_bit - r->begin_bit + radix_bits - 1) / radix_bits : 0;
    radix_program *p = NULL;
    if (passes > 0 || (r->argsort && r->n > 0)) {
        clradix_status status = program_get(sorter, r->key_bytes, r->values ? (unsigned)r->value_size : 0, &p);
        if (status != CLRADIX_SUCCESS)
            return status;
    }

    const size_t key_bytes = r->n * r->key_bytes, value_bytes = r->values ? r->n * r->value_size : 0;
    if (key_bytes > sorter->limits.max_alloc || value_bytes > sorter->limits.max_alloc)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    sort_plan plan = { 0 };
    scratch s = { 0 };
    cl_int err = CL_SUCCESS;
    if (passes > 0) {
        plan_sort(&p->params, &sorter->limits, r->n, &plan);
        if (plan.level_groups[plan.levels - 1] != 1)
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
        const unsigned key_buffers = r->argsort && passes > 1 ? 2 : 1;
        err = scratch_alloc(sorter->context, &plan, key_buffers, key_bytes, value_bytes, &s);
        if (err != CL_SUCCESS) {
            scratch_release(&s);
            return status_from_cl(err);
        }
    }

    pass_buffers b;
    plan_buffers(r, passes, &s, &b);
    if (r->argsort && r->n > 0)
        err = enqueue_iota(&c, p, b.values[1], (cl_uint)r->n);
    if (err == CL_SUCCESS && passes > 0)
        err = enqueue_passes(&c, p, &plan, r, &s, &b);
    if (err == CL_SUCCESS && passes % 2 && !r->argsort) {  /* the result is in the temporary buffers */
        err = chain_copy(&c, s.keys[0], r->keys, key_bytes);
        if (err == CL_SUCCESS && r->values)
            err = chain_copy(&c, s.values, r->values, value_bytes);
    }
    if (err == CL_SUCCESS && !c.last && event)  /* nothing to do: an event that follows the wait list */
        err = chain_marker(&c);

    /* OpenCL frees the temporaries only once the commands that use them have finished. */
    scratch_release(&s);
    if (err != CL_SUCCESS) {
        if (c.last)
            clReleaseEvent(c.last);
        return status_from_cl(err);
    }
    if (event)
        *event = c.last;
    else if (c.last)
        clReleaseEvent(c.last);
    return CLRADIX_SUCCESS;
}
