/*
 * What every sort enqueues with: kernel arguments, the chain of commands that each wait on
 * the one before, the multi-level scan of a count table, and the key transform as kernel
 * arguments.
 */
#include "internal.h"

#include <stdarg.h>

cl_int set_args_at(cl_kernel kernel, cl_uint first, cl_uint count, ...)
{
    va_list ap;
    va_start(ap, count);
    cl_int err = CL_SUCCESS;
    for (cl_uint i = first; i < first + count && err == CL_SUCCESS; ++i) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        err = clSetKernelArg(kernel, i, size, value);
    }
    va_end(ap);
    return err;
}

cl_uint chain_wait_count(const chain *c) { return c->last ? 1 : c->num_wait; }
const cl_event *chain_wait_list(const chain *c) { return c->last ? &c->last : c->wait_list; }

static cl_int chain_push(chain *c, cl_int err, cl_event event)
{
    if (err != CL_SUCCESS)
        return err;
    if (c->last)
        clReleaseEvent(c->last);
    c->last = event;
    return CL_SUCCESS;
}

cl_int chain_kernel(chain *c, cl_kernel kernel, size_t groups, size_t wg)
{
    const size_t global = groups * wg;
    cl_event event = NULL;
    c->tried = 1;
    cl_int err = clEnqueueNDRangeKernel(c->queue, kernel, 1, NULL, &global, &wg, chain_wait_count(c),
                                        chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

cl_int chain_copy(chain *c, cl_mem from, cl_mem to, size_t bytes)
{
    cl_event event = NULL;
    c->tried = 1;
    cl_int err = clEnqueueCopyBuffer(c->queue, from, to, 0, 0, bytes, chain_wait_count(c), chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

void chain_follow(chain *c, cl_event sort_done)
{
    c->tried = 1;
    chain_push(c, CL_SUCCESS, sort_done);
}

clradix_status chain_hand_over(chain *c, clradix_status status, cl_event *event)
{
    if (status == CLRADIX_SUCCESS && event && !c->last)
        status = status_from_cl(chain_marker(c));  /* nothing enqueued: an event that follows the wait list */
    if (status == CLRADIX_SUCCESS && event)
        *event = c->last;
    else if (c->last)
        clReleaseEvent(c->last);
    c->last = NULL;
    return status;
}

cl_int chain_marker(chain *c)
{
    cl_event event = NULL;
    c->tried = 1;
    cl_int err = clEnqueueMarkerWithWaitList(c->queue, chain_wait_count(c), chain_wait_list(c), &event);
    return chain_push(c, err, event);
}

size_t groups_for(size_t count, size_t wg)
{
    return (count + wg - 1) / wg;
}

void plan_scan(size_t count, unsigned scan_wg, scan_plan *plan)
{
    const size_t scan_tile = 2 * (size_t)scan_wg;
    plan->levels = 0;
    for (;;) {
        plan->level_count[plan->levels] = (cl_uint)count;
        plan->level_groups[plan->levels] = (cl_uint)groups_for(count, scan_tile);
        count = plan->level_groups[plan->levels++];
        if (count == 1 || plan->levels == MAX_SCAN_LEVELS)
            break;
    }
}

int scan_fits(const scan_plan *plan)
{
    return plan->level_groups[plan->levels - 1] == 1;
}

void scan_bytes(const scan_plan *plan, size_t bytes[SCRATCH_SLOTS])
{
    bytes[SCRATCH_TOP] = sizeof(cl_uint);
    for (unsigned i = 0; i < plan->levels; ++i)
        bytes[SCRATCH_LEVELS + i] = plan->level_count[i] * sizeof(cl_uint);
}

cl_int enqueue_scan(chain *c, const radix_program *p, const scan_plan *plan, const scratch *s)
{
    cl_int err = CL_SUCCESS;
    const cl_mem *level = s->buffer + SCRATCH_LEVELS;
    for (unsigned i = 0; i < plan->levels && err == CL_SUCCESS; ++i) {
        const cl_mem sums = i + 1 < plan->levels ? level[i + 1] : s->buffer[SCRATCH_TOP];
        err = set_args(p->scan, 3, ARG(level[i]), ARG(plan->level_count[i]), ARG(sums));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scan, plan->level_groups[i], p->params.scan_wg);
    }
    for (unsigned i = plan->levels - 1; i-- > 0 && err == CL_SUCCESS;) {
        err = set_args(p->scan_add, 3, ARG(level[i]), ARG(plan->level_count[i]), ARG(level[i + 1]));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->scan_add, plan->level_groups[i], p->params.scan_wg);
    }
    return err;
}

/* A mask as the kernel argument of keys of that many bytes (the member of that width). */
static union key_arg key_arg_of(uint64_t mask, unsigned bytes)
{
    union key_arg a;
    switch (bytes) {
    case 1: a.u8 = (cl_uchar)mask; break;
    case 2: a.u16 = (cl_ushort)mask; break;
    case 4: a.u32 = (cl_uint)mask; break;
    default: a.u64 = mask; break;
    }
    return a;
}

void make_key_args(const sort_request *r, key_args *k)
{
    const key_transform t = r->record ? *r->record : key_transform_of(r->type, r->descending);
    /* a record's rotation and float width in place of nan_above (RECORD_IMAGE) */
    const uint64_t third = t.record ? t.rotate | (uint64_t)record_float_shift(&t) << 8 : t.nan_above;
    k->size = r->key_bytes;
    k->pos_xor = key_arg_of(t.pos_xor, r->key_bytes);
    k->neg_xor = key_arg_of(t.neg_xor, r->key_bytes);
    k->nan_above = key_arg_of(third, r->key_bytes);
    k->begin_bit = r->begin_bit;
    k->end_bit = r->end_bit;
}
