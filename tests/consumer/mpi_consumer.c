/* An MPI application built against an installed clradix_mpi (see tests/install-check.sh):
   two ranks sort three keys each, rank 0 ends with the three smallest. */
#include <clradix_mpi.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned keys[3] = { 9u - (unsigned)rank, 4u + (unsigned)rank, 1u + 6u * (unsigned)rank };  /* 9 4 1 | 8 5 7 */
    clradix_sorter *sorter = NULL;
    clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
    /* Every rank takes part, also one without a sorter: all then return the same error. */
    status = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, 3, keys, 3, NULL);
    clradix_sorter_release(sorter);
    const unsigned want[2][3] = { { 1, 4, 5 }, { 7, 8, 9 } };
    const int sorted = status == CLRADIX_SUCCESS && keys[0] == want[rank][0] && keys[1] == want[rank][1] &&
                       keys[2] == want[rank][2];
    printf("mpi consumer rank %d: %s\n", rank, sorted ? "sorted" : clradix_status_string(status));
    MPI_Finalize();
    return sorted ? 0 : 1;
}
