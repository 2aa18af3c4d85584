/*
 * The host-array engine in core: a queue of the sorter's own per call, the arrays sorted
 * on the device in one go (in their own memory where the device works in the host's, else
 * through copies) once the sorter's memory holds them (memory.c), whether a sort fits the
 * device at once, and runs of segments sorted in one segmented sort. The public calls
 * (api.c) and the sort by parts (outofcore.c) use it.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    if (status == CLRADIX_SUCCESS)  /* the kernels work in the arrays themselves, once enqueued */
        status = dispatch_sort_tracked(sorter, queue, r, 0, NULL, &sorted, touched);
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

/* host_sort_in_core once admitted (memory.c): in the arrays themselves, or through copies
   (where the device is not in the host's memory, or its maps fail: limits.no_host_maps). */
static clradix_status sort_admitted(clradix_sorter *sorter, cl_command_queue queue, sort_request *r,
                                    const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                    int *touched)
{
    int written = 0;
    touched = touched ? touched : &written;
    *touched = 0;
    const int in_place = sorter->limits.host_unified && !sorter->limits.no_host_maps;
    return in_place && keys_out == keys_in && values_out == values_in
        ? host_sort_in_place(sorter, queue, r, keys_out, values_out, touched)
        : host_sort_copied(sorter, queue, r, keys_in, values_in, keys_out, values_out, touched);
}

clradix_status host_sort_in_core(clradix_sorter *sorter, cl_command_queue queue, sort_request *r,
                                 const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                 int *touched)
{
    host_memory_admit(sorter, (size_t)host_bytes_in_core(sorter, r));
    const clradix_status status = sort_admitted(sorter, queue, r, keys_in, values_in, keys_out, values_out, touched);
    host_memory_done(sorter);
    return status;
}

/* Whether r and extra bytes fit within 1 / share of the sorter's budget, each array within
   the device's largest allocation. */
static int fits_in_core(clradix_sorter *sorter, const sort_request *r, size_t extra, unsigned share)
{
    if (r->n > max_keys_in_core() || r->keys_size > sorter->limits.max_alloc
        || r->values_size > sorter->limits.max_alloc)
        return 0;
    return host_bytes_in_core(sorter, r) + extra <= device_budget(sorter) / share;  /* 0: the sort reports it */
}

int host_fits_in_core(clradix_sorter *sorter, const sort_request *r)
{
    return fits_in_core(sorter, r, 0, 1);
}

/* Adds base to count indices of index_size (4 or 8) bytes. */
void add_to_indices(void *indices, size_t index_size, size_t count, size_t base)
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
    if (c.n == 0)
        return CLRADIX_SUCCESS;  /* empty segments alone: nothing to sort (and no buffer of 0 bytes) */
    const size_t offsets_bytes = (count + 1) * sizeof(cl_uint);  /* checked by host_segments_fit */
    cl_uint *relative = malloc(offsets_bytes);
    if (!relative)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    for (size_t i = 0; i <= count; ++i)
        relative[i] = (cl_uint)(offsets[first + i] - begin);
    host_memory_admit(sorter, (size_t)host_bytes_in_core(sorter, &c) + offsets_bytes);
    cl_int err;
    c.offsets = sorter_buffer(sorter, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, offsets_bytes, relative, &err);
    free(relative);
    clradix_status status = status_from_cl(err);
    const char *in_values = values_in ? (const char *)values_in + begin * r->value_size : NULL;
    char *out_values = values_out ? (char *)values_out + begin * r->value_size : NULL;
    if (status == CLRADIX_SUCCESS)
        status = sort_admitted(sorter, queue, &c, (const char *)keys_in + begin * r->key_bytes, in_values,
                               (char *)keys_out + begin * r->key_bytes, out_values, NULL);
    sorter_buffer_release(sorter, c.offsets, offsets_bytes);
    host_memory_done(sorter);
    if (status == CLRADIX_SUCCESS && r->argsort)
        add_to_indices(out_values, r->value_size, c.n, begin);
    return status;
}

int host_segments_fit(clradix_sorter *sorter, const sort_request *r, const size_t *offsets, size_t first,
                      size_t last, unsigned share)
{
    const sort_request c = segments_request(r, offsets, first, last);
    size_t offsets_bytes;
    return c.num_segments < CLRADIX_MAX_N && size_mul(c.num_segments + 1, sizeof(cl_uint), &offsets_bytes)
        && fits_in_core(sorter, &c, offsets_bytes, share);
}
