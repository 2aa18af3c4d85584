/*
 * clradix_mpi: a stable sort of host arrays spread over the ranks of an MPI communicator,
 * each rank sorting on its own OpenCL device through its own clradix_sorter.
 *
 * Every call here is collective: every rank of comm calls it, with the same key type,
 * value size and options. MPI must be initialised (any thread level: only the calling
 * thread makes MPI calls). The library works on a duplicate of comm whose errors return
 * instead of aborting; it never calls MPI_Abort and never changes comm's error handler.
 *
 * Statuses are agreed: before anything is exchanged the ranks share every argument check,
 * their allocations and the outcome of their local sorts, and after it the outcome of a
 * final sort on the device, so when one rank fails (a bad argument, memory, OpenCL) every
 * rank returns, none blocks, and all return the same status:
 * CLRADIX_ERROR_INVALID_ARGUMENT when any rank's arguments are invalid, else that of the
 * lowest-numbered rank that failed. A failing MPI call is CLRADIX_ERROR_MPI. The other
 * phases (splitter selection, exchange, host merge) fail on one rank alone only through
 * MPI: an MPI call that reports an error on some ranks and not on others (a peer lost,
 * MPI's own memory) can leave the other ranks waiting in the call's next collective or
 * in the exchange's messages, as MPI leaves the state after an error undefined.
 */
#ifndef CLRADIX_MPI_H
#define CLRADIX_MPI_H

#include <mpi.h>

#include "clradix.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sorts the keys that all ranks hold together. Rank r passes n_in keys (keys_in) and
 * receives exactly n_out keys (keys_out); the sums of n_in and of n_out over the ranks
 * must be equal, else every rank returns CLRADIX_ERROR_INVALID_ARGUMENT. The outputs,
 * concatenated in rank order, are the inputs concatenated in rank order, sorted stably:
 * bit for bit what clradix_sort_keys_host gives for that concatenation, with the same
 * key order, bit range and direction (options: NULL or the same on every rank). Ranks
 * with no keys (n_in or n_out 0, arrays may then be NULL) take part as the others.
 * keys_in may equal keys_out when n_in == n_out; otherwise they must not overlap.
 *
 * Algorithm: each rank sorts its keys on its device; a radix select over the ranks'
 * sorted keys (a few MPI_Allreduce of digit counts) finds where each rank's output
 * begins, ties split by (source rank, position); one exchange (point-to-point messages
 * to and from every rank, keys and values, all posted at once; pieces of at most INT_MAX
 * bytes when a share passes that) moves every key once; each rank joins what it received
 * from several ranks, stably: a merge on the host (CPU devices) or a sort on its device.
 *
 * Errors: a NULL sorter, an array NULL with a count other than 0, an unknown key type, a
 * bad bit range, options or value sizes that differ between ranks, an intercommunicator
 * or MPI_COMM_NULL: CLRADIX_ERROR_INVALID_ARGUMENT on every rank; the 128-bit key types
 * (CLRADIX_U128, CLRADIX_I128): CLRADIX_ERROR_UNSUPPORTED on every rank. Errors found before the
 * exchange (every argument error; the local sort failing) leave keys_out untouched; after
 * it (an MPI or OpenCL failure) keys_out holds keys of the input in no promised order.
 * Memory per rank: a host copy of its n_in keys (and values) besides what
 * clradix_sort_*_host uses.
 */
CLRADIX_API clradix_status clradix_mpi_sort_keys(clradix_sorter *sorter, MPI_Comm comm, clradix_key_type type,
                                                 const void *keys_in, size_t n_in, void *keys_out, size_t n_out,
                                                 const clradix_options *options);

/* Pairs: each value (value_size bytes: 4, 8 or 16, the same on every rank) moves with its
   key, and values_in may equal values_out when n_in == n_out. */
CLRADIX_API clradix_status clradix_mpi_sort_pairs(clradix_sorter *sorter, MPI_Comm comm, clradix_key_type type,
                                                  const void *keys_in, const void *values_in, size_t value_size,
                                                  size_t n_in, void *keys_out, void *values_out, size_t n_out,
                                                  const clradix_options *options);

/* The even split of the total: *n_out = floor(total / size), plus one on the ranks below
   total % size, where total is the sum of n_in over the ranks of comm. n_out NULL on any
   rank: CLRADIX_ERROR_INVALID_ARGUMENT on every rank. */
CLRADIX_API clradix_status clradix_mpi_balanced_count(MPI_Comm comm, size_t n_in, size_t *n_out);

/* Seconds the calling rank spent in each phase of a clradix_mpi_sort_* call: its local
   sort, the splitter selection, the exchange, and the final step that joins the runs it
   received from several ranks (0 when it received keys from one rank at most). */
typedef struct clradix_mpi_phases {
    double local_sort;
    double select;
    double exchange;
    double merge;
} clradix_mpi_phases;

/* The phases of the last clradix_mpi_sort_* call in the calling thread (zeros before the
   first, and for the phases a failed call did not reach). phases NULL: nothing. */
CLRADIX_API void clradix_mpi_last_phases(clradix_mpi_phases *phases);

#ifdef __cplusplus
}
#endif

#endif /* CLRADIX_MPI_H */
