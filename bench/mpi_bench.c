/*
 * clradix-mpi-bench: times clradix_mpi_sort_* under mpirun, the same number of keys on
 * every rank (weak scaling), and reports the time of each phase (local sort, splitter
 * selection, exchange, final sort) and the keys per second of the whole sort. Each rank
 * sorts on its own device: --device picks it (the same spec on every rank, or "local":
 * the local rank's index among the node's devices). Every result is verified: each rank's
 * keys in order and after the previous rank's, and the multiset of keys (and key-value
 * pairs) over all ranks the input's.
 */
#include "bench.h"

#include <clradix_mpi.h>

#include <stdlib.h>
#include <string.h>

enum { MAX_ITEMS = 16, PHASES = 4 };
static const char *const phase_names[PHASES] = { "local_sort", "select", "exchange", "merge" };

typedef struct options {
    const char *device;
    clradix_key_type types[MAX_ITEMS];
    int type_count;
    size_t sizes[MAX_ITEMS];
    int size_count;
    size_t value_sizes[MAX_ITEMS];
    int value_count;
    bench_dist dist;
    int runs;
    const char *json_path;
} options;

static int rank, ranks;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np P clradix-mpi-bench [options]\n"
            "  --n N[,N...]        keys per rank (default 2^22; 2^k, K and M allowed)\n"
            "  --type T[,T...]     u32 i32 f32 u64 i64 f64 u8 i8 u16 i16 f16 bf16 f32-numpy\n"
            "                      f64-numpy f16-numpy bf16-numpy (default u32)\n"
            "  --pairs V[,V...]    value bytes: 0 (keys only), 4, 8, 16 (default 0)\n"
            "  --dist D            random sorted reverse equal few lowentropy range16 unit normal zipf\n"
            "                      (default random; see clradix-bench --help)\n"
            "  --runs R            timed runs after one warm-up (default 5); the median is reported\n"
            "  --device SPEC       the device of every rank (index or name, as CLRADIX_DEVICE), or\n"
            "                      local: the rank's index among its node's ranks (default: the default device)\n"
            "  --json FILE         also write the results as JSON (rank 0)\n");
}

static int add_type(void *context, const char *item)
{
    options *o = context;
    return o->type_count < MAX_ITEMS && parse_type(item, &o->types[o->type_count]) && ++o->type_count;
}

static int add_size(void *context, const char *item)
{
    options *o = context;
    return o->size_count < MAX_ITEMS && parse_size(item, &o->sizes[o->size_count]) && o->sizes[o->size_count++] > 0;
}

static int add_value_size(void *context, const char *item)
{
    options *o = context;
    return o->value_count < MAX_ITEMS && parse_value_size(item, &o->value_sizes[o->value_count]) &&
           ++o->value_count;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){ .dist = DIST_RANDOM, .runs = 5 };
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = value != NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            if (rank == 0)
                usage(stdout);
            return 1;
        } else if (ok && !strcmp(arg, "--n"))
            ok = for_each_item(value, add_size, o);
        else if (ok && !strcmp(arg, "--type"))
            ok = for_each_item(value, add_type, o);
        else if (ok && !strcmp(arg, "--pairs"))
            ok = for_each_item(value, add_value_size, o);
        else if (ok && !strcmp(arg, "--dist"))
            ok = parse_dist(value, &o->dist);
        else if (ok && !strcmp(arg, "--runs"))
            ok = (o->runs = atoi(value)) > 0;
        else if (ok && !strcmp(arg, "--device"))
            o->device = value;
        else if (ok && !strcmp(arg, "--json"))
            o->json_path = value;
        else
            ok = 0;
        if (!ok) {
            if (rank == 0) {
                fprintf(stderr, "clradix-mpi-bench: bad option %s %s\n", arg, value ? value : "");
                usage(stderr);
            }
            return 2;
        }
        ++i;
    }
    if (!o->type_count)
        o->types[o->type_count++] = CLRADIX_U32;
    if (!o->size_count)
        o->sizes[o->size_count++] = (size_t)1 << 22;
    if (!o->value_count)
        o->value_sizes[o->value_count++] = 0;
    return 0;
}

/* The rank's device: --device's spec, or with "local" its place among its node's ranks. */
static clradix_status open_sorter(const char *spec, clradix_sorter **sorter, char *name, size_t name_size)
{
    char index[16];
    if (spec && !strcmp(spec, "local")) {
        MPI_Comm node;
        int local = 0;
        cl_uint count = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        clradix_device_list(0, NULL, &count);
        snprintf(index, sizeof index, "%u", count ? (unsigned)local % count : 0u);
        spec = index;
    }
    cl_device_id device;
    clradix_status status = clradix_device_find(spec, &device);
    if (status != CLRADIX_SUCCESS)
        return status;
    clGetDeviceInfo(device, CL_DEVICE_NAME, name_size, name, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, NULL);
    if (!context)
        return CLRADIX_ERROR_OPENCL;
    status = clradix_sorter_create(context, device, sorter);
    clReleaseContext(context);
    return status;
}

/* An order-independent fingerprint of (key, value) elements; summed over the ranks. */
static void fingerprint(clradix_key_type type, const void *keys, const void *values, size_t value_size, size_t n,
                        uint64_t out[2])
{
    const input_digest d = digest_keys(type, keys, n);
    out[0] = d.sum + d.mix;
    out[1] = 0;
    for (size_t i = 0; values && i < n; ++i) {
        uint64_t key = 0, value;
        memcpy(&key, (const char *)keys + i * type_bytes(type), type_bytes(type));
        memcpy(&value, (const char *)values + i * value_size, value_size < 8 ? value_size : 8);
        if (value_size == 4)
            value &= 0xFFFFFFFFu;
        uint64_t h = (key * 0x9E3779B97F4A7C15ull) ^ value;
        h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
        out[1] += h ^ (h >> 29);
    }
}

/* Every rank's keys in order and after those of the last non-empty rank before it; the
   multisets of keys and pairs of all outputs those of all inputs. */
static int verify(clradix_key_type type, const uint64_t in_print[2], const void *keys, const void *values,
                  size_t value_size, size_t n)
{
    const unsigned bytes = type_bytes(type);
    int bad = 0;
    uint64_t first = 0, last = 0;
    for (size_t i = 0; i < n; ++i) {
        uint64_t key = 0;
        memcpy(&key, (const char *)keys + i * bytes, bytes);
        const uint64_t image = order_image(type, key);
        bad |= i > 0 && image < last;
        first = i == 0 ? image : first;
        last = image;
    }
    uint64_t mine[3] = { n > 0, first, last }, *all = malloc(3 * sizeof *all * (size_t)ranks);
    MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = rank - 1; n && r >= 0; --r)
        if (all[3 * r]) {
            bad |= all[3 * r + 2] > first;
            break;
        }
    free(all);
    uint64_t out_print[2], sums[4], local[4];
    fingerprint(type, keys, values, value_size, n, out_print);
    memcpy(local, in_print, 2 * sizeof *local);
    memcpy(local + 2, out_print, 2 * sizeof *local);
    MPI_Allreduce(local, sums, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    bad |= sums[0] != sums[2] || sums[1] != sums[3];
    int any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any_bad;
}

typedef struct case_result {
    clradix_key_type type;
    size_t value_size, n;
    double total_ms, phase_ms[PHASES];
    double mkeys;
    int verified;
} case_result;

static clradix_status run_case(clradix_sorter *sorter, const options *o, clradix_key_type type, size_t value_size,
                               size_t n, case_result *r)
{
    const unsigned bytes = type_bytes(type);
    void *keys_in = malloc(n * bytes), *keys_out = malloc(n * bytes);
    void *values_in = value_size ? malloc(n * value_size) : NULL, *values_out = value_size ? malloc(n * value_size) : NULL;
    double *times = malloc((size_t)o->runs * (PHASES + 1) * sizeof *times);
    make_keys(type, o->dist, n, 0x1234567u + 7919u * (uint64_t)rank, keys_in);
    if (value_size)
        make_values(value_size, n, values_in);
    uint64_t in_print[2];
    fingerprint(type, keys_in, values_in, value_size, n, in_print);

    clradix_status status = CLRADIX_SUCCESS;
    for (int run = -1; run < o->runs && status == CLRADIX_SUCCESS; ++run) {  /* run -1: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = seconds();
        status = value_size ? clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, type, keys_in, values_in, value_size, n,
                                                     keys_out, values_out, n, NULL)
                            : clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, type, keys_in, n, keys_out, n, NULL);
        const double total = seconds() - start;
        clradix_mpi_phases p;
        clradix_mpi_last_phases(&p);
        /* The slowest rank's seconds of the whole sort and of each phase. */
        const double mine[PHASES + 1] = { total, p.local_sort, p.select, p.exchange, p.merge };
        double slowest[PHASES + 1];
        MPI_Allreduce(mine, slowest, PHASES + 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (int k = 0; run >= 0 && k <= PHASES; ++k)
            times[(size_t)k * (size_t)o->runs + (size_t)run] = slowest[k];
    }
    if (status == CLRADIX_SUCCESS) {
        *r = (case_result){ .type = type, .value_size = value_size, .n = n };
        r->total_ms = sort_times(times, o->runs) * 1e3;
        for (int k = 0; k < PHASES; ++k)
            r->phase_ms[k] = sort_times(times + (size_t)(k + 1) * (size_t)o->runs, o->runs) * 1e3;
        r->mkeys = (double)n * ranks / (r->total_ms * 1e-3) * 1e-6;
        r->verified = verify(type, in_print, keys_out, values_out, value_size, n);
    }
    free(keys_in);
    free(keys_out);
    free(values_in);
    free(values_out);
    free(times);
    return status;
}

static void print_row(const case_result *r)
{
    char pairs[16];
    snprintf(pairs, sizeof pairs, r->value_size ? "%zuB" : "-", r->value_size);
    printf("%5d  %-4s %-5s %10zu  %9.2f  %9.1f", ranks, type_name(r->type), pairs, r->n, r->total_ms, r->mkeys);
    for (int k = 0; k < PHASES; ++k)
        printf("  %7.2f (%2.0f%%)", r->phase_ms[k], 100 * r->phase_ms[k] / r->total_ms);
    printf("  %s\n", r->verified ? "yes" : "NO");
}

static void write_json(const char *path, const options *o, const char *device, const case_result *results, int count)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clradix-mpi-bench: cannot write %s\n", path);
        return;
    }
    fprintf(f, "{\n  \"ranks\": %d,\n  \"device_of_rank_0\": \"%s\",\n  \"dist\": \"%s\",\n  \"runs\": %d,\n"
               "  \"results\": [\n", ranks, device, dist_name(o->dist), o->runs);
    for (int i = 0; i < count; ++i) {
        const case_result *r = &results[i];
        fprintf(f, "    {\"type\": \"%s\", \"value_size\": %zu, \"n_per_rank\": %zu, \"median_ms\": %.4f, "
                   "\"mkeys_per_s\": %.2f", type_name(r->type), r->value_size, r->n, r->total_ms, r->mkeys);
        for (int k = 0; k < PHASES; ++k)
            fprintf(f, ", \"%s_ms\": %.4f", phase_names[k], r->phase_ms[k]);
        fprintf(f, ", \"verified\": %s}%s\n", r->verified ? "true" : "false", i + 1 < count ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    options o;
    int exit_code = parse_options(argc, argv, &o);
    if (exit_code) {
        MPI_Finalize();
        return exit_code == 1 ? 0 : 2;
    }

    clradix_sorter *sorter = NULL;
    char device[256] = "";
    const clradix_status opened = open_sorter(o.device, &sorter, device, sizeof device);
    int failed = opened != CLRADIX_SUCCESS, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_failed) {
        if (failed)
            fprintf(stderr, "clradix-mpi-bench: rank %d: no sorter: %s\n", rank, clradix_status_string(opened));
        clradix_sorter_release(sorter);
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        printf("clradix-mpi-bench: %d ranks, rank 0 on %s, %s keys, median of %d runs (slowest rank)\n", ranks,
               device, dist_name(o.dist), o.runs);
        printf("ranks  type pairs     n/rank   total ms  Mkeys/s   local sort ms       select ms     exchange ms"
               "        merge ms  verified\n");
    }
    case_result *results = malloc((size_t)(o.type_count * o.value_count * o.size_count) * sizeof *results);
    int count = 0;
    for (int t = 0; t < o.type_count; ++t)
        for (int v = 0; v < o.value_count; ++v)
            for (int s = 0; s < o.size_count; ++s) {
                case_result *r = &results[count];
                const clradix_status status = run_case(sorter, &o, o.types[t], o.value_sizes[v], o.sizes[s], r);
                if (status != CLRADIX_SUCCESS) {
                    if (rank == 0)
                        fprintf(stderr, "clradix-mpi-bench: %s pairs %zu n %zu: %s\n", type_name(o.types[t]),
                                o.value_sizes[v], o.sizes[s], clradix_status_string(status));
                    exit_code = 1;
                    continue;
                }
                exit_code |= !r->verified;
                if (rank == 0) {
                    print_row(r);
                    fflush(stdout);
                }
                ++count;
            }
    if (rank == 0 && o.json_path)
        write_json(o.json_path, &o, device, results, count);
    free(results);
    clradix_sorter_release(sorter);
    MPI_Finalize();
    return exit_code;
}
