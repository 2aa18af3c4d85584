/* The collective calls: the argument checks agreed over the ranks, then the local sort,
   the splitters, the exchange and the final sort, each phase timed. */
#include "mpi_internal.h"

#include "mpi_testing.h"  /* the phases' names */

#include <stdint.h>
#include <stdlib.h>

#ifdef CLRADIX_TESTING
#define CLRADIX_TESTING_WRAP  /* its allocations can fail on purpose */
#include "testing.h"
static int testing_failing_phase;
void clradix_mpi_testing_fail_phase(int phase)
{
    testing_failing_phase = phase;
}
#endif

/* A phase's MPI outcome; in the test build, a failure of the phase the test names. */
static int phase_outcome(int phase, int err)
{
#ifdef CLRADIX_TESTING
    if (err == MPI_SUCCESS && testing_failing_phase == phase)
        return MPI_ERR_OTHER;
#endif
    (void)phase;
    return err;
}

static _Thread_local clradix_mpi_phases last_phases;

void clradix_mpi_last_phases(clradix_mpi_phases *phases)
{
    if (phases)
        *phases = last_phases;
}

/* One call's parameters. */
typedef struct mpi_call {
    int pairs;
    clradix_sorter *sorter;
    clradix_key_type type;
    const clradix_options *options;
    const void *keys_in, *values_in;
    void *keys_out, *values_out;
    size_t value_size, n_in, n_out;
} mpi_call;

/* What a rank allocates for a call before the ranks agree that it may go on. */
typedef struct workspace {
    void *keys, *values;  /* the local copies of the input, sorted in place */
    int host_merge;       /* the final step merges on the host (else: sorts on the device) */
    void *keys_spare, *values_spare;  /* host merge: where the exchange puts the runs */
    merge_run *runs;
    contestant *tree;     /* host merge: its loser tree */
    uint64_t *counts;     /* n_in and n_out of every rank */
    uint64_t *targets, *splits, *send_count, *recv_count, *select_work;
    MPI_Request *requests;
} workspace;

/* A duplicate of comm whose errors return, for the call's collectives, and the rank's
   place in it. */
static clradix_status open_comm(MPI_Comm comm, MPI_Comm *work, int *rank, int *ranks)
{
    int initialized = 0, finalized = 0, inter = 0;
    if (MPI_Initialized(&initialized) != MPI_SUCCESS || MPI_Finalized(&finalized) != MPI_SUCCESS || !initialized ||
        finalized)
        return CLRADIX_ERROR_MPI;
    if (comm == MPI_COMM_NULL)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return CLRADIX_ERROR_MPI;
    if (inter)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (MPI_Comm_dup(comm, work) != MPI_SUCCESS)
        return CLRADIX_ERROR_MPI;
    if (MPI_Comm_set_errhandler(*work, MPI_ERRORS_RETURN) != MPI_SUCCESS || MPI_Comm_rank(*work, rank) != MPI_SUCCESS ||
        MPI_Comm_size(*work, ranks) != MPI_SUCCESS) {
        MPI_Comm_free(work);
        return CLRADIX_ERROR_MPI;
    }
    return CLRADIX_SUCCESS;
}

/* A status as one number whose least over the ranks is the status they agree on: an
   invalid argument anywhere first (the caller's mistake, whatever else failed), then the
   lowest-numbered rank's failure; success is the largest. */
static uint64_t failure_code(int rank, clradix_status status)
{
    if (status == CLRADIX_SUCCESS)
        return UINT64_MAX;
    const uint64_t not_argument = status != CLRADIX_ERROR_INVALID_ARGUMENT;
    return not_argument << 62 | (uint64_t)rank * 64 | (uint64_t)status;
}

static clradix_status status_of(uint64_t code)
{
    return code == UINT64_MAX ? CLRADIX_SUCCESS : (clradix_status)(code % 64);
}

/* Every rank's status becomes the one failure_code picks. */
static clradix_status agree(MPI_Comm comm, int rank, clradix_status status)
{
    uint64_t mine = failure_code(rank, status), first;
    if (MPI_Allreduce(&mine, &first, 1, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return CLRADIX_ERROR_MPI;
    return status_of(first);
}

/* The first agreement also checks that every rank passed the same key type, value size
   and options: the minimum of each value and of its complement give the least and the
   largest over the ranks. */
static clradix_status agree_on_call(MPI_Comm comm, int rank, clradix_status status, const mpi_call *c,
                                    const key_order *o)
{
    enum { FIELDS = 5 };
    const uint64_t fields[FIELDS] = { (uint64_t)c->type, c->value_size, o->begin_bit, o->bits,
                                      (uint64_t)(c->options && c->options->descending) };
    uint64_t mine[1 + 2 * FIELDS], least[1 + 2 * FIELDS];
    mine[0] = failure_code(rank, status);
    for (int i = 0; i < FIELDS; ++i) {
        mine[1 + 2 * i] = fields[i];
        mine[2 + 2 * i] = ~fields[i];
    }
    if (MPI_Allreduce(mine, least, 1 + 2 * FIELDS, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return CLRADIX_ERROR_MPI;
    if (least[0] != UINT64_MAX)
        return status_of(least[0]);
    for (int i = 0; i < FIELDS; ++i)
        if (least[1 + 2 * i] != ~least[2 + 2 * i])
            return CLRADIX_ERROR_INVALID_ARGUMENT;
    return CLRADIX_SUCCESS;
}

/* This process's node: a hash of MPI's processor name. */
static uint64_t node_id(void)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS)
        length = 0;
    uint64_t hash = 14695981039346656037u;  /* FNV-1a */
    for (int i = 0; i < length; ++i)
        hash = (hash ^ (unsigned char)name[i]) * 1099511628211u;
    return hash;
}

/* Whether two byte ranges share a byte. */
static int overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

/* An input and an output array may be the same array of the same length, or apart. */
static int bad_in_out(const void *in, size_t in_bytes, const void *out, size_t out_bytes)
{
    return overlap(in, in_bytes, out, out_bytes) && !(in == out && in_bytes == out_bytes);
}

static clradix_status check_call(const mpi_call *c, const key_order *o)
{
    if (!c->sorter)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    const int pairs = c->pairs;
    if (pairs && c->value_size == 0)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (pairs && c->value_size != 4 && c->value_size != 8 && c->value_size != 16)
        return CLRADIX_ERROR_UNSUPPORTED;
    if ((c->n_in && !c->keys_in) || (c->n_out && !c->keys_out) || (pairs && c->n_in && !c->values_in) ||
        (pairs && c->n_out && !c->values_out))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (c->n_in > SIZE_MAX / 16 || c->n_out > SIZE_MAX / 16)
        return CLRADIX_ERROR_INVALID_ARGUMENT;  /* bytes that overflow size_t */
    const size_t keys_in = c->n_in * o->key_bytes, keys_out = c->n_out * o->key_bytes;
    const size_t values_in = c->n_in * c->value_size, values_out = c->n_out * c->value_size;
    if (bad_in_out(c->keys_in, keys_in, c->keys_out, keys_out) ||
        (pairs && (bad_in_out(c->values_in, values_in, c->values_out, values_out) ||
                   overlap(c->keys_in, keys_in, c->values_out, values_out) ||
                   overlap(c->values_in, values_in, c->keys_out, keys_out) ||
                   overlap(c->keys_out, keys_out, c->values_out, values_out))))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    return CLRADIX_SUCCESS;
}

static void workspace_free(workspace *w)
{
    free(w->keys);
    free(w->values);
    free(w->keys_spare);
    free(w->values_spare);
    free(w->runs);
    free(w->tree);
    free(w->counts);
    free(w->requests);
}

static clradix_status workspace_alloc(workspace *w, const mpi_call *c, const key_order *o, int ranks)
{
    const size_t p = (size_t)ranks;
    const size_t words = 3 * p + 2 * (p - 1) + 2 * p + select_work_words(ranks);
    w->keys = c->n_in ? malloc(c->n_in * o->key_bytes) : NULL;
    w->values = c->n_in && c->value_size ? malloc(c->n_in * c->value_size) : NULL;
    w->counts = malloc(words * sizeof *w->counts);
    w->requests = malloc(2 * EXCHANGE_ARRAYS_MAX * p * sizeof *w->requests);
    w->runs = malloc(p * sizeof *w->runs);
    w->tree = malloc(merge_tree_bytes(ranks));
    if ((c->n_in && !w->keys) || (c->n_in && c->value_size && !w->values) || !w->counts || !w->requests ||
        !w->runs || !w->tree)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    w->host_merge = ranks > 1 && host_merge_for(clradix_sorter_device(c->sorter));
    if (w->host_merge && c->n_out) {
        w->keys_spare = malloc(c->n_out * o->key_bytes);
        w->values_spare = c->value_size ? malloc(c->n_out * c->value_size) : NULL;
        if (!w->keys_spare || (c->value_size && !w->values_spare))
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    w->targets = w->counts + 3 * p;
    w->splits = w->targets + (p - 1);
    w->send_count = w->splits + (p - 1);
    w->recv_count = w->send_count + p;
    w->select_work = w->recv_count + p;
    return CLRADIX_SUCCESS;
}

/* Sorts n keys (and values) in place on the sorter's device. */
static clradix_status sort_here(const mpi_call *c, void *keys, void *values, size_t n)
{
    if (n == 0)
        return CLRADIX_SUCCESS;
    return c->pairs ? clradix_sort_pairs_host(c->sorter, NULL, c->type, keys, values, c->value_size, n, c->options)
                         : clradix_sort_keys_host(c->sorter, NULL, c->type, keys, n, c->options);
}

static clradix_status mpi_sort(const mpi_call *c, MPI_Comm comm)
{
    clradix_mpi_phases phases = { 0 };
    last_phases = phases;
    MPI_Comm work;
    int rank, ranks;
    clradix_status status = open_comm(comm, &work, &rank, &ranks);
    if (status != CLRADIX_SUCCESS)
        return status;

    /* Checks and allocations, agreed; then every rank's counts. */
    double start = MPI_Wtime();
    key_order order = { 0 };
    workspace w = { 0 };
    status = key_order_init(&order, c->type, c->options);
    if (status == CLRADIX_SUCCESS)
        status = check_call(c, &order);
    if (status == CLRADIX_SUCCESS)
        status = workspace_alloc(&w, c, &order, ranks);
    status = agree_on_call(work, rank, status, c, &order);
    /* Every rank's counts and node (for the host merge's threads: ranks on one node share
       its processors). */
    const uint64_t mine[3] = { c->n_in, c->n_out, node_id() };
    if (status == CLRADIX_SUCCESS &&
        MPI_Allgather(mine, 3, MPI_UINT64_T, w.counts, 3, MPI_UINT64_T, work) != MPI_SUCCESS)
        status = CLRADIX_ERROR_MPI;
    uint64_t total_in = 0, total_out = 0;
    int ranks_here = 0;
    for (int r = 0; status == CLRADIX_SUCCESS && r < ranks; ++r) {
        const uint64_t n_in = w.counts[3 * r], n_out = w.counts[3 * r + 1];
        total_in += n_in;
        total_out += n_out;
        ranks_here += w.counts[3 * r + 2] == mine[2];
        if (r + 1 < ranks)
            w.targets[r] = total_out;  /* where rank r + 1's output begins */
    }
    if (status == CLRADIX_SUCCESS && total_in != total_out)
        status = CLRADIX_ERROR_INVALID_ARGUMENT;

    /* The local sort, on a copy: the input stays as it was until the exchange. */
    if (status == CLRADIX_SUCCESS) {
        if (c->n_in) {
            memcpy(w.keys, c->keys_in, c->n_in * order.key_bytes);
            if (c->value_size)
                memcpy(w.values, c->values_in, c->n_in * c->value_size);
        }
        status = agree(work, rank, sort_here(c, w.keys, w.values, c->n_in));
    }
    phases.local_sort = MPI_Wtime() - start;

    if (status == CLRADIX_SUCCESS) {
        start = MPI_Wtime();
        if (phase_outcome(CLRADIX_MPI_PHASE_SELECT, select_splits(work, &order, w.keys, c->n_in, w.targets, total_in,
                                                                  w.splits, w.select_work)) != MPI_SUCCESS)
            status = CLRADIX_ERROR_MPI;
        phases.select = MPI_Wtime() - start;
    }

    /* Every key moves once, to the rank whose output range holds its global position. */
    if (status == CLRADIX_SUCCESS) {
        start = MPI_Wtime();
        for (int r = 0; r < ranks; ++r) {
            const uint64_t from = r == 0 ? 0 : w.splits[r - 1], to = r + 1 == ranks ? c->n_in : w.splits[r];
            w.send_count[r] = to - from;
        }
        /* A host merge reads the runs from the spare arrays and writes the output. */
        void *keys_to = c->keys_out, *values_to = c->values_out;
        if (MPI_Alltoall(w.send_count, 1, MPI_UINT64_T, w.recv_count, 1, MPI_UINT64_T, work) != MPI_SUCCESS)
            status = CLRADIX_ERROR_MPI;
        const int several = status == CLRADIX_SUCCESS && merge_needed(w.recv_count, ranks);
        if (w.host_merge && several) {
            keys_to = w.keys_spare;
            values_to = w.values_spare;
        }
        const exchange_array arrays[EXCHANGE_ARRAYS_MAX] = { { order.key_bytes, w.keys, keys_to },
                                                             { c->value_size, w.values, values_to } };
        if (status == CLRADIX_SUCCESS &&
            phase_outcome(CLRADIX_MPI_PHASE_EXCHANGE, exchange(work, arrays, c->value_size ? 2 : 1, w.send_count,
                                                               w.recv_count, w.requests)) != MPI_SUCCESS)
            status = CLRADIX_ERROR_MPI;
        phases.exchange = MPI_Wtime() - start;

        /* What came from one rank is in order already; runs from several are merged, or
           sorted again stably, so that equal keys stay in (rank, position) order. */
        start = MPI_Wtime();
        const int merge = status == CLRADIX_SUCCESS && several;
        if (merge && w.host_merge)
            merge_runs(&order, c->value_size, w.recv_count, ranks, merge_threads(ranks_here), w.runs, w.tree, keys_to,
                       values_to, c->keys_out,
                       c->values_out);
        if (status == CLRADIX_SUCCESS)
            status = agree(work, rank, merge && !w.host_merge ? sort_here(c, c->keys_out, c->values_out, c->n_out)
                                                                 : CLRADIX_SUCCESS);
        phases.merge = merge ? MPI_Wtime() - start : 0;
    }

    workspace_free(&w);
    MPI_Comm_free(&work);
    last_phases = phases;
    return status;
}

clradix_status clradix_mpi_sort_keys(clradix_sorter *sorter, MPI_Comm comm, clradix_key_type type, const void *keys_in,
                                     size_t n_in, void *keys_out, size_t n_out, const clradix_options *options)
{
    const mpi_call c = { .sorter = sorter, .type = type, .options = options, .keys_in = keys_in,
                         .keys_out = keys_out, .n_in = n_in, .n_out = n_out };
    return mpi_sort(&c, comm);
}

clradix_status clradix_mpi_sort_pairs(clradix_sorter *sorter, MPI_Comm comm, clradix_key_type type, const void *keys_in,
                                      const void *values_in, size_t value_size, size_t n_in, void *keys_out,
                                      void *values_out, size_t n_out, const clradix_options *options)
{
    const mpi_call c = { .pairs = 1, .sorter = sorter, .type = type, .options = options, .keys_in = keys_in,
                         .values_in = values_in, .keys_out = keys_out, .values_out = values_out,
                         .value_size = value_size, .n_in = n_in, .n_out = n_out };
    return mpi_sort(&c, comm);
}

clradix_status clradix_mpi_balanced_count(MPI_Comm comm, size_t n_in, size_t *n_out)
{
    MPI_Comm work;
    int rank, ranks;
    clradix_status status = open_comm(comm, &work, &rank, &ranks);
    if (status != CLRADIX_SUCCESS)
        return status;
    const uint64_t mine[2] = { n_in, n_out == NULL };
    uint64_t sum[2];
    if (MPI_Allreduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, work) != MPI_SUCCESS)
        status = CLRADIX_ERROR_MPI;
    else if (sum[1] != 0)
        status = CLRADIX_ERROR_INVALID_ARGUMENT;
    else
        *n_out = (size_t)(sum[0] / (uint64_t)ranks + ((uint64_t)rank < sum[0] % (uint64_t)ranks));
    MPI_Comm_free(&work);
    return status;
}
