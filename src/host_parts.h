/* Work split over the host's threads in parts: shared by the sort by parts (outofcore.c)
   and clradix_mpi's merge, header-only since they are two libraries. */
#ifndef CLRADIX_HOST_PARTS_H
#define CLRADIX_HOST_PARTS_H

#include <pthread.h>
#include <stddef.h>

enum { HOST_PARTS_MAX = 64 };

/* Runs pass on count (at most HOST_PARTS_MAX) parts of part_size bytes each: parts 1.. on
   threads of their own, part 0 on the calling thread, and so any part whose thread could
   not be had; returns once all are done. */
static inline void run_in_parts(void *(*pass)(void *), void *parts, size_t part_size, unsigned count)
{
    pthread_t threads[HOST_PARTS_MAX];
    int started[HOST_PARTS_MAX] = { 0 };
    for (unsigned t = 1; t < count; ++t)
        started[t] = pthread_create(&threads[t], NULL, pass, (char *)parts + t * part_size) == 0;
    pass(parts);
    for (unsigned t = 1; t < count; ++t) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            pass((char *)parts + t * part_size);
    }
}

#endif
