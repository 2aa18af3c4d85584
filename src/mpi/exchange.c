/* The one exchange of the data: every peer's share of the keys and of the values posted at
   once as point-to-point messages, then one wait. Each array moves in contiguous messages
   of its own (MPI moves those without packing: a datatype spanning both arrays made the
   exchange of pairs 1.5-2x slower through Open MPI's shared memory), of at most the message
   limit of its elements; shares past that go in rounds of pieces. */
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

int exchange(MPI_Comm comm, const exchange_array *arrays, int count_arrays, const uint64_t *send_count,
             const uint64_t *recv_count, MPI_Request *requests)
{
    int ranks, me;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &me);
    /* Each array's element, and the most elements of it one message carries. */
    MPI_Datatype elements[EXCHANGE_ARRAYS_MAX];
    uint64_t limit[EXCHANGE_ARRAYS_MAX];
    int made = 0, err = MPI_SUCCESS;
    for (; made < count_arrays; ++made) {
        limit[made] = message_limit(arrays[made].size);
        err = MPI_Type_contiguous((int)arrays[made].size, MPI_BYTE, &elements[made]);
        if (err != MPI_SUCCESS)
            break;  /* nothing was created */
        err = MPI_Type_commit(&elements[made]);
        if (err != MPI_SUCCESS) {
            ++made;
            break;
        }
    }
    /* Each rank starts with the next rank, so that the first messages of all do not go to
       rank 0 at once; where a share passes the limit, round k moves its k-th piece. Messages
       of one pair, array and tag arrive in order, and each round's messages are all posted
       before it waits, so no two ranks wait on each other. */
    const int start = (me + 1) % ranks;
    uint64_t send_start = 0, recv_start = 0;
    for (int r = 0; r < start; ++r) {
        send_start += send_count[r];
        recv_start += recv_count[r];
    }
    for (uint64_t round = 0; err == MPI_SUCCESS; ++round) {
        int posted = 0;
        uint64_t send_at = send_start, recv_at = recv_start;
        for (int i = 0; i < ranks && err == MPI_SUCCESS; ++i) {
            const int r = (start + i) % ranks;
            if (r == 0)
                send_at = recv_at = 0;
            for (int a = 0; a < count_arrays && err == MPI_SUCCESS; ++a) {
                const uint64_t first = round * limit[a];
                if (recv_count[r] > first) {
                    const uint64_t count = recv_count[r] - first < limit[a] ? recv_count[r] - first : limit[a];
                    err = MPI_Irecv((char *)arrays[a].recv + (recv_at + first) * arrays[a].size, (int)count,
                                    elements[a], r, EXCHANGE_TAG + a, comm, &requests[posted]);
                    posted += err == MPI_SUCCESS;
                }
                if (err == MPI_SUCCESS && send_count[r] > first) {
                    const uint64_t count = send_count[r] - first < limit[a] ? send_count[r] - first : limit[a];
                    err = MPI_Isend((const char *)arrays[a].send + (send_at + first) * arrays[a].size, (int)count,
                                    elements[a], r, EXCHANGE_TAG + a, comm, &requests[posted]);
                    posted += err == MPI_SUCCESS;
                }
            }
            send_at += send_count[r];
            recv_at += recv_count[r];
        }
        if (err == MPI_SUCCESS && posted == 0)
            break;
        if (err == MPI_SUCCESS)
            err = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
        if (err != MPI_SUCCESS)  /* those that completed are MPI_REQUEST_NULL now */
            abandon(requests, posted, err);
    }
    for (int a = 0; a < made; ++a)
        MPI_Type_free(&elements[a]);
    return err;
}
