/*
 * Temporary buffers of the sorts, kept by the sorter for reuse: allocating (and, on CPUs,
 * first touching) fresh memory for every sort costs as much as a pass. A set is handed
 * to a new sort only once the last sort that used it has completed, checked without
 * waiting, so sorts running at once on several queues never share one.
 */
#include "internal.h"

#include <stdlib.h>

static int idle(const scratch *s)
{
    cl_int status = CL_COMPLETE;
    if (s->last_use
        && clGetEventInfo(s->last_use, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) != CL_SUCCESS)
        return 0;
    return status <= CL_COMPLETE;  /* complete, or ended with an error */
}

void scratch_free(clradix_sorter *sorter, scratch *s)
{
    if (!s)
        return;
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        sorter_buffer_release(sorter, s->buffer[i], s->capacity[i]);
    if (s->last_use)
        clReleaseEvent(s->last_use);
    free(s);
}

void scratch_trim(clradix_sorter *sorter)
{
    for (unsigned i = 0; i < sorter->scratch_count;) {
        scratch *s = sorter->scratch_pool[i];
        if (idle(s)) {
            sorter->scratch_pool[i] = sorter->scratch_pool[--sorter->scratch_count];
            scratch_free(sorter, s);
        } else {
            ++i;
        }
    }
}

/* An idle set of the pool, or a new empty one (NULL: out of host memory); the caller holds
   the sorter's lock. */
static scratch *scratch_acquire(clradix_sorter *sorter)
{
    for (unsigned i = 0; i < sorter->scratch_count; ++i) {
        scratch *s = sorter->scratch_pool[i];
        if (idle(s)) {
            sorter->scratch_pool[i] = sorter->scratch_pool[--sorter->scratch_count];
            if (s->last_use)
                clReleaseEvent(s->last_use);
            s->last_use = NULL;
            return s;
        }
    }
    return calloc(1, sizeof(scratch));
}

/* Grows the buffers of s, which no other sort holds, to bytes[slot] where they are smaller. */
static cl_int scratch_reserve(clradix_sorter *sorter, scratch *s, const size_t bytes[SCRATCH_SLOTS])
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < SCRATCH_SLOTS && err == CL_SUCCESS; ++i) {
        if (bytes[i] <= s->capacity[i])
            continue;
        sorter_buffer_release(sorter, s->buffer[i], s->capacity[i]);
        s->buffer[i] = sorter_buffer(sorter, CL_MEM_READ_WRITE, bytes[i], NULL, &err);
        s->capacity[i] = err == CL_SUCCESS ? bytes[i] : 0;
        if (err != CL_SUCCESS)
            s->buffer[i] = NULL;
    }
    return err;
}

void scratch_return(clradix_sorter *sorter, scratch *s, cl_event last_use)
{
    if (!s)
        return;
    if (last_use && clRetainEvent(last_use) == CL_SUCCESS)
        s->last_use = last_use;
    pthread_mutex_lock(&sorter->lock);
    if (sorter->scratch_count < SCRATCH_POOL) {
        sorter->scratch_pool[sorter->scratch_count++] = s;
        s = NULL;
    }
    pthread_mutex_unlock(&sorter->lock);
    scratch_free(sorter, s);
}

/* Each of bytes within the device's largest allocation: checked before anything of the
   caller's is touched. */
static int within_max_alloc(const clradix_sorter *sorter, const size_t bytes[SCRATCH_SLOTS])
{
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        if (bytes[i] > sorter->limits.max_alloc)
            return 0;
    return 1;
}

cl_ulong scratch_total(const size_t bytes[SCRATCH_SLOTS])
{
    cl_ulong total = 0;
    for (int i = 0; i < SCRATCH_SLOTS; ++i)
        total += bytes[i];
    return total;
}

clradix_status scratch_for(clradix_sorter *sorter, const size_t bytes[SCRATCH_SLOTS], scratch **out)
{
    /* All of them within the device's memory (or the sorter's memory limit) too. */
    if (!within_max_alloc(sorter, bytes) || scratch_total(bytes) > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    memory_make_room(sorter, scratch_total(bytes));  /* (this sort may grow an idle set instead) */
    pthread_mutex_lock(&sorter->lock);
    scratch *s = scratch_acquire(sorter);
    pthread_mutex_unlock(&sorter->lock);
    cl_int err = s ? scratch_reserve(sorter, s, bytes) : CL_OUT_OF_HOST_MEMORY;
    if (err != CL_SUCCESS) {
        scratch_return(sorter, s, NULL);
        return status_from_cl(err);
    }
    *out = s;
    return CLRADIX_SUCCESS;
}

clradix_status scratch_of_request(clradix_sorter *sorter, const sort_request *request,
                                  const size_t bytes[SCRATCH_SLOTS], scratch **s)
{
    if (!request->scratch)
        return scratch_for(sorter, bytes, s);
    if (!within_max_alloc(sorter, bytes))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    memory_make_room(sorter, scratch_total(bytes));  /* the pool's idle sets go first, as for scratch_for */
    *s = request->scratch;
    return status_from_cl(scratch_reserve(sorter, *s, bytes));
}

void scratch_done(clradix_sorter *sorter, const sort_request *request, scratch *s, cl_event last_use)
{
    if (!request->scratch)
        scratch_return(sorter, s, last_use);
}
