/* Test builds of clradix_mpi only (clradix_mpi_testing, with CLRADIX_TESTING defined). */
#ifndef CLRADIX_MPI_TESTING_H
#define CLRADIX_MPI_TESTING_H

#include <stddef.h>

/* The most elements one message carries (0: INT_MAX), so that a test reaches the path for
   counts past INT_MAX with small arrays. Every rank must set the same value. */
void clradix_mpi_testing_message_limit(size_t elements);

/* How ranks join what they received from several ranks: 0 as the device implies, 1 a merge
   on the host, 2 a sort on the device. */
void clradix_mpi_testing_final_sort(int how);

/* The host merge in this many parts, one thread each, whatever the size and the
   processors (0: as the library chooses). */
void clradix_mpi_testing_merge_parts(unsigned parts);

/* Makes a phase's MPI calls report a failure after they completed (as MPI would report one
   on every rank): CLRADIX_MPI_PHASE_SELECT or _EXCHANGE; 0: none. Every rank must set the
   same value. */
enum { CLRADIX_MPI_PHASE_SELECT = 1, CLRADIX_MPI_PHASE_EXCHANGE = 2 };
void clradix_mpi_testing_fail_phase(int phase);

/* The most counts one round of the splitter selection reduces (0: its own budget), so that
   a test reaches narrow digits and many groups with a few ranks. Every rank must set the
   same value. */
void clradix_mpi_testing_counts_per_round(size_t counts);

#endif
