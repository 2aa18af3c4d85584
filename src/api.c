/*
 * Public entry points: sorter lifetime, and the sort calls, which check every argument
 * before anything is enqueued and then hand a sort_request to dispatch.c.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------
 * Sorter lifetime
 * ------------------------------------------------------------------------------ */

static size_t smaller(size_t a, size_t b)
{
    return a < b ? a : b;
}

static int host_is_little_endian(void)
{
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

static clradix_status query_limits(cl_device_id device, device_limits *limits)
{
    size_t max_wg = 0, *item_sizes = NULL;
    cl_uint dimensions = 0;
    cl_bool little_endian = CL_TRUE, unified = CL_FALSE;
    clradix_status status = CLRADIX_ERROR_OPENCL;
    if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof limits->type, &limits->type, NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof limits->compute_units, &limits->compute_units,
                           NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dimensions, &dimensions, NULL)
               != CL_SUCCESS
        || dimensions < 1
        || clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limits->local_mem, &limits->local_mem, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof limits->max_alloc, &limits->max_alloc, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof limits->global_mem, &limits->global_mem, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_ENDIAN_LITTLE, sizeof little_endian, &little_endian, NULL) != CL_SUCCESS)
        return status;
    /* As many sizes as the device has dimensions, which may be more than three. */
    item_sizes = calloc(dimensions, sizeof *item_sizes);
    if (!item_sizes)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof *item_sizes, item_sizes, NULL)
        == CL_SUCCESS) {
        limits->max_wg = smaller(max_wg, item_sizes[0]);
        status = CLRADIX_SUCCESS;
    }
    free(item_sizes);
    if (status != CLRADIX_SUCCESS)
        return status;
    limits->host_byte_order = !little_endian == !host_is_little_endian();
    if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) == CL_SUCCESS)
        limits->host_unified = unified == CL_TRUE;  /* an optional query: a copy otherwise */
#ifdef CLRADIX_TESTING
    size_t local_mem = (size_t)limits->local_mem;
    testing_device_limits(&local_mem, &limits->max_wg, &limits->max_alloc, &limits->global_mem);
    limits->local_mem = local_mem;
#endif

    char profile[64] = "", *extensions = NULL;
    size_t extensions_size = 0;
    clGetDeviceInfo(device, CL_DEVICE_PROFILE, sizeof profile - 1, profile, NULL);
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &extensions_size) == CL_SUCCESS
        && (extensions = calloc(1, extensions_size + 1)) != NULL)
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, extensions_size, extensions, NULL);
    const int full_profile = !strcmp(profile, "FULL_PROFILE");
    limits->int64_extension = !full_profile && extensions && strstr(extensions, "cles_khr_int64");
    limits->int64 = full_profile || limits->int64_extension;
    free(extensions);
    /* Intel's CPU runtime crashes in functions with barriers that it keeps out of line
       (cl/common.cl, BARRIER_FUNCTION); forcing them inline elsewhere breaks POCL and oclgrind. */
    char platform_name[256];
    device_platform_name(device, platform_name, sizeof platform_name);
    limits->inline_barrier_functions = (limits->type & CL_DEVICE_TYPE_CPU) && strstr(platform_name, "Intel") != NULL;
    if (limits->compute_units == 0)
        limits->compute_units = 1;
    return CLRADIX_SUCCESS;
}

static int context_has_device(cl_context context, cl_device_id device)
{
    size_t bytes = 0;
    if (clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &bytes) != CL_SUCCESS || bytes == 0)
        return 0;
    cl_device_id *devices = malloc(bytes);
    int found = 0;
    if (devices && clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof *devices; ++i)
            found |= devices[i] == device;
    free(devices);
    return found;
}

void clradix_sorter_release(clradix_sorter *sorter)
{
    if (!sorter)
        return;
    for (int kind = 0; kind < PROGRAM_KINDS; ++kind)
        for (int k = 0; k < KEY_CLASSES; ++k)
            for (int v = 0; v < VALUE_CLASSES; ++v)
                program_release(&sorter->programs[kind][k][v]);
    for (unsigned i = 0; i < sorter->idle_count; ++i)
        clReleaseCommandQueue(sorter->idle_queues[i]);
    for (unsigned i = 0; i < sorter->scratch_count; ++i)
        scratch_free(sorter, sorter->scratch_pool[i]);
    if (sorter->context)
        clReleaseContext(sorter->context);
    if (sorter->device)
        clReleaseDevice(sorter->device);
    build_logs_free(sorter);
    pthread_cond_destroy(&sorter->memory_freed);
    pthread_cond_destroy(&sorter->program_built);
    pthread_mutex_destroy(&sorter->memory_lock);
    pthread_mutex_destroy(&sorter->lock);
    free(sorter);
}

/* The sorter's locks and conditions; 0, with none of them left, on failure. */
static int sync_init(clradix_sorter *sorter)
{
    if (pthread_mutex_init(&sorter->lock, NULL) != 0)
        return 0;
    if (pthread_mutex_init(&sorter->memory_lock, NULL) == 0) {
        if (pthread_cond_init(&sorter->program_built, NULL) == 0) {
            if (pthread_cond_init(&sorter->memory_freed, NULL) == 0)
                return 1;
            pthread_cond_destroy(&sorter->program_built);
        }
        pthread_mutex_destroy(&sorter->memory_lock);
    }
    pthread_mutex_destroy(&sorter->lock);
    return 0;
}

clradix_status clradix_sorter_create_tuned(cl_context context, cl_device_id device, const clradix_tuning *tuning,
                                           clradix_sorter **out)
{
    if (!out || (!context) != (!device))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    build_log_set_thread(NULL);

    clradix_status status = CLRADIX_SUCCESS;
    if (!device) {
        status = clradix_device_find(NULL, &device);
        if (status != CLRADIX_SUCCESS)
            return status;
        cl_platform_id platform;
        cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
        cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0 };
        if (err == CL_SUCCESS)
            context = clCreateContext(props, 1, &device, NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return status_from_cl(err);
    } else {
        if (!context_has_device(context, device))
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        if (clRetainContext(context) != CL_SUCCESS)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
    }

    clradix_sorter *sorter = calloc(1, sizeof *sorter);
    if (!sorter) {
        clReleaseContext(context);
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    sorter->context = context;
    if (!sync_init(sorter)) {
        clReleaseContext(context);
        free(sorter);
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    if (clRetainDevice(device) == CL_SUCCESS)
        sorter->device = device;
    else
        status = CLRADIX_ERROR_OPENCL;

    if (status == CLRADIX_SUCCESS)
        status = query_limits(device, &sorter->limits);
    if (status == CLRADIX_SUCCESS)
        status = tuning_select(&sorter->limits, device, tuning, &sorter->params);
    radix_program *program;
    if (status == CLRADIX_SUCCESS)
        status = program_get(sorter, PROGRAM_LSD, (key_variant){ 4, 0 }, 0, &program);  /* the common variant; a broken device fails here */
    if (status == CLRADIX_SUCCESS && sorter->params.strategy == STRATEGY_PARTITION)
        status = program_get(sorter, PROGRAM_SEGMENTS, (key_variant){ 4, 0 }, 0, &program);  /* what its flat sorts use */
    if (status != CLRADIX_SUCCESS) {
        build_log_set_thread(sorter);
        clradix_sorter_release(sorter);
        return status;
    }
    *out = sorter;
    return CLRADIX_SUCCESS;
}

clradix_status clradix_sorter_create(cl_context context, cl_device_id device, clradix_sorter **sorter)
{
    return clradix_sorter_create_tuned(context, device, NULL, sorter);
}

cl_context clradix_sorter_context(const clradix_sorter *sorter)
{
    return sorter ? sorter->context : NULL;
}

cl_device_id clradix_sorter_device(const clradix_sorter *sorter)
{
    return sorter ? sorter->device : NULL;
}

clradix_status clradix_sorter_tuning(const clradix_sorter *sorter, clradix_tuning *tuning)
{
    if (!sorter || !tuning)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    tuning_report(&sorter->programs[PROGRAM_LSD][0][0].params, tuning);  /* built at creation */
    return CLRADIX_SUCCESS;
}

clradix_status clradix_sorter_set_memory_limit(clradix_sorter *sorter, size_t bytes)
{
    if (!sorter)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    atomic_store(&sorter->memory_limit, bytes);
    pthread_mutex_lock(&sorter->lock);  /* what the pool keeps of earlier sorts fits the limit too */
    pthread_mutex_lock(&sorter->memory_lock);
    const int over = sorter->device_bytes > device_budget(sorter);
    pthread_mutex_unlock(&sorter->memory_lock);
    if (over)
        scratch_trim(sorter);
    pthread_mutex_unlock(&sorter->lock);
    return CLRADIX_SUCCESS;
}

/* ---------------------------------------------------------------------------------
 * Argument checks shared by every sort call
 * ------------------------------------------------------------------------------ */

/* Fills the type, bit range and direction of r from the call's arguments. */
clradix_status check_keys(const clradix_sorter *sorter, clradix_key_type type, size_t n,
                          const clradix_options *options, sort_request *r)
{
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
static clradix_status check_device_call(const clradix_sorter *sorter, cl_command_queue queue, cl_uint num_wait,
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
        const size_t offsets_size = (r->num_segments + 1) * sizeof(cl_uint);
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

/* A queue of the sorter's own for one host-array call, not used by any other call meanwhile. */
clradix_status host_queue_acquire(clradix_sorter *sorter, cl_command_queue *queue)
{
    pthread_mutex_lock(&sorter->lock);
    *queue = sorter->idle_count ? sorter->idle_queues[--sorter->idle_count] : NULL;
    pthread_mutex_unlock(&sorter->lock);
    if (*queue)
        return CLRADIX_SUCCESS;
    cl_int err;
    *queue = clCreateCommandQueue(sorter->context, sorter->device, 0, &err);
    return status_from_cl(err);
}

void host_queue_return(clradix_sorter *sorter, cl_command_queue queue)
{
    pthread_mutex_lock(&sorter->lock);
    if (sorter->idle_count < IDLE_QUEUES) {
        sorter->idle_queues[sorter->idle_count++] = queue;
        queue = NULL;
    }
    pthread_mutex_unlock(&sorter->lock);
    if (queue)
        clReleaseCommandQueue(queue);
}

/* The end of a host sort in core: its event and buffers go; returns status. */
static clradix_status host_sort_release(clradix_sorter *sorter, sort_request *r, cl_event sorted,
                                        clradix_status status)
{
    if (sorted)
        clReleaseEvent(sorted);
    sorter_buffer_release(sorter, r->keys, r->keys_size);
    sorter_buffer_release(sorter, r->values, r->values_size);
    return status;
}

/* host_sort_in_core of arrays that are both input and output on a device that works in the
   host's memory: buffers over the arrays themselves, no copies; mapping them after the sort
   makes its writes visible to the host (where the memory is the same, nothing moves). */
static clradix_status host_sort_in_place(clradix_sorter *sorter, cl_command_queue queue, sort_request *r, void *keys,
                                         void *values, int *touched)
{
    cl_int err;
    const cl_mem_flags key_flags = CL_MEM_USE_HOST_PTR | (r->argsort ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE);
    r->keys = sorter_buffer(sorter, key_flags, r->keys_size, keys, &err);
    r->values = NULL;
    if (err == CL_SUCCESS && values)
        r->values = sorter_buffer(sorter, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, r->values_size, values, &err);
    clradix_status status = status_from_cl(err);
    cl_event sorted = NULL;
    *touched = status == CLRADIX_SUCCESS;  /* the kernels work in the arrays themselves */
    if (status == CLRADIX_SUCCESS)
        status = dispatch_sort(sorter, queue, r, 0, NULL, &sorted);
    const cl_mem written[] = { r->argsort ? NULL : r->keys, r->values };
    const size_t sizes[] = { r->keys_size, r->values_size };
    cl_event unmapped[2] = { NULL, NULL };
    for (int i = 0; i < 2 && status == CLRADIX_SUCCESS; ++i) {
        if (!written[i])
            continue;
        void *mapped = clEnqueueMapBuffer(queue, written[i], CL_TRUE, CL_MAP_READ, 0, sizes[i], 1, &sorted, NULL,
                                          &err);
        if (err == CL_SUCCESS)
            err = clEnqueueUnmapMemObject(queue, written[i], mapped, 0, NULL, &unmapped[i]);
        status = status_from_cl(err);
    }
    for (int i = 0; i < 2; ++i)
        if (unmapped[i]) {  /* done before the call returns the arrays to the caller */
            if (status == CLRADIX_SUCCESS)
                status = status_from_cl(clWaitForEvents(1, &unmapped[i]));
            clReleaseEvent(unmapped[i]);
        }
    if (status != CLRADIX_SUCCESS)
        clFinish(queue);  /* what a failed sort did enqueue works in the arrays: done before they go back */
    return host_sort_release(sorter, r, sorted, status);
}

/* host_sort_in_core through copies on the device. */
static clradix_status host_sort_copied(clradix_sorter *sorter, cl_command_queue queue, sort_request *r,
                                       const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                       int *touched)
{
    const size_t key_bytes = r->keys_size, value_bytes = r->values_size;
    cl_int err = CL_SUCCESS;
    const cl_mem_flags flags = CL_MEM_COPY_HOST_PTR | (r->argsort ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE);
    r->keys = sorter_buffer(sorter, flags, key_bytes, (void *)keys_in, &err);
    r->values = NULL;
    if (err == CL_SUCCESS && values_in)
        r->values = r->argsort ? sorter_buffer(sorter, CL_MEM_READ_WRITE, value_bytes, NULL, &err)
                               : sorter_buffer(sorter, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, value_bytes,
                                               (void *)values_in, &err);
    clradix_status status = status_from_cl(err);

    cl_event sorted = NULL;
    if (status == CLRADIX_SUCCESS)
        status = dispatch_sort(sorter, queue, r, 0, NULL, &sorted);
    if (status == CLRADIX_SUCCESS) {
        /* The output arrays end either as they were or sorted, each key with its value:
           the values wait in a staging area until the keys are read. Argsort reads only the
           indices, and keys alone are one read. */
        *touched = 1;  /* the results come back into the output arrays from here on */
        const int read_keys = keys_out && !r->argsort, stage = values_out && read_keys;
        void *staging = stage ? malloc(value_bytes) : NULL;
        if (stage && !staging)
            err = CL_OUT_OF_HOST_MEMORY;
        if (err == CL_SUCCESS && values_out)
            err = clEnqueueReadBuffer(queue, r->values, CL_TRUE, 0, value_bytes, stage ? staging : values_out, 1,
                                      &sorted, NULL);
        if (err == CL_SUCCESS && read_keys)
            err = clEnqueueReadBuffer(queue, r->keys, CL_TRUE, 0, key_bytes, keys_out, 1, &sorted, NULL);
        if (err == CL_SUCCESS && staging)
            memcpy(values_out, staging, value_bytes);
        free(staging);
        status = status_from_cl(err);
    }
    return host_sort_release(sorter, r, sorted, status);
}

/* The device memory host_sort_in_core of r holds at once: its data and temporaries (0 when
   the program it needs fails to build: the sort reports that). */
static cl_ulong host_bytes_in_core(clradix_sorter *sorter, const sort_request *r)
{
    cl_ulong temporaries;
    if (dispatch_temporary_bytes(sorter, r, &temporaries) != CLRADIX_SUCCESS)
        return 0;
    return (cl_ulong)r->keys_size + r->values_size + temporaries;
}

clradix_status host_sort_in_core(clradix_sorter *sorter, cl_command_queue queue, sort_request *r,
                                 const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                 int *touched)
{
    int written = 0;
    touched = touched ? touched : &written;
    *touched = 0;
    const int admitted = host_memory_admit(sorter, (size_t)host_bytes_in_core(sorter, r));
    const clradix_status status = sorter->limits.host_unified && keys_out == keys_in && values_out == values_in
        ? host_sort_in_place(sorter, queue, r, keys_out, values_out, touched)
        : host_sort_copied(sorter, queue, r, keys_in, values_in, keys_out, values_out, touched);
    if (admitted)
        host_memory_done(sorter);
    return status;
}

int host_fits_in_core(clradix_sorter *sorter, const sort_request *r)
{
    if (r->n > max_keys_in_core() || r->keys_size > sorter->limits.max_alloc
        || r->values_size > sorter->limits.max_alloc)
        return 0;
    return host_bytes_in_core(sorter, r) <= device_budget(sorter);  /* 0 (no program): the sort reports it */
}

/* Adds base to count indices of index_size (4 or 8) bytes. */
static void add_to_indices(void *indices, size_t index_size, size_t count, size_t base)
{
    if (base == 0)
        return;
    if (index_size == 4)
        for (size_t i = 0; i < count; ++i)
            ((uint32_t *)indices)[i] += (uint32_t)base;
    else
        for (size_t i = 0; i < count; ++i)
            ((uint64_t *)indices)[i] += base;
}

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
    sort_request r = { 0 };
    clradix_status status = check_host_call(sorter, type, value_size, argsort, n, options, &r);
    if (status == CLRADIX_SUCCESS && queue)
        status = check_queue(sorter, queue);
    if (status != CLRADIX_SUCCESS || n == 0 || (r.begin_bit == r.end_bit && !argsort))
        return status;
    if (!host_fits_in_core(sorter, &r))
        return host_sort_by_parts(&sorter, 1, queue, &r, keys, values);
    const cl_command_queue callers_queue = queue;
    status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    int touched = 0;
    if (status == CLRADIX_SUCCESS)
        status = host_sort_in_core(sorter, queue, &r, keys, values, keys, values, &touched);
    if (!callers_queue && queue)
        host_queue_return(sorter, queue);
    if (status == CLRADIX_ERROR_OUT_OF_RESOURCES && !touched) {  /* the device took less than it said: by parts */
        r.keys = r.values = NULL;
        status = host_sort_by_parts(&sorter, 1, callers_queue, &r, keys, values);
    }
    return status;
}

/* ---------------------------------------------------------------------------------
 * Segmented sorts of host arrays
 * ------------------------------------------------------------------------------ */

/* r for segments first .. last - 1 alone, as the device sees them (offsets not set). */
static sort_request segments_request(const sort_request *r, const size_t *offsets, size_t first, size_t last)
{
    sort_request c = *r;
    c.n = offsets[last] - offsets[first];
    c.keys_size = c.n * r->key_bytes;
    c.values_size = c.n * r->value_size;
    c.segmented = 1;
    c.num_segments = last - first;
    return c;
}

clradix_status host_segments_in_core(clradix_sorter *sorter, cl_command_queue queue, const sort_request *r,
                                     const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                     const size_t *offsets, size_t first, size_t last)
{
    const size_t begin = offsets[first], count = last - first;
    sort_request c = segments_request(r, offsets, first, last);
    const size_t offsets_bytes = (count + 1) * sizeof(cl_uint);
    cl_uint *relative = malloc(offsets_bytes);
    if (!relative)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    for (size_t i = 0; i <= count; ++i)
        relative[i] = (cl_uint)(offsets[first + i] - begin);
    const int admitted = host_memory_admit(sorter, (size_t)host_bytes_in_core(sorter, &c) + offsets_bytes);
    cl_int err;
    c.offsets = sorter_buffer(sorter, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, offsets_bytes, relative, &err);
    free(relative);
    clradix_status status = status_from_cl(err);
    const char *in_values = values_in ? (const char *)values_in + begin * r->value_size : NULL;
    char *out_values = values_out ? (char *)values_out + begin * r->value_size : NULL;
    if (status == CLRADIX_SUCCESS)
        status = host_sort_in_core(sorter, queue, &c, (const char *)keys_in + begin * r->key_bytes, in_values,
                                   (char *)keys_out + begin * r->key_bytes, out_values, NULL);
    sorter_buffer_release(sorter, c.offsets, offsets_bytes);
    if (admitted)
        host_memory_done(sorter);
    if (status == CLRADIX_SUCCESS && r->argsort)
        add_to_indices(out_values, r->value_size, c.n, begin);
    return status;
}

int host_segments_fit(clradix_sorter *sorter, const sort_request *r, const size_t *offsets, size_t first,
                      size_t last, unsigned share)
{
    const sort_request c = segments_request(r, offsets, first, last);
    return c.num_segments < CLRADIX_MAX_N && host_fits_in_core(sorter, &c)
        && host_bytes_in_core(sorter, &c) + (c.num_segments + 1) * sizeof(cl_uint) <= device_budget(sorter) / share;
}

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
