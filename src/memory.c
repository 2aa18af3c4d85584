/*
 * The device memory a sorter holds, against its budget (clradix_sorter_set_memory_limit,
 * else most of the device's memory): every buffer of its pool and of its host-array sorts
 * is counted while it lives, and a host-array sort in core starts only once its buffers
 * fit next to what the sorter holds and has promised to the host sorts already under way
 * (idle temporaries of earlier sorts are freed first), so that the workers of a sort by
 * parts, and threads sharing a sorter, stay within the limit together.
 */
#include "internal.h"

/* The host sort this thread runs (host_memory_admit .. host_memory_done): its sorter and
   the bytes still promised to it, which its buffers take as they are made. */
static _Thread_local struct {
    clradix_sorter *sorter;
    size_t promised;
} admitted;

cl_mem sorter_buffer(clradix_sorter *sorter, cl_mem_flags flags, size_t bytes, void *host, cl_int *err)
{
    cl_mem buffer = clCreateBuffer(sorter->context, flags, bytes, host, err);
    if (!buffer)
        return NULL;
    pthread_mutex_lock(&sorter->memory_lock);
    sorter->device_bytes += bytes;
    if (admitted.sorter == sorter) {
        const size_t taken = bytes < admitted.promised ? bytes : admitted.promised;
        admitted.promised -= taken;
        sorter->promised_bytes -= taken;
    }
    pthread_mutex_unlock(&sorter->memory_lock);
    return buffer;
}

void sorter_buffer_release(clradix_sorter *sorter, cl_mem buffer, size_t bytes)
{
    if (!buffer)
        return;
    clReleaseMemObject(buffer);  /* freed once the commands that use it are done */
    pthread_mutex_lock(&sorter->memory_lock);
    sorter->device_bytes -= bytes;
    pthread_cond_broadcast(&sorter->memory_freed);
    pthread_mutex_unlock(&sorter->memory_lock);
}

/* Whether bytes more fit the budget now (memory_lock held). */
static int fits_now(const clradix_sorter *sorter, size_t bytes)
{
    return (cl_ulong)sorter->device_bytes + sorter->promised_bytes + bytes <= device_budget(sorter);
}

void memory_make_room(clradix_sorter *sorter, size_t bytes)
{
    pthread_mutex_lock(&sorter->memory_lock);
    const int fits = fits_now(sorter, bytes);
    pthread_mutex_unlock(&sorter->memory_lock);
    if (!fits) {
        pthread_mutex_lock(&sorter->lock);
        scratch_trim(sorter);
        pthread_mutex_unlock(&sorter->lock);
    }
}

void host_memory_admit(clradix_sorter *sorter, size_t bytes)
{
    for (;;) {
        memory_make_room(sorter, bytes);  /* the pool's idle temporaries go first */
        pthread_mutex_lock(&sorter->memory_lock);
        /* Alone, it goes anyway: host_fits_in_core said it fits the budget, and what else
           holds memory now (device-buffer calls under way) is not a host sort to wait for. */
        if (fits_now(sorter, bytes) || sorter->host_sorts == 0) {
            sorter->promised_bytes += bytes;
            ++sorter->host_sorts;
            admitted.sorter = sorter;
            admitted.promised = bytes;
            pthread_mutex_unlock(&sorter->memory_lock);
            return;
        }
        pthread_cond_wait(&sorter->memory_freed, &sorter->memory_lock);  /* until another host sort ends */
        pthread_mutex_unlock(&sorter->memory_lock);
    }
}

void host_memory_done(clradix_sorter *sorter)
{
    pthread_mutex_lock(&sorter->memory_lock);
    sorter->promised_bytes -= admitted.promised;
    --sorter->host_sorts;
    admitted.sorter = NULL;
    admitted.promised = 0;
    pthread_cond_broadcast(&sorter->memory_freed);
    pthread_mutex_unlock(&sorter->memory_lock);
}
