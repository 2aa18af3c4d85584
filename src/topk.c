/*
 * Top-k: the first k keys of the stable sort. A flat top-k (one row) is a radix select
 * (cl/topk.cl): two reads of the keys cut them down to candidates (a sample bounds the
 * k-th key's top digit, a count per slice checks it, with a count of every top digit as
 * the fallback, and a stable split keeps the candidates), then per digit a count over the
 * candidates and a pick of the digit that holds the k-th key; the survivors gathered in
 * input order are sorted stably with their positions by dispatch_sort and written out.
 * Rows are selected one per work-group and sorted as segments of k. Where a full sort is
 * cheaper (a large k per the tuning row, rows longer than medium_n), the first k of an
 * argsort instead. Nothing waits for the device: every command waits on the one before.
 */
#include "internal.h"

#include <stdlib.h>

/* A validated top-k: the keys as a request (type, range, direction, n; only read), the
   rows and the outputs. */
typedef struct topk_call {
    sort_request r;
    size_t rows, row_length, k;  /* a flat top-k is one row of n keys */
    cl_mem out_keys, out_indices;
    size_t index_size;           /* 0 when no indices are wanted */
    cl_ulong held;               /* device bytes the call holds already (the host forms' copies) */
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
    return status;
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

/* The call's last event to the caller on success (else released); returns status. */
static clradix_status hand_over(clradix_status status, cl_event last, cl_event *event)
{
    if (status == CLRADIX_SUCCESS && event)
        *event = last;
    else if (last)
        clReleaseEvent(last);
    return status;
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

/* Each row's first k into the caller's outputs once `ready` is complete (taken): keys read
   at their positions, order[row * order_stride ...] (in the whole array, in the wanted order). */
static clradix_status write_first_k(cl_command_queue queue, const radix_program *p,
                                    const topk_call *t, cl_mem order, size_t order_stride, cl_event ready,
                                    cl_event *event)
{
    const cl_uint stride = (cl_uint)order_stride, row_length = (cl_uint)t->row_length, k = (cl_uint)t->k;
    const cl_uint count = (cl_uint)(t->rows * t->k), want_keys = t->out_keys != NULL;
    const cl_uint index_words = (cl_uint)(t->index_size / 4);
    /* An output not wanted gets a buffer of the call's that the kernel never writes. */
    const cl_mem out_keys = t->out_keys ? t->out_keys : order, out_indices = t->out_indices ? t->out_indices : order;
    const size_t wg = p->params.scan_wg;
    chain out = { queue, 1, &ready, NULL };
    cl_int err = set_args(p->topk_write, 10, ARG(t->r.keys), ARG(order), ARG(stride), ARG(row_length), ARG(k),
                          ARG(count), ARG(out_keys), ARG(want_keys), ARG(out_indices), ARG(index_words));
    if (err == CL_SUCCESS)
        err = chain_kernel(&out, p->topk_write, groups_for(count, wg), wg);
    clReleaseEvent(ready);
    return hand_over(status_from_cl(err), out.last, event);
}

/* The call's survivors (rows x k keys with their positions in the whole array, each row's
   in input order), once `ready` is complete (taken): sorted stably, as one run or as rows
   of k, and written to the caller's outputs. */
static clradix_status sort_and_write(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, cl_mem survivors, cl_mem positions, cl_mem row_offsets,
                                     cl_event ready, cl_event *event)
{
    const size_t count = t->rows * t->k;
    sort_request s = t->r;
    s.keys = survivors;
    s.values = positions;
    s.value_size = sizeof(cl_uint);
    s.argsort = 0;
    s.n = count;
    s.keys_size = count * t->r.key_bytes;
    s.values_size = count * sizeof(cl_uint);
    s.segmented = row_offsets != NULL;
    s.offsets = row_offsets;
    s.num_segments = row_offsets ? t->rows : 0;
    cl_event sorted = NULL;
    const clradix_status status = dispatch_sort(sorter, queue, &s, 1, &ready, &sorted);
    clReleaseEvent(ready);
    return status == CLRADIX_SUCCESS ? write_first_k(queue, p, t, positions, t->k, sorted, event) : status;
}

/* The radix select of one row of n keys with p (the caller holds no lock). */
static clradix_status enqueue_select(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    const sort_request *r = &t->r;
    const radix_params *q = &p->params;
    /* Slices of the keys, one per work-group, and the candidates in chunks, one per
       work-item (of as many work-groups again): as many as the device runs at once, or
       more where loops are budgeted (loops.c), as few as keep them within it. */
    const cl_ulong allowed = loops_allowed(&sorter->limits), slice_cap = loops_topk_slice_cap(q, allowed);
    if (slice_cap == 0)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    size_t groups = q->max_groups, chunk_groups = q->max_groups;
    if (groups < (r->n + slice_cap - 1) / slice_cap)
        groups = (size_t)((r->n + slice_cap - 1) / slice_cap);
    if (allowed != ~(cl_ulong)0 && chunk_groups * q->wg < r->n / (allowed / 2))
        chunk_groups = (r->n / (allowed / 2) + q->wg - 1) / q->wg;
    const size_t chunks = chunk_groups * q->wg, sums = chunks > groups ? chunks : groups;
    /* One work-item's loops over the slices (topk_range_plan; topk_plan's sums of the
       digits, then the slices' counts below the chosen one) and the chunks (topk_chunk_scan). */
    const size_t swg = q->scan_wg;
    if ((256 + swg - 1) / swg * (groups + 1) + (groups + swg - 1) / swg * 257 + groups + 512 > allowed
        || chunks > allowed)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    cl_uint low, mask;
    const cl_uint digits = top_digit(r, &low, &mask);
    const cl_uint n = (cl_uint)r->n, k = (cl_uint)t->k, slice = (cl_uint)((r->n + groups - 1) / groups);
    const cl_uint group_count = (cl_uint)groups, chunk_count = (cl_uint)chunks;
    enum { PREFIX, STATE, TABLE, BELOW, EQUAL, CANDIDATES, CANDIDATE_POSITIONS, KEYS, POSITIONS, BUFFERS };
    const size_t bytes[BUFFERS] = { r->key_bytes, (6 + 256) * sizeof(cl_uint), 256 * groups * sizeof(cl_uint),
                                    sums * sizeof(cl_uint), sums * sizeof(cl_uint), r->n * r->key_bytes,
                                    r->n * sizeof(cl_uint), t->k * r->key_bytes, t->k * sizeof(cl_uint) };
    cl_ulong total = t->held;
    for (int i = 0; i < BUFFERS; ++i)
        total += bytes[i];
    if (bytes[CANDIDATES] > sorter->limits.max_alloc || bytes[CANDIDATE_POSITIONS] > sorter->limits.max_alloc
        || total > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    cl_mem b[BUFFERS] = { NULL };
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < BUFFERS; ++i)
        b[i] = temporary(sorter, bytes[i], &err);
    key_args ka;
    make_key_args(r, &ka);

    chain c = { queue, num_wait, wait_list, NULL };
    if (err == CL_SUCCESS)
        err = set_args(p->topk_sample, 10, ARG(r->keys), ARG(n), ARG(low), ARG(mask), KEY_ORDER_ARGS(&ka), ARG(k),
                       ARG(b[PREFIX]), ARG(b[STATE]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_sample, 1, q->scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_range_count, 11, ARG(r->keys), ARG(n), ARG(slice), ARG(low), ARG(mask),
                       KEY_ORDER_ARGS(&ka), ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]));
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
        err = set_args(p->topk_plan, 6, ARG(b[TABLE]), ARG(group_count), ARG(k), ARG(b[STATE]), ARG(b[BELOW]),
                       ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_plan, 1, q->scan_wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_split, 15, ARG(r->keys), ARG(n), ARG(slice), ARG(low), ARG(mask), KEY_ORDER_ARGS(&ka),
                       ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]), ARG(b[KEYS]), ARG(b[POSITIONS]),
                       ARG(b[CANDIDATES]), ARG(b[CANDIDATE_POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_split, groups, q->wg);
    for (cl_uint digit = digits; digit-- > 0 && err == CL_SUCCESS;) {
        err = set_args(p->topk_count, 9, ARG(b[CANDIDATES]), ARG(digit), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[PREFIX]), ARG(b[STATE]));
        if (err == CL_SUCCESS)
            err = chain_kernel(&c, p->topk_count, chunk_groups, q->wg);
        if (err == CL_SUCCESS)
            err = set_args(p->topk_pick, 2, ARG(b[PREFIX]), ARG(b[STATE]));
        if (err == CL_SUCCESS)
            err = chain_kernel(&c, p->topk_pick, 1, 1);
    }
    if (err == CL_SUCCESS)
        err = set_args(p->topk_chunk_counts, 10, ARG(b[CANDIDATES]), ARG(ka.begin_bit), ARG(ka.end_bit),
                       KEY_ORDER_ARGS(&ka), ARG(b[PREFIX]), ARG(b[STATE]), ARG(b[BELOW]), ARG(b[EQUAL]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_chunk_counts, chunk_groups, q->wg);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_chunk_scan, 3, ARG(b[BELOW]), ARG(b[EQUAL]), ARG(chunk_count));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_chunk_scan, 1, 1);
    if (err == CL_SUCCESS)
        err = set_args(p->topk_gather, 13, ARG(b[CANDIDATES]), ARG(b[CANDIDATE_POSITIONS]), ARG(ka.begin_bit),
                       ARG(ka.end_bit), KEY_ORDER_ARGS(&ka), ARG(b[PREFIX]), ARG(b[STATE]), ARG(b[BELOW]),
                       ARG(b[EQUAL]), ARG(b[KEYS]), ARG(b[POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_gather, chunk_groups, q->wg);
    clradix_status status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS) {
        status = sort_and_write(sorter, queue, p, t, b[KEYS], b[POSITIONS], NULL, c.last, event);
        c.last = NULL;
    }
    if (c.last)
        clReleaseEvent(c.last);
    release_all(sorter, b, BUFFERS);
    return status;
}

/* The first k of a full argsort, of the whole array (rows == 1) or of each row (a
   segmented argsort): where the select would cost more (a flat top-k of many of the keys,
   see the tuning table's topk_sort; rows too long for one work-group). */
static clradix_status enqueue_prefix(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                     const topk_call *t, cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    const size_t order_bytes = t->r.n * sizeof(cl_uint), offsets_bytes = (t->rows + 1) * sizeof(cl_uint);
    if (order_bytes > sorter->limits.max_alloc || t->held + order_bytes + offsets_bytes > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    cl_int err = CL_SUCCESS;
    cl_mem order = temporary(sorter, order_bytes, &err), offsets = NULL;
    if (t->rows > 1 && err == CL_SUCCESS)
        offsets = row_offsets(sorter, t->rows, t->row_length, &err);
    clradix_status status = status_from_cl(err);
    cl_event sorted = NULL;
    if (status == CLRADIX_SUCCESS) {
        sort_request s = t->r;  /* an argsort: the keys are only read */
        s.values = order;
        s.value_size = sizeof(cl_uint);
        s.values_size = order_bytes;
        s.segmented = offsets != NULL;
        s.offsets = offsets;
        s.num_segments = offsets ? t->rows : 0;
        status = dispatch_sort(sorter, queue, &s, num_wait, wait_list, &sorted);
    }
    if (status == CLRADIX_SUCCESS)
        status = write_first_k(queue, p, t, order, t->row_length, sorted, event);
    cl_mem buffers[] = { order, offsets };
    release_all(sorter, buffers, 2);
    return status;
}

/* Rows: each row's survivors selected by one work-group, then sorted as segments of k. */
static clradix_status enqueue_rows(clradix_sorter *sorter, cl_command_queue queue, const radix_program *p,
                                   const topk_call *t, cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    const sort_request *r = &t->r;
    const size_t count = t->rows * t->k;
    /* A row per work-group at a time: as many groups as the device runs at once, or where
       loops are budgeted (loops.c) enough that each group's rows fit in it. */
    const cl_ulong allowed = loops_allowed(&sorter->limits);
    const cl_ulong rows_per_group = allowed / loops_topk_row(&p->params, r->key_bytes, t->row_length);
    size_t groups = t->rows < p->params.max_groups ? t->rows : p->params.max_groups;
    if (groups < (t->rows + rows_per_group - 1) / rows_per_group)
        groups = (size_t)((t->rows + rows_per_group - 1) / rows_per_group);
    enum { KEYS, POSITIONS, OFFSETS, BUFFERS };
    const size_t bytes[BUFFERS] = { count * r->key_bytes, count * sizeof(cl_uint), (t->rows + 1) * sizeof(cl_uint) };
    if (bytes[KEYS] > sorter->limits.max_alloc || bytes[POSITIONS] > sorter->limits.max_alloc
        || t->held + bytes[KEYS] + bytes[POSITIONS] + bytes[OFFSETS] > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    cl_int err = CL_SUCCESS;
    cl_mem b[BUFFERS];
    b[KEYS] = temporary(sorter, bytes[KEYS], &err);
    b[POSITIONS] = temporary(sorter, bytes[POSITIONS], &err);
    b[OFFSETS] = err == CL_SUCCESS ? row_offsets(sorter, t->rows, t->k, &err) : NULL;
    key_args ka;
    make_key_args(r, &ka);
    const cl_uint rows = (cl_uint)t->rows, row_length = (cl_uint)t->row_length, k = (cl_uint)t->k;
    cl_uint low, mask;
    const cl_uint digits = top_digit(r, &low, &mask);
    chain c = { queue, num_wait, wait_list, NULL };
    if (err == CL_SUCCESS)
        err = set_args(p->topk_rows_select, 14, ARG(r->keys), ARG(rows), ARG(row_length), ARG(k), ARG(digits),
                       ARG(low), ARG(mask), ARG(ka.begin_bit), ARG(ka.end_bit), KEY_ORDER_ARGS(&ka), ARG(b[KEYS]),
                       ARG(b[POSITIONS]));
    if (err == CL_SUCCESS)
        err = chain_kernel(&c, p->topk_rows_select, groups, p->params.wg);
    clradix_status status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS) {
        status = sort_and_write(sorter, queue, p, t, b[KEYS], b[POSITIONS], b[OFFSETS], c.last, event);
        c.last = NULL;
    }
    if (c.last)
        clReleaseEvent(c.last);
    release_all(sorter, b, BUFFERS);
    return status;
}

/* A checked call's commands: a marker when nothing is to be written. */
static clradix_status enqueue_topk(clradix_sorter *sorter, cl_command_queue queue, const topk_call *t,
                                   cl_uint num_wait, const cl_event *wait_list, cl_event *event)
{
    if (t->rows == 0 || t->k == 0) {
        if (!event)
            return CLRADIX_SUCCESS;
        chain c = { queue, num_wait, wait_list, NULL };
        const clradix_status status = status_from_cl(chain_marker(&c));
        return hand_over(status, c.last, event);
    }
    radix_program *program, *p = NULL;
    clradix_status status = program_get(sorter, PROGRAM_TOPK, (key_variant){ t->r.key_bytes, t->r.numpy_order }, 0,
                                        &program);
    if (status == CLRADIX_SUCCESS)
        p = program_kernels_take(sorter, program, &status);  /* kernels whose arguments this call alone sets */
    if (status != CLRADIX_SUCCESS)
        return status;
    /* Rows up to medium_n keys (about a core's cache; what the engine gives one work-group)
       are selected one per work-group; longer ones take all work-groups in the engine. */
    /* So are rows whose select one work-item's loops cannot finish on a device with a loop
       budget (loops.c). */
    const unsigned sort_share = p->params.topk_sort;
    const int rows_selected = t->row_length <= p->params.medium_n
                           && loops_topk_row(&p->params, t->r.key_bytes, t->row_length)
                                  <= loops_allowed(&sorter->limits);
    if (t->rows > 1)
        status = rows_selected ? enqueue_rows(sorter, queue, p, t, num_wait, wait_list, event)
                               : enqueue_prefix(sorter, queue, p, t, num_wait, wait_list, event);
    else
        status = sort_share && t->k >= t->r.n / sort_share
                     ? enqueue_prefix(sorter, queue, p, t, num_wait, wait_list, event)
                     : enqueue_select(sorter, queue, p, t, num_wait, wait_list, event);
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
    const size_t outputs = rows * k, key_out = outputs * t.r.key_bytes, index_out = outputs * t.index_size;
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
    t.r.keys = keys;
    t.out_keys = out_keys;
    t.out_indices = out_indices;
    return enqueue_topk(sorter, queue, &t, num_wait, wait_list, event);
}

/* The host form: the keys and outputs through buffers of the sorter's own, blocking. */
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
    const size_t outputs = rows * k, key_out = outputs * t.r.key_bytes, index_out = outputs * t.index_size;
    if (status != CLRADIX_SUCCESS || outputs == 0)
        return status;
    if (t.r.n > CLRADIX_MAX_N || t.r.keys_size > sorter->limits.max_alloc
        || (cl_ulong)t.r.keys_size + key_out + index_out > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    const cl_command_queue callers_queue = queue;
    status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    if (status != CLRADIX_SUCCESS)
        return status;
    /* The keys are only read: on a device that works in the host's memory, in place. */
    cl_int err = CL_SUCCESS;
    const cl_mem_flags key_flags = sorter->limits.host_unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR;
    t.r.keys = sorter_buffer(sorter, CL_MEM_READ_ONLY | key_flags, t.r.keys_size, (void *)keys, &err);
    t.out_keys = out_keys ? temporary(sorter, key_out, &err) : NULL;
    t.out_indices = out_indices ? temporary(sorter, index_out, &err) : NULL;
    t.held = (cl_ulong)t.r.keys_size + key_out + index_out;
    status = status_from_cl(err);
    cl_event done = NULL;
    if (status == CLRADIX_SUCCESS)
        status = enqueue_topk(sorter, queue, &t, 0, NULL, &done);
    if (status == CLRADIX_SUCCESS && out_keys)
        status = status_from_cl(clEnqueueReadBuffer(queue, t.out_keys, CL_TRUE, 0, key_out, out_keys, 1, &done, NULL));
    if (status == CLRADIX_SUCCESS && out_indices)
        status = status_from_cl(
            clEnqueueReadBuffer(queue, t.out_indices, CL_TRUE, 0, index_out, out_indices, 1, &done, NULL));
    if (status != CLRADIX_SUCCESS)
        clFinish(queue);  /* nothing of this call runs once it has returned */
    if (done)
        clReleaseEvent(done);
    cl_mem buffers[] = { t.r.keys, t.out_keys, t.out_indices };
    release_all(sorter, buffers, 3);
    if (!callers_queue)
        host_queue_return(sorter, queue);
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
