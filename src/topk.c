/*
 * Top-k: the first k keys of the stable sort. A flat top-k (one row) is a radix select
 * (cl/topk.cl): two reads of the keys cut them down to candidates (a sample brackets the
 * k-th key's value, a count per slice checks it, with a count of every top digit as the
 * fallback, and a stable split keeps the candidates), then per digit a count over the
 * candidates and a pick of the digit that holds the k-th key; the survivors gathered in
 * input order are sorted stably with their positions by dispatch_sort and written out.
 * Rows are selected one per work-group and sorted as segments of k. Where a full sort is
 * cheaper (a large k per the tuning row, rows longer than medium_n), the first k of an
 * argsort instead. Nothing waits for the device: every command waits on the one before.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A validated top-k: the keys as a request (type, range, direction, n; only read), the
   rows and the outputs. */
typedef struct topk_call {
    sort_request r;
    size_t rows, row_length, k;  /* a flat top-k is one row of n keys */
    cl_mem out_keys, out_indices;
    size_t index_size;           /* 0 when no indices are wanted */
    size_t outputs, key_out, index_out;  /* rows x k; the bytes of each output */
} topk_call;

/* The checks every top-k call shares (no buffers): fills t. */
static clradix_status check_topk(const clradix_sorter *sorter, clradix_key_type type, size_t rows, size_t row_length,
                                 size_t k, int want_keys, int want_indices, size_t index_size,
                                 const clradix_options *options, topk_call *t)
{
    size_t n;
    if (!want_keys && !want_indices)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if ((want_indices && check_index_size(index_size) != CLRADIX_SUCCESS) || k > row_length
        || !size_mul(rows, row_length, &n))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_keys(sorter, type, n, options, &t->r);
    if (status != CLRADIX_SUCCESS)
        return status;
    t->r.argsort = 1;  /* the keys are only read */
    status = check_sizes(&t->r);
    t->rows = rows;
    t->row_length = row_length;
    t->k = k;
    t->index_size = want_indices ? index_size : 0;
    t->outputs = rows * k;  /* at most n */
    if (status == CLRADIX_SUCCESS
        && (!size_mul(t->outputs, t->r.key_bytes, &t->key_out) || !size_mul(t->outputs, t->index_size, &t->index_out)))
        status = CLRADIX_ERROR_INVALID_ARGUMENT;  /* outputs no buffer of this host could hold */
    return status;
}

/* *total += count elements of size bytes; 0 when that passes what size_t holds (no buffer
   could be so large; the test build narrows size_t to check what a 32-bit host wraps). */
static int add_bytes(cl_ulong *total, size_t count, size_t size, size_t *bytes)
{
    if (!size_mul(count, size, bytes))
        return 0;
    *total += *bytes;
    return 1;
}

/* A buffer of bytes (at least one) that only the library's kernels use. */
static cl_mem temporary(clradix_sorter *sorter, size_t bytes, cl_int *err)
{
    if (*err != CL_SUCCESS)
        return NULL;
    return sorter_buffer(sorter, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, err);
}

/* The call's buffers, counted in the sorter's device memory (memory.c) while they live. */
static void release_all(clradix_sorter *sorter, cl_mem *buffers, int count)
{
    for (int i = 0; i < count; ++i) {
        size_t bytes = 0;
        if (buffers[i] && clGetMemObjectInfo(buffers[i], CL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS)
            sorter_buffer_release(sorter, buffers[i], bytes);  /* freed once the commands that use it are done */
        else if (buffers[i])
            clReleaseMemObject(buffers[i]);
    }
}

/* Offsets of rows segments of length keys each (rows + 1 of them), in a buffer. */
static cl_mem row_offsets(clradix_sorter *sorter, size_t rows, size_t length, cl_int *err)
{
    cl_uint *offsets = malloc((rows + 1) * sizeof *offsets);
    if (!offsets) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    for (size_t i = 0; i <= rows; ++i)
        offsets[i] = (cl_uint)(i * length);
    cl_mem buffer = sorter_buffer(sorter, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (rows + 1) * sizeof *offsets,
                                  offsets, err);
    free(offsets);
    return buffer;
}

/* The select's top digit of the bit range: bits [*low, *low + 8) of the image, as many as
   the range has (*mask); returns the number of digits (an empty range is one digit, 0 for
   every key). */
static cl_uint top_digit(const sort_request *r, cl_uint *low, cl_uint *mask)
{
    const cl_uint bits = r->end_bit - r->begin_bit, digits = bits ? (bits + 7) / 8 : 1, below = 8 * (digits - 1);
    *low = r->begin_bit + below;
    *mask = bits - below >= 8 ? 0xFF : (1u << (bits - below)) - 1;
    return digits;
}

/* How a checked top-k runs: a radix select (one row), a select per row, or the first k of
   an argsort; a select's slices and chunks, or the rows' work-groups; its buffers (0: none)
   and, with the temporaries of the sort inside, the device memory it holds at once beside
   the keys and outputs. */
enum topk_path { TOPK_SELECT, TOPK_ROWS, TOPK_PREFIX };
enum { BOUNDS, STATE, TABLE, BELOW, EQUAL, CANDIDATES, CANDIDATE_POSITIONS, KEYS, POSITIONS, OFFSETS, BUFFERS };
typedef struct topk_plan {
    enum topk_path path;
    size_t groups, chunk_groups, chunks;
    size_t bytes[BUFFERS];
    cl_ulong temporaries;
} topk_plan;

/* The sort inside a top-k: the survivors (count keys with their 4-byte positions, as one
   run or as rows of k), or for the prefix path an argsort of the keys into positions. */
static sort_request inner_sort(const topk_call *t, enum topk_path path)
{
    sort_request s = t->r;
    s.value_size = sizeof(cl_uint);
    if (path == TOPK_PREFIX) {  /* an argsort: the keys are only read */
        s.values_size = t->r.n * sizeof(cl_uint);  /* checked by plan_topk */
        s.segmented = t->rows > 1;
        s.num_segments = t->rows > 1 ? t->rows : 0;
        return s;
    }
    s.argsort = 0;
    s.n = t->outputs;
    s.keys_size = t->outputs * t->r.key_bytes;
    s.values_size = t->outputs * sizeof(cl_uint);
    s.segmented = path == TOPK_ROWS;
    s.num_segments = path == TOPK_ROWS ? t->rows : 0;
    return s;
}

/* The plan of t with the parameters q: CLRADIX_ERROR_OUT_OF_RESOURCES where a buffer passes
   the device's largest allocation or what size_t holds, or loops would pass the device's
   budget (loops.c); a build failure of the inner sort's program. */
static clradix_status plan_topk(clradix_sorter *sorter, const radix_params *q, const topk_call *t, topk_plan *plan)
{
    const sort_request *r = &t->r;
    memset(plan, 0, sizeof *plan);
    /* Rows up to medium_n keys (about a core's cache; what the engine gives one work-group)
       are selected one per work-group, so are rows whose select one work-item's loops can
       finish on a device with a loop budget (loops.c); longer ones take all work-groups in
       the engine. A flat top-k of a large k (the tuning row's topk_sort): a full sort. */
    const cl_ulong allowed = loops_allowed(&sorter->limits);
    const int rows_selected = t->row_length <= q->medium_n
                           && loops_topk_row(q, r->key_bytes, t->row_length) <= allowed;
    if (t->rows > 1)
        plan->path = rows_selected ? TOPK_ROWS : TOPK_PREFIX;
    else
        plan->path = q->topk_sort && t->k >= r->n / q->topk_sort ? TOPK_PREFIX : TOPK_SELECT;
    size_t *b = plan->bytes;
    cl_ulong total = 0;
    int sized = 1;
    if (plan->path == TOPK_SELECT) {
        /* Slices of the keys, one per work-group, and the candidates in chunks, one per
           work-item (of as many work-groups again): as many as the device runs at once, or
           more where loops are budgeted, as few as keep them within it. */
        const cl_ulong slice_cap = loops_topk_slice_cap(q, allowed);
        if (slice_cap == 0)
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
        size_t groups = q->max_groups, chunk_groups = q->max_groups;
        if (groups < (r->n + slice_cap - 1) / slice_cap)
            groups = (size_t)((r->n + slice_cap - 1) / slice_cap);
        if (allowed != ~(cl_ulong)0 && chunk_groups * q->wg < r->n / (allowed / 2))
            chunk_groups = (r->n / (allowed / 2) + q->wg - 1) / q->wg;
        const size_t chunks = chunk_groups * q->wg, sums = chunks > groups ? chunks : groups;
        /* One work-item's loops over the slices (topk_range_plan; topk_plan's sums of the
           digits, then the slices' counts below the chosen one), the chunks (topk_chunk_scan)
           and the sample's select (topk_sample: per digit, its share of the sample and two picks). */
        const size_t swg = q->scan_wg;
        if ((256 + swg - 1) / swg * (groups + 1) + (groups + swg - 1) / swg * 257 + groups + 512 > allowed
            || chunks > allowed || (size_t)r->key_bytes * ((4096 + swg - 1) / swg + 2 * 256) > allowed)
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
        plan->groups = groups;
        plan->chunk_groups = chunk_groups;
        plan->chunks = chunks;
        sized = add_bytes(&total, 3, r->key_bytes, &b[BOUNDS])  /* the prefix and the bracket */
             && add_bytes(&total, 4 + 256, sizeof(cl_uint), &b[STATE])
             && add_bytes(&total, groups, 256 * sizeof(cl_uint), &b[TABLE])
             && add_bytes(&total, sums, sizeof(cl_uint), &b[BELOW])
             && add_bytes(&total, sums, sizeof(cl_uint), &b[EQUAL])
             && add_bytes(&total, r->n, r->key_bytes, &b[CANDIDATES])
             && add_bytes(&total, r->n, sizeof(cl_uint), &b[CANDIDATE_POSITIONS])
             && add_bytes(&total, t->k, r->key_bytes, &b[KEYS])
             && add_bytes(&total, t->k, sizeof(cl_uint), &b[POSITIONS]);
    } else if (plan->path == TOPK_ROWS) {
        /* A row per work-group at a time: as many groups as the device runs at once, or
           where loops are budgeted enough that each group's rows fit in it. */
        const cl_ulong rows_per_group = allowed / loops_topk_row(q, r->key_bytes, t->row_length);
        size_t groups = t->rows < q->max_groups ? t->rows : q->max_groups;
        if (groups < (t->rows + rows_per_group - 1) / rows_per_group)
            groups = (size_t)((t->rows + rows_per_group - 1) / rows_per_group);
        plan->groups = groups;
        sized = add_bytes(&total, t->outputs, r->key_bytes, &b[KEYS])
             && add_bytes(&total, t->outputs, sizeof(cl_uint), &b[POSITIONS])
             && add_bytes(&total, t->rows + 1, sizeof(cl_uint), &b[OFFSETS]);
    } else {
        sized = add_bytes(&total, r->n, sizeof(cl_uint), &b[POSITIONS])
             && add_bytes(&total, t->rows > 1 ? t->rows + 1 : 0, sizeof(cl_uint), &b[OFFSETS]);
    }
    for (int i = 0; i < BUFFERS && sized; ++i)
        sized = b[i] <= sorter->limits.max_alloc;
    if (!sized)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    const sort_request inner = inner_sort(t, plan->path);
    cl_ulong inner_bytes;
    const clradix_status status = dispatch_temporary_bytes(sorter, &inner, &inner_bytes);
    if (status != CLRADIX_SUCCESS)
        return status;
    if (inner_bytes == ~(cl_ulong)0)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;  /* the inner sort fits no device */
    plan->temporaries = total + inner_bytes;
    return CLRADIX_SUCCESS;
}

/* Each row's first k into the caller's outputs once `ready` is complete (taken): keys read
   at their positions, order[row * order_stride ...] (in the whole array, in the wanted order). */
static clradix_status write_first_k(cl_command_queue queue, const radix_program *p,
                                    const topk_call *t, cl_mem order, size_t order_stride, cl_event ready,
                                    cl_event *event)
{
    const cl_uint stride = (cl_uint)order_stride, row_length = (cl_uint)t->row_length, k = (cl_uint)t->k;
    const cl_uint count = (cl_uint)t->outputs, want_keys = t->out_keys != NULL;
    const cl_uint index_words = (cl_uint)(t->index_size / 4);
    /* An output not wanted gets a buffer of the call's that the kernel never writes. */
    const cl_mem out_keys = t->out_keys ? t->out_keys : order, out_indices = t->out_indices ? t->out_indices : order;
    const size_t wg = p->params.scan_wg;
    chain out = { queue, 1, &ready, NULL, 0 };
    cl_int err = set_args(p->topk_write, 10, ARG(t->r.keys), ARG(order), ARG(stride), ARG(row_length), ARG(k),
                          ARG(count), ARG(out_keys), ARG(want_keys), ARG(out_indices), ARG(index_words));
    if (err == CL_SUCCESS)
        err = chain_kernel(&out, p->topk_write, groups_for(count, wg), wg);
    clReleaseEvent(ready);
    return chain_hand_over(&out, status_from_cl(err), event);
}

/* The call's survivors (rows x k keys with their positions in the whole array, each row's
   in input order), once `ready` is complete (taken): sorted stably, as one run or as rows
   of k, and written to the caller's outputs. */
static clradix_status sort_and_write(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, enum topk_path path, cl_mem survivors, cl_mem positions,
                                     cl_mem row_offsets, cl_event ready, cl_event *event)
{
    sort_request s = inner_sort(t, path);
    s.keys = survivors;
    s.values = positions;
    s.offsets = row_offsets;
    cl_event sorted = NULL;
    const clradix_status status = dispatch_sort(sorter, queue, &s, 1, &ready, &sorted);
    clReleaseEvent(ready);
    return status == CLRADIX_SUCCESS ? write_first_k(queue, p, t, positions, t->k, sorted, event) : status;
}

/* The radix select of one row of n keys with p (the caller holds no lock), in buffers b. */
static clradix_status enqueue_select(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, const topk_plan *plan, cl_mem *b, cl_uint num_wait,
                                     const cl_event *wait_list, cl_event *event)
{
    const sort_request *r = &t->r;
    const radix_params *q = &p->params;
    cl_uint low, mask;
    const cl_uint digits = top_digit(r, &low, &mask);
    const cl_uint n = (cl_uint)r->n, k = (cl_uint)t->k, slice = (cl_uint)((r->n + plan->groups - 1) / plan->groups);
    const cl_uint group_count = (cl_uint)plan->groups, chunk_count = (cl_uint)plan->chunks;
    const size_t groups = plan->groups, chunk_groups = plan->chunk_groups;
    key_args ka;
    make_key_args(r, &ka);

    chain c = { queue, num_wait, wait_list, NULL, 0 };
    cl_int err = set_args(p->topk_sample, 11, ARG(r->keys), ARG(n), ARG(ka.begin_bit), ARG(ka.end_bit), ARG(digits),
                          KEY_ORDER_ARGS(&ka), ARG(k), ARG(b[BOUNDS]), ARG(b[STATE]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_sample, 1, q->scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_range_count, 11, ARG(r->keys), ARG(n), ARG(slice), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[BOUNDS]), ARG(b[BELOW]), ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_range_count, groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_range_plan, 5, ARG(group_count), ARG(k), ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_range_plan, 1, 1);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_hist, 10, ARG(r->keys), ARG(n), ARG(slice), ARG(low), ARG(mask), KEY_ORDER_ARGS(&ka),
                       ARG(b[STATE]), ARG(b[TABLE]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_hist, groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_plan, 8, ARG(b[TABLE]), ARG(group_count), ARG(k), ARG(digits), ARG(b[BOUNDS]),
                       ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_plan, 1, q->scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_split, 15, ARG(r->keys), ARG(n), ARG(slice), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[BOUNDS]), ARG(b[BELOW]), ARG(b[EQUAL]), ARG(b[KEYS]), ARG(b[POSITIONS]),
                       ARG(b[CANDIDATES]), ARG(b[CANDIDATE_POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_split, groups, q->wg);
    for (cl_uint digit = digits; digit-- > 0 && err == CL_SUCCESS;) {
        err = set_args(p->topk_count, 9, ARG(b[CANDIDATES]), ARG(digit), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[BOUNDS]), ARG(b[STATE]));
        if (err == CL_SUCCESS)
            err = chain_kernel(&c, p->topk_count, chunk_groups, q->wg);
        if (err == CL_SUCCESS)
            err = set_args(p->topk_pick, 2, ARG(b[BOUNDS]), ARG(b[STATE]));
        if (err == CL_SUCCESS)
            err = chain_kernel(&c, p->topk_pick, 1, 1);
    }
    if (err == CL_SUCCESS)
        err = set_args(p->topk_chunk_counts, 10, ARG(b[CANDIDATES]), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[BOUNDS]), ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_chunk_counts, chunk_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_chunk_scan, 3, ARG(b[BELOW]), ARG(b[EQUAL]), ARG(chunk_count));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_chunk_scan, 1, 1);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_gather, 13, ARG(b[CANDIDATES]), ARG(b[CANDIDATE_POSITIONS]), ARG(ka.begin_bit),
                       ARG(ka.end_bit), KEY_ORDER_ARGS(&ka), ARG(b[BOUNDS]), ARG(b[STATE]), ARG(b[BELOW]),
                       ARG(b[EQUAL]), ARG(b[KEYS]), ARG(b[POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_gather, chunk_groups, q->wg);
    clradix_status status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS) {
        status = sort_and_write(sorter, queue, p, t, TOPK_SELECT, b[KEYS], b[POSITIONS], NULL, c.last, event);
        c.last = NULL;
    }
    if (c.last)
        clReleaseEvent(c.last);
    return status;
}

/* The first k of a full argsort into b[POSITIONS], of the whole array (rows == 1) or of
   each row (a segmented argsort, b[OFFSETS] holding the rows' offsets). */
static clradix_status enqueue_prefix(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, cl_mem *b, cl_uint num_wait, const cl_event *wait_list,
                                     cl_event *event)
{
    sort_request s = inner_sort(t, TOPK_PREFIX);
    s.values = b[POSITIONS];
    s.offsets = b[OFFSETS];
    cl_event sorted = NULL;
    const clradix_status status = dispatch_sort(sorter, queue, &s, num_wait, wait_list, &sorted);
    return status == CLRADIX_SUCCESS ? write_first_k(queue, p, t, b[POSITIONS], t->row_length, sorted, event)
                                     : status;
}

/* Rows: each row's survivors selected by one work-group into b, then sorted as segments of k. */
static clradix_status enqueue_rows(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                   const topk_call *t, const topk_plan *plan, cl_mem *b, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event)
{
    const sort_request *r = &t->r;
    key_args ka;
    make_key_args(r, &ka);
    const cl_uint rows = (cl_uint)t->rows, row_length = (cl_uint)t->row_length, k = (cl_uint)t->k;
    cl_uint low, mask;
    const cl_uint digits = top_digit(r, &low, &mask);
    chain c = { queue, num_wait, wait_list, NULL, 0 };
    cl_int err = set_args(p->topk_rows_select, 14, ARG(r->keys), ARG(rows), ARG(row_length), ARG(k), ARG(digits),
                          ARG(low), ARG(mask), ARG(ka.begin_bit), ARG(ka.end_bit), KEY_ORDER_ARGS(&ka), ARG(b[KEYS]),
                          ARG(b[POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_rows_select, plan->groups, p->params.wg);
    clradix_status status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS) {
        status = sort_and_write(sorter, queue, p, t, TOPK_ROWS, b[KEYS], b[POSITIONS], b[OFFSETS], c.last, event);
        c.last = NULL;
    }
    if (c.last)
        clReleaseEvent(c.last);
    return status;
}

/* The program of a checked top-k with outputs, and its plan. */
static clradix_status prepare_topk(clradix_sorter *sorter, const topk_call *t, radix_program **program,
                                   topk_plan *plan)
{
    const clradix_status status =
        program_get(sorter, PROGRAM_TOPK, (key_variant){ .bytes = t->r.key_bytes, .numpy_order = t->r.numpy_order }, 0, program);
    return status == CLRADIX_SUCCESS ? plan_topk(sorter, &(*program)->params, t, plan) : status;
}

/* The commands of a planned top-k, in buffers of its own that live until they are done. */
static clradix_status enqueue_topk(clradix_sorter *sorter, cl_command_queue queue, radix_program *program,
                                   const topk_call *t, const topk_plan *plan, cl_uint num_wait,
                                   const cl_event *wait_list, cl_event *event)
{
    clradix_status status = CLRADIX_SUCCESS;
    radix_program *p = program_kernels_take(sorter, program, &status);  /* kernels whose arguments it alone sets */
    if (status != CLRADIX_SUCCESS)
        return status;
    cl_mem b[BUFFERS] = { NULL };
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < BUFFERS; ++i)
        if (plan->bytes[i] && i != OFFSETS)
            b[i] = temporary(sorter, plan->bytes[i], &err);
    if (plan->bytes[OFFSETS] && err == CL_SUCCESS)
        b[OFFSETS] = row_offsets(sorter, t->rows, plan->path == TOPK_ROWS ? t->k : t->row_length, &err);
    status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS)
        status = plan->path == TOPK_SELECT ? enqueue_select(sorter, queue, p, t, plan, b, num_wait, wait_list, event)
               : plan->path == TOPK_ROWS   ? enqueue_rows(sorter, queue, p, t, plan, b, num_wait, wait_list, event)
                                           : enqueue_prefix(sorter, queue, p, t, b, num_wait, wait_list, event);
    release_all(sorter, b, BUFFERS);
    program_kernels_return(sorter, program, p);
    return status;
}

static clradix_status topk_device(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                  size_t rows, size_t row_length, size_t k, cl_mem out_keys, cl_mem out_indices,
                                  size_t index_size, const clradix_options *options, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event)
{
    if (!sorter || !queue || !keys)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    topk_call t = { 0 };
    clradix_status status = check_topk(sorter, type, rows, row_length, k, out_keys != NULL, out_indices != NULL,
                                       index_size, options, &t);
    if (status == CLRADIX_SUCCESS && t.r.n > CLRADIX_MAX_N)
        status = CLRADIX_ERROR_INVALID_ARGUMENT;  /* offsets in the kernels are 32-bit */
    if (status == CLRADIX_SUCCESS)
        status = check_queue(sorter, queue);
    if (status == CLRADIX_SUCCESS)
        status = check_wait_list(sorter, num_wait, wait_list);
    const size_t key_out = t.key_out, index_out = t.index_out;
    buffer_span key_span = { 0 }, keys_out_span = { 0 }, indices_out_span = { 0 };
    if (status == CLRADIX_SUCCESS)
        status = check_buffer(sorter, keys, t.r.keys_size, 0, &key_span);
    if (status == CLRADIX_SUCCESS && out_keys)
        status = check_buffer(sorter, out_keys, key_out, 1, &keys_out_span);
    if (status == CLRADIX_SUCCESS && out_indices)
        status = check_buffer(sorter, out_indices, index_out, 1, &indices_out_span);
    if (status == CLRADIX_SUCCESS
        && (overlap(&key_span, t.r.keys_size, &keys_out_span, out_keys ? key_out : 0)
            || overlap(&key_span, t.r.keys_size, &indices_out_span, out_indices ? index_out : 0)
            || (out_keys && out_indices && overlap(&keys_out_span, key_out, &indices_out_span, index_out))))
        status = CLRADIX_ERROR_INVALID_BUFFER;
    if (status != CLRADIX_SUCCESS)
        return status;
    if (t.outputs == 0) {  /* no rows, or k == 0: the caller's event alone */
        chain c = { queue, num_wait, wait_list, NULL, 0 };
        return chain_hand_over(&c, CLRADIX_SUCCESS, event);
    }
    t.r.keys = keys;
    t.out_keys = out_keys;
    t.out_indices = out_indices;
    radix_program *program;
    topk_plan plan;
    status = prepare_topk(sorter, &t, &program, &plan);
    if (status == CLRADIX_SUCCESS && plan.temporaries > device_budget(sorter))
        status = CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (status != CLRADIX_SUCCESS)
        return status;
    return enqueue_topk(sorter, queue, program, &t, &plan, num_wait, wait_list, event);
}

/* The host form: the keys and outputs through buffers of the sorter's own, blocking, once
   the sorter's memory holds them and the temporaries next to its other host calls
   (memory.c); the outputs are written only once everything has been read back. */
static clradix_status topk_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, const void *keys,
                                size_t rows, size_t row_length, size_t k, void *out_keys, void *out_indices,
                                size_t index_size, const clradix_options *options)
{
    if (!sorter || !keys)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    topk_call t = { 0 };
    clradix_status status = check_topk(sorter, type, rows, row_length, k, out_keys != NULL, out_indices != NULL,
                                       index_size, options, &t);
    if (status == CLRADIX_SUCCESS && queue)
        status = check_queue(sorter, queue);
    if (status == CLRADIX_SUCCESS && !sorter->limits.host_byte_order)
        status = CLRADIX_ERROR_UNSUPPORTED;  /* the device would read the host's integers wrong */
    if (status != CLRADIX_SUCCESS || t.outputs == 0)
        return status;
    const size_t key_out = t.key_out, index_out = t.index_out;
    if (t.r.n > CLRADIX_MAX_N || t.r.keys_size > sorter->limits.max_alloc || key_out > sorter->limits.max_alloc
        || index_out > sorter->limits.max_alloc)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    t.out_keys = t.out_indices = NULL;
    radix_program *program;
    topk_plan plan;
    status = prepare_topk(sorter, &t, &program, &plan);
    if (status != CLRADIX_SUCCESS)
        return status;
    const cl_ulong held = (cl_ulong)t.r.keys_size + key_out + index_out + plan.temporaries;
    if (held > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    unsigned char *staging = malloc(key_out + index_out);  /* the outputs until all is read */
    if (!staging)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    const cl_command_queue callers_queue = queue;
    status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    if (status != CLRADIX_SUCCESS) {
        free(staging);
        return status;
    }
    host_memory_admit(sorter, (size_t)held);
    /* The keys are only read: on a device that works in the host's memory, in place. */
    cl_int err = CL_SUCCESS;
    const cl_mem_flags key_flags = sorter->limits.host_unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR;
    t.r.keys = sorter_buffer(sorter, CL_MEM_READ_ONLY | key_flags, t.r.keys_size, (void *)keys, &err);
    t.out_keys = out_keys ? temporary(sorter, key_out, &err) : NULL;
    t.out_indices = out_indices ? temporary(sorter, index_out, &err) : NULL;
    status = status_from_cl(err);
    cl_event done = NULL;
    if (status == CLRADIX_SUCCESS)
        status = enqueue_topk(sorter, queue, program, &t, &plan, 0, NULL, &done);
    if (status == CLRADIX_SUCCESS && out_keys)
        status = status_from_cl(clEnqueueReadBuffer(queue, t.out_keys, CL_TRUE, 0, key_out, staging, 1, &done, NULL));
    if (status == CLRADIX_SUCCESS && out_indices)
        status = status_from_cl(
            clEnqueueReadBuffer(queue, t.out_indices, CL_TRUE, 0, index_out, staging + key_out, 1, &done, NULL));
    if (status != CLRADIX_SUCCESS)
        clFinish(queue);  /* nothing of this call runs once it has returned */
    if (done)
        clReleaseEvent(done);
    cl_mem buffers[] = { t.r.keys, t.out_keys, t.out_indices };
    release_all(sorter, buffers, 3);
    host_memory_done(sorter);
    if (!callers_queue)
        host_queue_return(sorter, queue);
    if (status == CLRADIX_SUCCESS) {
        if (out_keys)
            memcpy(out_keys, staging, key_out);
        if (out_indices)
            memcpy(out_indices, staging + key_out, index_out);
    }
    free(staging);
    return status;
}

clradix_status clradix_topk(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                            size_t n, size_t k, cl_mem out_keys, cl_mem out_indices, size_t index_size,
                            const clradix_options *options, cl_uint num_events_in_wait_list,
                            const cl_event *event_wait_list, cl_event *event)
{
    return topk_device(sorter, queue, type, keys, 1, n, k, out_keys, out_indices, index_size, options,
                       num_events_in_wait_list, event_wait_list, event);
}

clradix_status clradix_topk_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                 const void *keys, size_t n, size_t k, void *out_keys, void *out_indices,
                                 size_t index_size, const clradix_options *options)
{
    return topk_host(sorter, queue, type, keys, 1, n, k, out_keys, out_indices, index_size, options);
}

clradix_status clradix_topk_rows(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                 size_t rows, size_t row_length, size_t k, cl_mem out_keys, cl_mem out_indices,
                                 size_t index_size, const clradix_options *options, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return topk_device(sorter, queue, type, keys, rows, row_length, k, out_keys, out_indices, index_size, options,
                       num_events_in_wait_list, event_wait_list, event);
}

clradix_status clradix_topk_rows_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                      const void *keys, size_t rows, size_t row_length, size_t k, void *out_keys,
                                      void *out_indices, size_t index_size, const clradix_options *options)
{
    return topk_host(sorter, queue, type, keys, rows, row_length, k, out_keys, out_indices, index_size, options);
}
