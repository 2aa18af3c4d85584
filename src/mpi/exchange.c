/* The one exchange of the data: MPI_Alltoallv, or point-to-point messages where counts or
   offsets pass what an int holds. */
#include "mpi_internal.h"

#include <limits.h>

#ifdef CLRADIX_TESTING
#include "mpi_testing.h"
static size_t testing_limit;
void clradix_mpi_testing_message_limit(size_t elements)
{
    testing_limit = elements;
}
#endif

size_t message_limit(size_t element_bytes)
{
#ifdef CLRADIX_TESTING
    if (testing_limit)
        return testing_limit;
#endif
    return INT_MAX / element_bytes;  /* at least INT_MAX / 16 */
}

enum { EXCHANGE_TAG = 0x5c07 };

/* After a failure: what is still posted of requests[0 .. posted) is cancelled and waited
   for, so that no transfer uses the buffers once the caller frees them. Returns err. */
static int abandon(MPI_Request *requests, int posted, int err)
{
    for (int i = 0; i < posted; ++i)
        if (requests[i] != MPI_REQUEST_NULL)
            MPI_Cancel(&requests[i]);
    MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    return err;
}

/* Round k sends and receives the k-th piece of at most limit elements of every pair's
   share; messages of one pair and tag arrive in order, and each round's messages are all
   posted before it waits, so no two ranks wait on each other. */
static int exchange_in_pieces(MPI_Comm comm, MPI_Datatype element, size_t size, const char *send,
                              const uint64_t *send_count, char *recv, const uint64_t *recv_count,
                              MPI_Request *requests)
{
    int ranks, me;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &me);
    const uint64_t limit = message_limit(size);
    /* Each rank starts with the next rank, so that the first messages of all do not go to
       rank 0 at once. */
    const int start = (me + 1) % ranks;
    uint64_t send_start = 0, recv_start = 0;
    for (int r = 0; r < start; ++r) {
        send_start += send_count[r];
        recv_start += recv_count[r];
    }
    for (uint64_t first = 0;; first += limit) {
        int posted = 0, err;
        uint64_t send_at = send_start, recv_at = recv_start;
        for (int i = 0; i < ranks; ++i) {
            const int r = (start + i) % ranks;
            if (r == 0)
                send_at = recv_at = 0;
            if (recv_count[r] > first) {
                const uint64_t count = recv_count[r] - first < limit ? recv_count[r] - first : limit;
                err = MPI_Irecv(recv + (recv_at + first) * size, (int)count, element, r, EXCHANGE_TAG, comm,
                                &requests[posted]);
                if (err != MPI_SUCCESS)
                    return abandon(requests, posted, err);
                ++posted;
            }
            if (send_count[r] > first) {
                const uint64_t count = send_count[r] - first < limit ? send_count[r] - first : limit;
                err = MPI_Isend(send + (send_at + first) * size, (int)count, element, r, EXCHANGE_TAG, comm,
                                &requests[posted]);
                if (err != MPI_SUCCESS)
                    return abandon(requests, posted, err);
                ++posted;
            }
            send_at += send_count[r];
            recv_at += recv_count[r];
        }
        if (posted == 0)
            return MPI_SUCCESS;
        err = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
        if (err != MPI_SUCCESS)  /* those that completed are MPI_REQUEST_NULL now */
            return abandon(requests, posted, err);
    }
}

int exchange(MPI_Comm comm, int big, size_t size, const void *send, const uint64_t *send_count, void *recv,
             const uint64_t *recv_count, int *ints, MPI_Request *requests)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    MPI_Datatype element;
    int err = MPI_Type_contiguous((int)size, MPI_BYTE, &element);
    if (err != MPI_SUCCESS)
        return err;  /* nothing was created */
    err = MPI_Type_commit(&element);
    if (err == MPI_SUCCESS && big)
        err = exchange_in_pieces(comm, element, size, send, send_count, recv, recv_count, requests);
    else if (err == MPI_SUCCESS) {
        int *send_counts = ints, *send_offsets = ints + ranks, *recv_counts = ints + 2 * ranks,
            *recv_offsets = ints + 3 * ranks;
        int send_at = 0, recv_at = 0;
        for (int r = 0; r < ranks; ++r) {
            send_counts[r] = (int)send_count[r];
            recv_counts[r] = (int)recv_count[r];
            send_offsets[r] = send_at;
            recv_offsets[r] = recv_at;
            send_at += send_counts[r];
            recv_at += recv_counts[r];
        }
        err = MPI_Alltoallv(send, send_counts, send_offsets, element, recv, recv_counts, recv_offsets, element,
                            comm);
    }
    MPI_Type_free(&element);
    return err;
}
