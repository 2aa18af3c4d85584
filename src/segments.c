/*
 * The segmented-sort engine's host side (the kernels and the job classes are described in
 * cl/segments.cl): the worst-case sizes of its lists and tables, which depend only on n,
 * the number of segments and the shape, and its fixed sequence of launches, which never
 * waits for the device. Flat sorts that partition first come here as one segment.
 */
#include "internal.h"

/* The words of the state buffer (STATE_* in cl/segments.cl). */
static size_t state_words(unsigned most_passes)
{
    return 16 + 2 * (size_t)most_passes;
}

typedef struct engine_plan {
    cl_uint segments;       /* level-0 jobs: num_segments, or 1 for a flat sort */
    cl_uint medium_n;       /* largest medium job */
    cl_uint cap;            /* capacity of the tiny, local, medium and copy lists */
    cl_uint cap_large;      /* capacity of one level's large list */
    cl_uint levels;         /* partition levels enqueued (0 when no job can be large) */
    cl_uint block_len;      /* keys per block of a large job: 1 << block_shift */
    cl_uint block_shift;
    cl_uint max_blocks;     /* blocks of one level at most */
    size_t block_groups;    /* work-groups of a level's count and scatter, each taking blocks in turn */
    size_t finish_groups;   /* work-groups of the local, medium and copy kernels */
    scan_plan scan;         /* of one level's table: max_blocks * RADIX entries */
} engine_plan;

/* Sizes the engine for r with p's shape, and the bytes of each temporary; returns their
   sum, or 0 when a list or table would not be addressable by 32-bit indices. */
static cl_ulong plan_engine(const clradix_sorter *sorter, const radix_program *p, const sort_request *r,
                            engine_plan *plan, size_t bytes[SCRATCH_SLOTS])
{
    const radix_params *q = &p->params;
    const size_t n = r->n, radix = (size_t)1 << q->radix_bits, tile = (size_t)q->wg * q->kpt;
    const unsigned passes = (r->end_bit - r->begin_bit + q->radix_bits - 1) / q->radix_bits;
    const unsigned most_passes = (8 * r->key_bytes + q->radix_bits - 1) / q->radix_bits;  /* PASSES */
    size_t medium = q->medium_n > q->small_n ? q->medium_n : q->small_n;
    if (medium < SEGMENT_TINY_N)
        medium = SEGMENT_TINY_N;

    /* Large jobs are longer than medium_n and never overlap: at most n / (medium_n + 1) at
       once, each making at most RADIX jobs of the next level. */
    const size_t segments = r->segmented ? r->num_segments : 1, most_large = n / (medium + 1);
    const size_t levels = most_large ? passes : 0, per_level = most_large * radix < n ? most_large * radix : n;
    const size_t cap = segments + levels * per_level, cap_large = most_large ? most_large : 1;
    size_t max_groups = (size_t)sorter->limits.compute_units * q->groups_per_cu;
    if (max_groups < 1)
        max_groups = 1;
    /* Blocks: about n / max_groups keys, at least a tile, a power of two (see blocks_of). */
    unsigned block_shift = 0;
    while (((size_t)1 << block_shift) < tile || ((size_t)1 << block_shift) < groups_for(n, max_groups))
        ++block_shift;
    const size_t block_len = (size_t)1 << block_shift;
    /* Blocks of a level: ceil(len / block_len) per job, summed: n / block_len + one per job. */
    const size_t max_blocks = levels ? n / block_len + 1 + most_large : 0;
    if (cap > UINT32_MAX || block_len > UINT32_MAX || max_blocks * radix > UINT32_MAX)
        return 0;
    plan->segments = (cl_uint)segments;
    plan->medium_n = (cl_uint)medium;
    plan->cap = (cl_uint)cap;
    plan->cap_large = (cl_uint)cap_large;
    plan->levels = (cl_uint)levels;
    plan->block_len = (cl_uint)block_len;
    plan->block_shift = block_shift;
    plan->max_blocks = (cl_uint)max_blocks;
    plan->block_groups = max_blocks < max_groups ? max_blocks : max_groups;
    plan->finish_groups = cap < max_groups ? cap : max_groups;
    plan->scan.levels = 0;

    const size_t word = sizeof(cl_uint);
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        bytes[i] = 0;
    bytes[SCRATCH_KEYS] = r->keys_size;
    bytes[SCRATCH_VALUES] = r->values_size;
    if (r->argsort)
        bytes[SCRATCH_KEYS_2] = r->keys_size;  /* the primary keys: a copy of the caller's */
    bytes[SCRATCH_JOBS] = (4 * cap + 2 * cap_large) * 4 * word;
    bytes[SCRATCH_STATE] = state_words(most_passes) * word;
    if (levels) {
        bytes[SCRATCH_JOB_BLOCKS] = cap_large * 2 * word;
        bytes[SCRATCH_CHOSEN] = cap_large * word;
        bytes[SCRATCH_BLOCKS] = max_blocks * 2 * word;
        bytes[SCRATCH_TABLE_ALL] = max_blocks * radix * word;
        bytes[SCRATCH_BITS] = max_blocks * 2 * r->key_bytes;
        plan_scan(max_blocks * radix, q->scan_wg, &plan->scan);
        scan_bytes(&plan->scan, bytes);
    }
    return scratch_total(bytes);
}

cl_ulong segments_temporary_bytes(const clradix_sorter *sorter, const radix_program *p, const sort_request *r)
{
    engine_plan plan;
    size_t bytes[SCRATCH_SLOTS];
    const cl_ulong total = plan_engine(sorter, p, r, &plan, bytes);
    return total ? total : ~(cl_ulong)0;
}

/* The buffers the jobs move between (BUFFER_ARGS in cl/segments.cl). */
typedef struct engine_buffers {
    cl_mem primary, secondary, primary_values, secondary_values;
    cl_mem jobs, state, job_blocks, blocks, chosen, table_all, bits, table;
} engine_buffers;

/* Sets BUFFER_ARGS then LIST_ARGS from argument 0; returns the next argument's index. */
static cl_int set_buffer_and_list_args(cl_kernel kernel, const engine_buffers *b, const engine_plan *plan,
                                       int values, cl_uint *next)
{
    cl_uint i = 2;
    cl_int err = set_args(kernel, 2, ARG(b->primary), ARG(b->secondary));
    if (err == CL_SUCCESS && values) {
        err = set_args_at(kernel, i, 2, ARG(b->primary_values), ARG(b->secondary_values));
        i += 2;
    }
    if (err == CL_SUCCESS)
        err = set_args_at(kernel, i, 4, ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large));
    *next = i + 4;
    return err;
}

/* One partition level of the large jobs. */
static cl_int enqueue_level(chain *c, const radix_program *p, const engine_plan *plan, const engine_buffers *b,
                            const scratch *s, const key_args *k, int values, cl_uint level)
{
    const radix_params *q = &p->params;
    cl_int err = set_args(p->seg_blocks, 9, ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large), ARG(level),
                          ARG(plan->block_shift), ARG(plan->max_blocks), ARG(b->job_blocks), ARG(b->blocks));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_blocks, 1, q->scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->seg_histogram, 18, ARG(b->primary), ARG(b->secondary), ARG(b->jobs), ARG(b->state),
                       ARG(plan->cap), ARG(plan->cap_large), ARG(level), ARG(plan->block_len), ARG(k->begin_bit),
                       ARG(k->end_bit), KEY_ORDER_ARGS(k), ARG(b->blocks), ARG(plan->max_blocks),
                       ARG(b->table_all), ARG(b->bits), ARG(b->table));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_histogram, plan->block_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->seg_decide, 12, ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large),
                       ARG(level), ARG(k->begin_bit), ARG(plan->medium_n), ARG(b->job_blocks), ARG(b->table_all), ARG(b->bits),
                       ARG(b->table), ARG(b->chosen));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_decide, plan->cap_large, q->wg);
    if (err == CL_SUCCESS)
        err = enqueue_scan(c, p, &plan->scan, s);
    cl_uint i = 0;
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_scatter, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_scatter, i, 12, ARG(level), ARG(plan->block_len), ARG(k->begin_bit),
                          ARG(k->end_bit), KEY_ORDER_ARGS(k), ARG(plan->medium_n),
                          ARG(b->blocks), ARG(b->job_blocks), ARG(b->chosen), ARG(b->table));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_scatter, plan->block_groups, q->wg);
    return err;
}

/* Everything after the state is cleared: argsort's copies, the jobs of level 0, the
   partition levels, then the classes that finish jobs. */
static cl_int enqueue_jobs(chain *c, const radix_program *p, const engine_plan *plan, const sort_request *r,
                           const engine_buffers *b, const scratch *s)
{
    const radix_params *q = &p->params;
    const int values = r->values != NULL;
    const cl_uint n = (cl_uint)r->n, segments = plan->segments;
    const cl_mem offsets = r->segmented ? r->offsets : NULL;
    key_args k;
    make_key_args(r, &k);

    cl_int err = CL_SUCCESS;
    if (r->argsort) {
        err = set_args(p->seg_argsort_prepare, 6, ARG(r->keys), ARG(b->primary), ARG(b->primary_values), ARG(offsets),
                       ARG(segments), ARG(n));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->seg_argsort_prepare, groups_for(n, q->scan_wg), q->scan_wg);
    }
    if (err == CL_SUCCESS)
        err = set_args(p->seg_classify, 10, ARG(offsets), ARG(segments), ARG(n), ARG(k.begin_bit), ARG(k.end_bit),
                       ARG(plan->medium_n), ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_classify, groups_for(segments, q->scan_wg), q->scan_wg);
    for (cl_uint level = 0; level < plan->levels && err == CL_SUCCESS; ++level)
        err = enqueue_level(c, p, plan, b, s, &k, values, level);

    cl_uint i = 0;
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_tiny, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_tiny, i, 4, ARG(k.begin_bit), KEY_ORDER_ARGS(&k));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_tiny, groups_for(plan->cap, q->scan_wg), q->scan_wg);
    if (err == CL_SUCCESS && p->seg_local)
        err = set_buffer_and_list_args(p->seg_local, b, plan, values, &i);
    if (err == CL_SUCCESS && p->seg_local)
        err = set_args_at(p->seg_local, i, 4, ARG(k.begin_bit), KEY_ORDER_ARGS(&k));
    if (err == CL_SUCCESS && p->seg_local)
        err = chain_kernel(c, p->seg_local, plan->finish_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_medium, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_medium, i, 5, ARG(k.begin_bit), ARG(k.end_bit), KEY_ORDER_ARGS(&k));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_medium, plan->finish_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_copy, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_copy, plan->finish_groups, q->scan_wg);
    return err;
}

clradix_status enqueue_segments(clradix_sorter *sorter, chain *c, const radix_program *p, const sort_request *r)
{
    engine_plan plan;
    size_t bytes[SCRATCH_SLOTS];
    if (!plan_engine(sorter, p, r, &plan, bytes) || (plan.levels && !scan_fits(&plan.scan)))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;  /* lists past 32-bit indices, or a table too large to scan */
    scratch *s;
    const clradix_status status = scratch_for(sorter, bytes, &s);
    if (status != CLRADIX_SUCCESS)
        return status;
    const engine_buffers b = {
        .primary = r->argsort ? s->buffer[SCRATCH_KEYS_2] : r->keys,
        .secondary = s->buffer[SCRATCH_KEYS],
        .primary_values = r->values,
        .secondary_values = s->buffer[SCRATCH_VALUES],
        .jobs = s->buffer[SCRATCH_JOBS],
        .state = s->buffer[SCRATCH_STATE],
        .job_blocks = s->buffer[SCRATCH_JOB_BLOCKS],
        .blocks = s->buffer[SCRATCH_BLOCKS],
        .chosen = s->buffer[SCRATCH_CHOSEN],
        .table_all = s->buffer[SCRATCH_TABLE_ALL],
        .bits = s->buffer[SCRATCH_BITS],
        .table = s->buffer[SCRATCH_LEVELS],
    };
    const cl_uint words = (cl_uint)(bytes[SCRATCH_STATE] / sizeof(cl_uint));
    cl_int err = set_args(p->seg_start, 2, ARG(b.state), ARG(words));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_start, 1, p->params.scan_wg);
    if (err == CL_SUCCESS)
        err = enqueue_jobs(c, p, &plan, r, &b, s);
    scratch_return(sorter, s, c->last);  /* reused once this sort is over */
    return status_from_cl(err);
}
