/*
 * Public sort calls: every argument checked before anything is enqueued, then a
 * sort_request handed to dispatch.c (device buffers), the host engine (host.c) or the sort
 * by parts (outofcore.c).
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------------------------------------------
 * Argument checks shared by every sort call
 * ------------------------------------------------------------------------------ */

/* Fills the type, bit range and direction of r from the call's arguments. */
clradix_status check_keys(const clradix_sorter *sorter, clradix_key_type type, size_t n,
                          const clradix_options *options, sort_request *r)
{
    if (key_type_wide(type))
        return CLRADIX_ERROR_UNSUPPORTED;  /* the calls that take them route them before (records.c) */
    r->key_bytes = key_type_bytes(type);
    if (!r->key_bytes)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    const unsigned width = r->key_bytes * 8;
    r->type = type;
    r->numpy_order = key_transform_of(type, 0).nan_above != 0;
    r->n = n;
    r->descending = options && options->descending;
    if (!bit_range(options, width, &r->begin_bit, &r->end_bit))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (r->key_bytes == 8 && !sorter->limits.int64)
        return CLRADIX_ERROR_UNSUPPORTED;  /* an embedded-profile device without 64-bit integers */
    return CLRADIX_SUCCESS;
}

/* The bytes of the keys and values of r (type, n and value size set): an n whose sizes
   overflow size_t is beyond what the host can address. */
clradix_status check_sizes(sort_request *r)
{
    if (!size_mul(r->n, r->key_bytes, &r->keys_size) || !size_mul(r->n, r->value_size, &r->values_size))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return CLRADIX_SUCCESS;
}

static clradix_status check_value_size(size_t value_size)
{
    if (value_size == 0)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return value_size == 4 || value_size == 8 || value_size == 16 ? CLRADIX_SUCCESS : CLRADIX_ERROR_UNSUPPORTED;
}

clradix_status check_index_size(size_t index_size)
{
    return index_size == 4 || index_size == 8 ? CLRADIX_SUCCESS : CLRADIX_ERROR_INVALID_ARGUMENT;
}

clradix_status check_queue(const clradix_sorter *sorter, cl_command_queue queue)
{
    cl_context context = NULL;
    cl_device_id device = NULL;
    if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS
        || clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS
        || context != sorter->context || device != sorter->device)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return CLRADIX_SUCCESS;
}

clradix_status check_wait_list(const clradix_sorter *sorter, cl_uint count, const cl_event *events)
{
    if ((count > 0) != (events != NULL))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    for (cl_uint i = 0; i < count; ++i) {
        cl_context context = NULL;
        if (!events[i]
            || clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS
            || context != sorter->context)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
    }
    return CLRADIX_SUCCESS;
}

/* Where a buffer's bytes lie: its root buffer and the offset in it. */
/* A buffer of the sorter's context, of at least bytes, that kernels may read (and write). */
clradix_status check_buffer(const clradix_sorter *sorter, cl_mem buffer, size_t bytes, int written,
                            buffer_span *span)
{
    cl_context context = NULL;
    cl_mem_object_type type = 0;
    cl_mem_flags flags = 0;
    size_t size = 0;
    cl_mem parent = NULL;
    if (clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS)
        return CLRADIX_ERROR_INVALID_BUFFER;
    if (context != sorter->context)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof type, &type, NULL) != CL_SUCCESS
        || clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL) != CL_SUCCESS
        || clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS
        || clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) != CL_SUCCESS
        || clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof span->offset, &span->offset, NULL) != CL_SUCCESS)
        return CLRADIX_ERROR_INVALID_BUFFER;
    if (type != CL_MEM_OBJECT_BUFFER || size < bytes || (flags & CL_MEM_WRITE_ONLY)
        || (written && (flags & CL_MEM_READ_ONLY)))
        return CLRADIX_ERROR_INVALID_BUFFER;
    span->root = parent ? parent : buffer;  /* sub-buffers of sub-buffers are not allowed */
    return CLRADIX_SUCCESS;
}

/* Whether two spans of bytes (each within its root buffer, so the sums do not overflow)
   share a byte. */
int overlap(const buffer_span *a, size_t a_bytes, const buffer_span *b, size_t b_bytes)
{
    return a->root == b->root && a_bytes > 0 && b_bytes > 0 && a->offset < b->offset + b_bytes
        && b->offset < a->offset + a_bytes;
}

/* Checks the queue, wait list and buffers of a device-buffer call whose type, range and
   value size are already in r. */
clradix_status check_device_call(const clradix_sorter *sorter, cl_command_queue queue, cl_uint num_wait,
                                 const cl_event *wait_list, const sort_request *r)
{
    clradix_status status = check_queue(sorter, queue);
    if (status == CLRADIX_SUCCESS)
        status = check_wait_list(sorter, num_wait, wait_list);
    buffer_span key_span = { 0 }, value_span = { 0 };
    if (status == CLRADIX_SUCCESS)
        status = check_buffer(sorter, r->keys, r->keys_size, !r->argsort, &key_span);
    if (status == CLRADIX_SUCCESS && r->values)
        status = check_buffer(sorter, r->values, r->values_size, 1, &value_span);
    if (status == CLRADIX_SUCCESS && r->values && overlap(&key_span, r->keys_size, &value_span, r->values_size))
        status = CLRADIX_ERROR_INVALID_BUFFER;  /* keys and values overlap */
    if (status == CLRADIX_SUCCESS && r->offsets) {
        /* The offsets are only read, but must not change while the kernels write. */
        buffer_span offset_span = { 0 };
        size_t offsets_size = 0;
        status = size_mul(r->num_segments + 1, sizeof(cl_uint), &offsets_size) ? CLRADIX_SUCCESS
                                                                                 : CLRADIX_ERROR_INVALID_ARGUMENT;
        if (status == CLRADIX_SUCCESS)
            status = check_buffer(sorter, r->offsets, offsets_size, 0, &offset_span);
        if (status == CLRADIX_SUCCESS
            && ((!r->argsort && overlap(&key_span, r->keys_size, &offset_span, offsets_size))
                || (r->values && overlap(&value_span, r->values_size, &offset_span, offsets_size))))
            status = CLRADIX_ERROR_INVALID_BUFFER;
    }
    return status;
}

/* ---------------------------------------------------------------------------------
 * Device buffers
 * ------------------------------------------------------------------------------ */

/* The checks and the dispatch of every device-buffer call. */
/* The segments of a device-buffer call: none for a flat sort (segments NULL). */
typedef struct device_segments {
    cl_mem offsets;
    size_t count;
} device_segments;

static clradix_status sort_device(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                  cl_mem values, size_t value_size, int argsort, size_t n,
                                  const device_segments *segments, const clradix_options *options, cl_uint num_wait,
                                  const cl_event *wait_list, cl_event *event)
{
    if (!sorter || !queue || !keys || n > CLRADIX_MAX_N)
        return CLRADIX_ERROR_INVALID_ARGUMENT;  /* offsets in the kernels are 32-bit */
    if (key_type_wide(type) && !segments)
        return wide_keys_device(sorter, queue, type, keys, values, value_size, argsort, n, options, num_wait, wait_list,
                                event);
    if (segments && ((!segments->offsets && segments->count > 0) || segments->count >= CLRADIX_MAX_N))
        return CLRADIX_ERROR_INVALID_ARGUMENT;  /* num_segments + 1 offsets must be countable in 32 bits */
    sort_request r = { 0 };
    clradix_status status = check_keys(sorter, type, n, options, &r);
    if (status != CLRADIX_SUCCESS)
        return status;
    r.keys = keys;
    r.values = values;
    r.value_size = value_size;
    r.argsort = argsort;
    if (segments) {
        r.segmented = 1;
        r.num_segments = segments->count;
        r.offsets = segments->count ? segments->offsets : NULL;
    }
    status = check_sizes(&r);
    if (status == CLRADIX_SUCCESS)
        status = check_device_call(sorter, queue, num_wait, wait_list, &r);
    if (status != CLRADIX_SUCCESS)
        return status;
    return dispatch_sort(sorter, queue, &r, num_wait, wait_list, event);
}

clradix_status clradix_sort_keys(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                 size_t n, const clradix_options *options, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event)
{
    return sort_device(sorter, queue, type, keys, NULL, 0, 0, n, NULL, options, num_events_in_wait_list,
                       event_wait_list, event);
}

clradix_status clradix_sort_pairs(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                  cl_mem values, size_t value_size, size_t n, const clradix_options *options,
                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    if (!values)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_value_size(value_size);
    if (status != CLRADIX_SUCCESS)
        return status;
    return sort_device(sorter, queue, type, keys, values, value_size, 0, n, NULL, options, num_events_in_wait_list,
                       event_wait_list, event);
}

clradix_status clradix_argsort(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                               cl_mem indices, size_t index_size, size_t n, const clradix_options *options,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    if (!indices || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return sort_device(sorter, queue, type, keys, indices, index_size, 1, n, NULL, options, num_events_in_wait_list,
                       event_wait_list, event);
}

clradix_status clradix_sort_segments_keys(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                          cl_mem keys, size_t n, cl_mem offsets, size_t num_segments,
                                          const clradix_options *options, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event)
{
    const device_segments segments = { offsets, num_segments };
    return sort_device(sorter, queue, type, keys, NULL, 0, 0, n, &segments, options, num_events_in_wait_list,
                       event_wait_list, event);
}

clradix_status clradix_sort_segments_pairs(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                           cl_mem keys, cl_mem values, size_t value_size, size_t n, cl_mem offsets,
                                           size_t num_segments, const clradix_options *options,
                                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                           cl_event *event)
{
    if (!values)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_value_size(value_size);
    if (status != CLRADIX_SUCCESS)
        return status;
    const device_segments segments = { offsets, num_segments };
    return sort_device(sorter, queue, type, keys, values, value_size, 0, n, &segments, options,
                       num_events_in_wait_list, event_wait_list, event);
}

clradix_status clradix_argsort_segments(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                        cl_mem keys, cl_mem indices, size_t index_size, size_t n, cl_mem offsets,
                                        size_t num_segments, const clradix_options *options,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event)
{
    if (!indices || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    const device_segments segments = { offsets, num_segments };
    return sort_device(sorter, queue, type, keys, indices, index_size, 1, n, &segments, options,
                       num_events_in_wait_list, event_wait_list, event);
}

/* ---------------------------------------------------------------------------------
 * Host arrays
 * ------------------------------------------------------------------------------ */

/* The checks of a host-array call on sorter, filling r. */
static clradix_status check_host_call(clradix_sorter *sorter, clradix_key_type type, size_t value_size, int argsort,
                                      size_t n, const clradix_options *options, sort_request *r)
{
    clradix_status status = check_keys(sorter, type, n, options, r);
    if (status != CLRADIX_SUCCESS)
        return status;
    r->value_size = value_size;
    r->argsort = argsort;
    status = check_sizes(r);
    if (status == CLRADIX_SUCCESS && argsort && value_size == 4 && n > CLRADIX_MAX_N)
        status = CLRADIX_ERROR_INVALID_ARGUMENT;  /* indices that 4 bytes do not hold */
    if (status == CLRADIX_SUCCESS && !sorter->limits.host_byte_order)
        status = CLRADIX_ERROR_UNSUPPORTED;  /* the device would read the host's integers wrong */
    return status;
}

/* The checks of every host-array call, then the sort: in core when the device takes it at
   once, else by parts. */
static clradix_status host_call(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, void *keys,
                                void *values, size_t value_size, int argsort, size_t n, const clradix_options *options)
{
    if (!sorter || !keys)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (key_type_wide(type))
        return wide_keys_host(sorter, queue, type, keys, values, value_size, argsort, n, options);
    sort_request r = { 0 };
    clradix_status status = check_host_call(sorter, type, value_size, argsort, n, options, &r);
    if (status == CLRADIX_SUCCESS && queue)
        status = check_queue(sorter, queue);
    if (status != CLRADIX_SUCCESS || n == 0 || (r.begin_bit == r.end_bit && !argsort))
        return status;
    return host_sort(sorter, queue, &r, keys, values);
}

clradix_status host_sort(clradix_sorter *sorter, cl_command_queue queue, sort_request *r, void *keys, void *values)
{
    if (!host_fits_in_core(sorter, r))
        return host_sort_by_parts(&sorter, 1, queue, r, keys, values);
    const cl_command_queue callers_queue = queue;
    clradix_status status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    int touched = 0;
    if (status == CLRADIX_SUCCESS)
        status = host_sort_in_core(sorter, queue, r, keys, values, keys, values, &touched);
    if (!callers_queue && queue)
        host_queue_return(sorter, queue);
    if (status == CLRADIX_ERROR_OUT_OF_RESOURCES && !touched) {  /* the device took less than it said: by parts */
        r->keys = r->values = NULL;
        status = host_sort_by_parts(&sorter, 1, callers_queue, r, keys, values);
    }
    return status;
}

/* ---------------------------------------------------------------------------------
 * Segmented sorts of host arrays
 * ------------------------------------------------------------------------------ */

/* The checks of the segmented host calls, then the sort: in runs of consecutive segments
   that fit the device at once, each the longest that fits; a segment that fits alone in
   no run goes by parts, as a flat sort of its own. */
static clradix_status host_segments_call(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                         void *keys, void *values, size_t value_size, int argsort, size_t n,
                                         const size_t *offsets, size_t num_segments, const clradix_options *options)
{
    if (!sorter || !keys || (!offsets && num_segments > 0))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    sort_request r = { 0 };
    clradix_status status = check_host_call(sorter, type, value_size, argsort, n, options, &r);
    if (status == CLRADIX_SUCCESS && queue)
        status = check_queue(sorter, queue);
    for (size_t i = 0; i < num_segments && status == CLRADIX_SUCCESS; ++i)
        if (offsets[i] > offsets[i + 1] || offsets[i + 1] > n)
            status = CLRADIX_ERROR_INVALID_ARGUMENT;
    if (status != CLRADIX_SUCCESS || num_segments == 0 || offsets[0] == offsets[num_segments]
        || (r.begin_bit == r.end_bit && !argsort))
        return status;

    const cl_command_queue callers_queue = queue;
    status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    for (size_t first = 0; first < num_segments && status == CLRADIX_SUCCESS;) {
        /* The longest run from first that fits: a binary search, since fitting only gets
           harder with more segments. */
        size_t fits = first, too_many = num_segments + 1;
        while (too_many - fits > 1) {
            const size_t middle = fits + (too_many - fits) / 2;
            if (host_segments_fit(sorter, &r, offsets, first, middle, 1))
                fits = middle;
            else
                too_many = middle;
        }
        if (fits > first) {
            status = host_segments_in_core(sorter, queue, &r, keys, values, keys, values, offsets, first, fits);
            first = fits;
        } else {
            const size_t begin = offsets[first], count = offsets[first + 1] - begin;
            char *segment_values = values ? (char *)values + begin * value_size : NULL;
            status = host_call(sorter, callers_queue, type, (char *)keys + begin * r.key_bytes, segment_values,
                               value_size, argsort, count, options);
            if (status == CLRADIX_SUCCESS && argsort)
                add_to_indices(segment_values, value_size, count, begin);
            ++first;
        }
    }
    if (!callers_queue && queue)
        host_queue_return(sorter, queue);
    return status;
}

clradix_status clradix_sort_segments_keys_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                               void *keys, size_t n, const size_t *offsets, size_t num_segments,
                                               const clradix_options *options)
{
    return host_segments_call(sorter, queue, type, keys, NULL, 0, 0, n, offsets, num_segments, options);
}

clradix_status clradix_sort_segments_pairs_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                                void *keys, void *values, size_t value_size, size_t n,
                                                const size_t *offsets, size_t num_segments,
                                                const clradix_options *options)
{
    if (!values)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_value_size(value_size);
    if (status != CLRADIX_SUCCESS)
        return status;
    return host_segments_call(sorter, queue, type, keys, values, value_size, 0, n, offsets, num_segments, options);
}

clradix_status clradix_argsort_segments_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                             const void *keys, void *indices, size_t index_size, size_t n,
                                             const size_t *offsets, size_t num_segments,
                                             const clradix_options *options)
{
    if (!indices || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return host_segments_call(sorter, queue, type, (void *)keys, indices, index_size, 1, n, offsets, num_segments,
                              options);
}

/* The checks of every multi-device call (on every sorter), then the sort: in core on the
   first sorter whose device takes it at once, else by parts shared by all. (By parts, the
   host's partition pass alone costs more than one device's whole in-core sort: on POCL's
   two CPU devices, u32 keys by parts took 3.5x the in-core sort's time at 2^22 keys and
   7x at 2^12, and a GPU sorts faster still than the host partitions.) */
static clradix_status multi_call(clradix_sorter *const *sorters, unsigned num_sorters, clradix_key_type type,
                                 void *keys, void *values, size_t value_size, int argsort, size_t n,
                                 const clradix_options *options)
{
    if (!sorters || num_sorters == 0 || !keys)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < num_sorters; ++i)
        if (!sorters[i])
            return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (key_type_wide(type))
        return CLRADIX_ERROR_UNSUPPORTED;
    if (num_sorters == 1)
        return host_call(sorters[0], NULL, type, keys, values, value_size, argsort, n, options);
    sort_request r = { 0 };
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned i = 0; i < num_sorters && status == CLRADIX_SUCCESS; ++i)
        status = check_host_call(sorters[i], type, value_size, argsort, n, options, &r);
    if (status != CLRADIX_SUCCESS || n == 0 || (r.begin_bit == r.end_bit && !argsort))
        return status;
    for (unsigned i = 0; i < num_sorters; ++i)
        if (host_fits_in_core(sorters[i], &r))
            return host_call(sorters[i], NULL, type, keys, values, value_size, argsort, n, options);
    return host_sort_by_parts(sorters, num_sorters, NULL, &r, keys, values);
}

clradix_status clradix_sort_keys_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                      void *keys, size_t n, const clradix_options *options)
{
    return host_call(sorter, queue, type, keys, NULL, 0, 0, n, options);
}

clradix_status clradix_sort_pairs_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                       void *keys, void *values, size_t value_size, size_t n,
                                       const clradix_options *options)
{
    if (!sorter || !keys || !values)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_value_size(value_size);
    if (status != CLRADIX_SUCCESS)
        return status;
    return host_call(sorter, queue, type, keys, values, value_size, 0, n, options);
}

clradix_status clradix_argsort_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type,
                                    const void *keys, void *indices, size_t index_size, size_t n,
                                    const clradix_options *options)
{
    if (!indices || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return host_call(sorter, queue, type, (void *)keys, indices, index_size, 1, n, options);
}

clradix_status clradix_sort_keys_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                            clradix_key_type type, void *keys, size_t n,
                                            const clradix_options *options)
{
    return multi_call(sorters, num_sorters, type, keys, NULL, 0, 0, n, options);
}

clradix_status clradix_sort_pairs_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                             clradix_key_type type, void *keys, void *values, size_t value_size,
                                             size_t n, const clradix_options *options)
{
    if (!values)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_value_size(value_size);
    if (status != CLRADIX_SUCCESS)
        return status;
    return multi_call(sorters, num_sorters, type, keys, values, value_size, 0, n, options);
}

clradix_status clradix_argsort_host_multi(clradix_sorter *const *sorters, unsigned num_sorters,
                                          clradix_key_type type, const void *keys, void *indices, size_t index_size,
                                          size_t n, const clradix_options *options)
{
    if (!indices || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return multi_call(sorters, num_sorters, type, (void *)keys, indices, index_size, 1, n, options);
}
