/*
 * A distributed sort: every rank generates its part of the data, clradix_mpi sorts it over
 * all ranks (each on its own OpenCL device), and each rank checks its result: in order,
 * and after the last key of the rank before it.
 *
 *   mpirun -np 4 ./example_mpi_sort [keys per rank]
 */
#include <clradix_mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const size_t n_in = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000 + 1000 * (size_t)rank;

    /* Each rank's keys: a different pseudo-random sequence (xorshift) on each. */
    uint64_t *keys = malloc(n_in * sizeof *keys), state = 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1);
    for (size_t i = 0; i < n_in; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        keys[i] = state;
    }

    /* One device per rank: on a node with several GPUs, pick by the local rank instead
       (clradix_device_list, then clradix_sorter_create with that device). */
    clradix_sorter *sorter = NULL;
    size_t n_out = 0;
    clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
    /* The calls are collective: a rank without a sorter passes NULL and every rank
       returns an error, rather than leaving the others waiting. */
    if (clradix_mpi_balanced_count(MPI_COMM_WORLD, n_in, &n_out) == CLRADIX_SUCCESS) {
        uint64_t *sorted = malloc(n_out * sizeof *sorted + 1);
        status = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U64, keys, n_in, sorted, n_out, NULL);
        if (status == CLRADIX_SUCCESS) {
            /* In order here, and after the previous rank's last key (ranks with keys send
               their last one up; with a balanced split only trailing ranks can be empty). */
            int ok = 1;
            for (size_t i = 1; i < n_out; ++i)
                ok &= sorted[i - 1] <= sorted[i];
            uint64_t last = n_out ? sorted[n_out - 1] : 0, before = 0;
            MPI_Sendrecv(&last, 1, MPI_UINT64_T, rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL, 0, &before, 1,
                         MPI_UINT64_T, rank > 0 ? rank - 1 : MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ok &= rank == 0 || n_out == 0 || before <= sorted[0];
            printf("rank %d: %zu keys in, %zu out, %s\n", rank, n_in, n_out, ok ? "sorted" : "NOT SORTED");
            if (!ok)
                status = CLRADIX_ERROR_INVALID_BUFFER;
        }
        free(sorted);
    }
    if (status != CLRADIX_SUCCESS)
        fprintf(stderr, "rank %d: %s\n", rank, clradix_status_string(status));
    clradix_sorter_release(sorter);
    free(keys);
    MPI_Finalize();
    return status == CLRADIX_SUCCESS ? 0 : 1;
}
