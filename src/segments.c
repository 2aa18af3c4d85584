/*
 * The segmented-sort engine's host side (the kernels and the job classes are described in
 * cl/segments.cl): the worst-case sizes of its lists and tables, which depend only on n,
 * the number of segments and the shape, and its fixed sequence of launches, which never
 * waits for the device. Flat sorts that partition first come here as one segment.
 */
#include "internal.h"

int engine_splits_by_value(const radix_params *q, unsigned key_bytes)
{
    /* the sample (16 * RADIX keys) fits where a tile does; buckets are bytes */
    return q->wg == 1 && key_bytes >= 4 && q->radix_bits <= 8 && q->kpt >= (16u << q->radix_bits);
}

/* A split by value's table (SLOT_BYTES in cl/segments.cl): a byte per cell, then a word
   per bucket. */
static size_t split_slot_bytes(const radix_params *q)
{
    return ((size_t)1 << 16) + 4 * ((size_t)1 << q->radix_bits);
}

/* The words of the state buffer (STATE_* in cl/segments.cl). */
static size_t state_words(unsigned most_passes)
{
    return 16 + 2 * (size_t)most_passes;
}

typedef struct engine_plan {
    cl_uint segments;       /* level-0 jobs: num_segments, or 1 for a flat sort */
    cl_uint medium_n;       /* largest medium job */
    cl_uint long_medium_n;  /* largest large job that becomes medium where it holds most digits */
    cl_uint copy_chunk;     /* largest copy job */
    cl_uint cap;            /* capacity of the tiny, local, medium and copy lists */
    cl_uint cap_large;      /* capacity of one level's large list */
    cl_uint levels;         /* partition levels enqueued (0 when no job can be large) */
    cl_uint block_len;      /* keys per block of a large job: 1 << block_shift */
    cl_uint block_shift;
    cl_uint max_blocks;     /* blocks of one level at most */
    size_t block_groups;    /* work-groups of a level's count and scatter, each taking blocks in turn */
    /* The kernels whose groups take jobs in turn (local, medium, copy): how many groups,
       and the loop iterations each job may cost (see take_job; 0 without a budget). */
    size_t local_groups, medium_groups, copy_groups;
    cl_uint budget, local_most, medium_most, copy_most;
    cl_uint split_slots;    /* jobs of a level that may split by value (their index below it) */
    scan_plan scan;         /* of one level's table: max_blocks * RADIX entries */
} engine_plan;

/* Work-groups for a kernel whose groups take up to `jobs` jobs in turn: as many as the
   device runs at once, or where loops are budgeted (loops.c) enough that the jobs' loops,
   total at most, each job's at most `most`, fit in groups that stop before `allowed`;
   0 when not even one job fits. */
static size_t job_groups(size_t jobs, size_t max_groups, cl_ulong total, cl_ulong most, cl_ulong allowed)
{
    size_t groups = jobs < max_groups ? jobs : max_groups;
    if (allowed != ~(cl_ulong)0 && jobs) {  /* a loop budget */
        if (most > allowed)
            return 0;
        const cl_ulong room = allowed - most, needed = total / (room ? room : 1) + 1;
        if (groups < needed)
            groups = needed < SIZE_MAX ? (size_t)needed : SIZE_MAX;
    }
    return groups ? groups : 1;
}

/* Sizes the engine for r with p's shape, and the bytes of each temporary; returns their
   sum, or 0 when a list or table would not be addressable by 32-bit indices, or the
   device's loop budget (loops.c) cannot run it. */
static cl_ulong plan_engine(const clradix_sorter *sorter, const radix_program *p, const sort_request *r,
                            engine_plan *plan, size_t bytes[SCRATCH_SLOTS])
{
    const radix_params *q = &p->params;
    const size_t n = r->n, radix = (size_t)1 << q->radix_bits, tile = (size_t)q->wg * q->kpt;
    const unsigned passes = (r->end_bit - r->begin_bit + q->radix_bits - 1) / q->radix_bits;
    const unsigned most_passes = (8 * r->key_bytes + q->radix_bits - 1) / q->radix_bits;  /* PASSES */
    const cl_ulong allowed = loops_allowed(&sorter->limits);
    const int budgeted = sorter->limits.loop_budget != 0;
    size_t medium = q->medium_n > q->small_n ? q->medium_n : q->small_n;
    while (medium > q->small_n && loops_medium_job(q, r->key_bytes, medium) > allowed)
        medium /= 2;  /* medium jobs that one work-group's loops can finish */
    /* A large job of keys of up to 32 bits (4 passes of 8-bit digits) split by digit, in
       which most of its top digit's values occur, becomes medium (seg_decide) up to
       long_medium_n keys of up to 12 bytes with their values, wider ones as many bytes, where
       such jobs go round the compute units twice: the passes of one work-group sort it
       faster than a partition and local sorts there, but not one such job alone (one core),
       64-bit keys (8 passes), few distinct keys (a pass per digit, where a partition finds
       its buckets constant: 16 values in segments of 2^20, 1.3x slower on Intel's runtime),
       nor u32 keys with 16-byte values in segments of 2^21 (1.06x slower). */
    const size_t units = sorter->limits.compute_units ? sorter->limits.compute_units : 1, share = n / (2 * units);
    const size_t element = r->key_bytes + r->value_size;
    const size_t most = element > 12 ? (size_t)q->long_medium_n * 12 / element : q->long_medium_n;
    size_t long_medium = medium;
    if (!budgeted && r->end_bit - r->begin_bit <= 32 && most > medium && share > medium)
        long_medium = share < most ? share : most;  /* (seg_decide's loops are not budgeted) */
    if (medium < SEGMENT_TINY_N)
        medium = SEGMENT_TINY_N;
    /* Copies in pieces that one work-group's loops finish, and few pieces per job (one
       work-item makes them). */
    size_t copy_chunk = UINT32_MAX;
    if (budgeted) {
        copy_chunk = 4 * (size_t)q->scan_wg;
        if (copy_chunk < groups_for(n, (size_t)(allowed / 4)))
            copy_chunk = groups_for(n, (size_t)(allowed / 4));
    }

    /* Large jobs are longer than medium_n and never overlap: at most n / (medium_n + 1) at
       once, each making at most RADIX jobs of the next level, and copies in pieces. */
    const size_t segments = r->segmented ? r->num_segments : 1, most_large = n / (medium + 1);
    const size_t levels = most_large ? passes : 0;
    const cl_ulong made = (cl_ulong)most_large * radix + n / copy_chunk, per_level = made < n ? made : n;
    const cl_ulong cap = segments + levels * per_level;  /* 64 bits: past 2^32 on a 32-bit host too */
    const size_t cap_large = most_large ? most_large : 1;
    size_t max_groups = (size_t)sorter->limits.compute_units * q->groups_per_cu;
    if (max_groups < 1)
        max_groups = 1;
    /* Blocks: about n / max_groups keys, at least a tile, a power of two (see blocks_of);
       with a loop budget no more than one work-group's loops finish. */
    unsigned block_shift = 0;
    while (((size_t)1 << block_shift) < tile || ((size_t)1 << block_shift) < groups_for(n, max_groups))
        ++block_shift;
    while (budgeted && ((size_t)1 << block_shift) > tile
           && loops_engine_block(q, r->key_bytes, (size_t)1 << block_shift) > allowed)
        --block_shift;
    const size_t block_len = (size_t)1 << block_shift;
    /* Blocks of a level: ceil(len / block_len) per job, summed: n / block_len + one per job. */
    const size_t max_blocks = levels ? n / block_len + 1 + most_large : 0;
    if (cap > UINT32_MAX || block_len > UINT32_MAX || (cl_ulong)max_blocks * radix > UINT32_MAX)
        return 0;
    plan->segments = (cl_uint)segments;
    plan->medium_n = (cl_uint)medium;
    plan->long_medium_n = (cl_uint)(long_medium > medium ? long_medium : medium);
    plan->copy_chunk = (cl_uint)copy_chunk;
    plan->cap = (cl_uint)cap;
    plan->cap_large = (cl_uint)cap_large;
    plan->levels = (cl_uint)levels;
    plan->block_len = (cl_uint)block_len;
    plan->block_shift = block_shift;
    plan->max_blocks = (cl_uint)max_blocks;
    /* Loops of one block, and of the jobs of each class: at most so many of those, as they
       never overlap and each is longer than the class below (a copy: its keys and 3). */
    const cl_ulong block_loops = loops_engine_block(q, r->key_bytes, block_len);
    const size_t below_medium = q->small_n > SEGMENT_TINY_N ? q->small_n : SEGMENT_TINY_N;
    const size_t local_jobs = q->small_n ? n / (SEGMENT_TINY_N + 1) : 0;
    const size_t medium_jobs = plan->long_medium_n > below_medium ? n / (below_medium + 1) : 0;
    const cl_ulong local_loops = q->small_n ? loops_small_sort(q, r->key_bytes, q->small_n) : 0;
    const cl_ulong medium_loops = loops_medium_job(q, r->key_bytes, plan->long_medium_n);
    const cl_ulong copy_loops = 3 + groups_for(copy_chunk, q->scan_wg);
    plan->block_groups =
        levels ? job_groups(max_blocks, max_groups, max_blocks * block_loops, block_loops, allowed) : 1;
    plan->local_groups = job_groups(local_jobs < cap ? local_jobs : (size_t)cap, max_groups,
                                    (cl_ulong)local_jobs * local_loops, local_loops, allowed);
    plan->medium_groups = job_groups(medium_jobs < cap ? medium_jobs : (size_t)cap, max_groups,
                                     (cl_ulong)medium_jobs * medium_loops, medium_loops, allowed);
    plan->copy_groups =
        job_groups(n < cap ? n : (size_t)cap, max_groups, 3 * (cl_ulong)n + n / q->scan_wg, copy_loops, allowed);
    plan->budget = budgeted ? (cl_uint)allowed : UINT32_MAX;
    plan->local_most = budgeted && local_jobs ? (cl_uint)local_loops : 0;
    plan->medium_most = budgeted && medium_jobs ? (cl_uint)medium_loops : 0;
    plan->copy_most = budgeted ? (cl_uint)copy_loops : 0;
    /* One work-item's loops: seg_blocks over a level's jobs and blocks, seg_decide over a
       job's blocks and its copy pieces. */
    if (!plan->block_groups || !plan->local_groups || !plan->medium_groups || !plan->copy_groups
        || 2 * groups_for(cap_large, q->scan_wg) + max_blocks + 64 > allowed
        || max_blocks + n / copy_chunk + 1 > allowed)
        return 0;
    plan->scan.levels = 0;
    /* Tables for splits by value: for at most n / 2^18 jobs of a level (at least 16): a
       table costs about what 2^16 keys do, so they add at most a quarter of a byte a key. */
    plan->split_slots = 0;
    if (levels && p->splits_by_value) {
        const size_t slots = n >> 18 > 16 ? n >> 18 : 16;
        plan->split_slots = (cl_uint)(slots < cap_large ? slots : cap_large);
    }

    const size_t word = sizeof(cl_uint);
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        bytes[i] = 0;
    bytes[SCRATCH_KEYS] = r->keys_size;
    bytes[SCRATCH_VALUES] = r->values_size;
    if (r->argsort)
        bytes[SCRATCH_KEYS_2] = r->keys_size;  /* the primary keys: a copy of the caller's */
    bytes[SCRATCH_STATE] = state_words(most_passes) * word;
    /* Job lists of 4-word jobs; a level's blocks, bits and table. */
    if (!size_mul_count(4 * cap + 2 * (cl_ulong)cap_large, 4 * word, &bytes[SCRATCH_JOBS]))
        return 0;
    if (levels) {
        plan_scan(max_blocks * radix, q->scan_wg, &plan->scan);
        if (!size_mul_count(cap_large, 2 * word, &bytes[SCRATCH_JOB_BLOCKS])
            || !size_mul_count(cap_large, word, &bytes[SCRATCH_CHOSEN])
            || !size_mul_count(max_blocks, 2 * word, &bytes[SCRATCH_BLOCKS])
            || !size_mul_count(max_blocks, 2 * (size_t)r->key_bytes, &bytes[SCRATCH_BITS])
            || !size_mul_count((cl_ulong)max_blocks * radix, word, &bytes[SCRATCH_LEVELS]))
            return 0;
        if (plan->split_slots
            && (!size_mul_count(cap_large, 4 * word, &bytes[SCRATCH_SPLITS])
                || !size_mul_count(plan->split_slots, split_slot_bytes(q), &bytes[SCRATCH_CELLS])))
            return 0;
        scan_bytes(&plan->scan, bytes);  /* the first level is the largest, checked above */
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

/* A flat sort with partition levels (past medium_n): level 0's one job is large, and its
   keys can lie in the values (VALUE_KEY_ARGS in cl/segments.cl). Not where loops end early
   (loops.c): the blocks are planned for counting their keys, not for copying them too. */
int segments_takes_keys_in_values(const clradix_sorter *sorter, const radix_program *p, const sort_request *r)
{
    engine_plan plan;
    size_t bytes[SCRATCH_SLOTS];
    return !r->segmented && !sorter->limits.loop_budget && plan_engine(sorter, p, r, &plan, bytes) && plan.levels;
}

/* The buffers the jobs move between (BUFFER_ARGS in cl/segments.cl). */
typedef struct engine_buffers {
    cl_mem primary, secondary, primary_values, secondary_values;
    cl_mem jobs, state, job_blocks, blocks, chosen, bits, table;
    cl_mem splits, cells;   /* NULL unless the program splits by value */
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
                            const scratch *s, const key_args *k, int values, cl_uint level, cl_uint keys_in_values)
{
    const radix_params *q = &p->params;
    const int by_value = plan->split_slots != 0;
    /* level 0's keys in the values (VALUE_KEY_ARGS in cl/segments.cl) */
    const cl_mem value_keys = level == 0 && keys_in_values ? b->primary_values : NULL;
    const cl_uint key_word = value_keys ? keys_in_values - 1 : UINT32_MAX;  /* NO_KEY_WORD: in the keys */
    cl_int err = set_args(p->seg_blocks, 9, ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large), ARG(level),
                          ARG(plan->block_shift), ARG(plan->max_blocks), ARG(b->job_blocks), ARG(b->blocks));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_blocks, 1, q->scan_wg);
    if (err == CL_SUCCESS && by_value)
        err = set_args(p->seg_sample, 17, ARG(b->primary), ARG(b->secondary), ARG(b->jobs), ARG(b->state),
                       ARG(plan->cap), ARG(plan->cap_large), ARG(level), ARG(k->begin_bit), KEY_ORDER_ARGS(k),
                       ARG(plan->medium_n), ARG(plan->split_slots), ARG(b->splits), ARG(b->cells),
                       ARG(value_keys), ARG(key_word));
    if (err == CL_SUCCESS && by_value)
        err = chain_kernel(c, p->seg_sample, plan->block_groups, 1);
    if (err == CL_SUCCESS)
        err = set_args(p->seg_histogram, 19, ARG(b->primary), ARG(b->secondary), ARG(b->jobs), ARG(b->state),
                       ARG(plan->cap), ARG(plan->cap_large), ARG(level), ARG(plan->block_len), ARG(k->begin_bit),
                       KEY_ORDER_ARGS(k), ARG(b->blocks), ARG(plan->max_blocks),
                       ARG(b->job_blocks), ARG(b->bits), ARG(b->table), ARG(value_keys), ARG(key_word));
    if (err == CL_SUCCESS && by_value)
        err = set_args_at(p->seg_histogram, 19, 2, ARG(b->splits), ARG(b->cells));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_histogram, plan->block_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->seg_decide, 13, ARG(b->jobs), ARG(b->state), ARG(plan->cap), ARG(plan->cap_large),
                       ARG(level), ARG(k->begin_bit), ARG(plan->medium_n), ARG(plan->long_medium_n),
                       ARG(plan->copy_chunk), ARG(b->job_blocks), ARG(b->bits), ARG(b->chosen), ARG(b->table));
    if (err == CL_SUCCESS && by_value)
        err = set_args_at(p->seg_decide, 13, 2, ARG(b->splits), ARG(b->cells));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_decide, groups_for(plan->cap_large, q->scan_wg), q->scan_wg);
    if (err == CL_SUCCESS)
        err = enqueue_scan(c, p, &plan->scan, s);
    cl_uint i = 0;
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_scatter, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_scatter, i, 12, ARG(level), ARG(plan->block_len), ARG(k->begin_bit),
                          KEY_ORDER_ARGS(k), ARG(plan->medium_n), ARG(plan->copy_chunk),
                          ARG(b->blocks), ARG(b->job_blocks), ARG(b->chosen), ARG(b->table));
    if (err == CL_SUCCESS && by_value)
        err = set_args_at(p->seg_scatter, i + 12, 2, ARG(b->splits), ARG(b->cells));
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
        err = set_args(p->seg_classify, 11, ARG(offsets), ARG(segments), ARG(n), ARG(k.begin_bit), ARG(k.end_bit),
                       ARG(plan->medium_n), ARG(plan->copy_chunk), ARG(b->jobs), ARG(b->state), ARG(plan->cap),
                       ARG(plan->cap_large));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_classify, groups_for(segments, q->scan_wg), q->scan_wg);
    for (cl_uint level = 0; level < plan->levels && err == CL_SUCCESS; ++level)
        err = enqueue_level(c, p, plan, b, s, &k, values, level, r->keys_in_values);

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
        err = set_args_at(p->seg_local, i, 6, ARG(k.begin_bit), KEY_ORDER_ARGS(&k), ARG(plan->budget),
                          ARG(plan->local_most));
    if (err == CL_SUCCESS && p->seg_local)
        err = chain_kernel(c, p->seg_local, plan->local_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_medium, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_medium, i, 6, ARG(k.begin_bit), KEY_ORDER_ARGS(&k),
                          ARG(plan->budget), ARG(plan->medium_most));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_medium, plan->medium_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_buffer_and_list_args(p->seg_copy, b, plan, values, &i);
    if (err == CL_SUCCESS)
        err = set_args_at(p->seg_copy, i, 2, ARG(plan->budget), ARG(plan->copy_most));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_copy, plan->copy_groups, q->scan_wg);
    return err;
}

clradix_status enqueue_segments(clradix_sorter *sorter, chain *c, const radix_program *p, const sort_request *r)
{
    engine_plan plan;
    size_t bytes[SCRATCH_SLOTS];
    if (!plan_engine(sorter, p, r, &plan, bytes) || (plan.levels && !scan_fits(&plan.scan)))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;  /* lists past 32-bit indices, or a table too large to scan */
    scratch *s;
    const clradix_status status = scratch_of_request(sorter, r, bytes, &s);
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
        .bits = s->buffer[SCRATCH_BITS],
        .table = s->buffer[SCRATCH_LEVELS],
        .splits = s->buffer[SCRATCH_SPLITS],
        .cells = s->buffer[SCRATCH_CELLS],
    };
    const cl_uint words = (cl_uint)(bytes[SCRATCH_STATE] / sizeof(cl_uint));
    cl_int err = set_args(p->seg_start, 3, ARG(b.state), ARG(words), ARG(plan.levels));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->seg_start, 1, p->params.scan_wg);
    if (err == CL_SUCCESS)
        err = enqueue_jobs(c, p, &plan, r, &b, s);
    scratch_done(sorter, r, s, c->last);  /* reused once this sort is over */
    return status_from_cl(err);
}
