/* The final merge on the host: what a rank receives is one sorted run per source rank, in
   rank order; one P-way merge through a loser tree joins them in one pass over the data
   (log2 P comparisons per element; the lower run wins ties, so equal keys stay in
   (rank, position) order). Where the rank has several processors the output is cut into
   consecutive pieces, each piece's runs found by a search over key images (split_runs),
   and each piece merged by a thread of its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* sched_getaffinity */
#endif
#include "mpi_internal.h"

#include "host_parts.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

enum { MERGE_PART_MIN = 1 << 16 };

#ifdef CLRADIX_TESTING
#include "mpi_testing.h"
static int testing_final_sort;
void clradix_mpi_testing_final_sort(int how)
{
    testing_final_sort = how;
}
static unsigned testing_merge_parts;
void clradix_mpi_testing_merge_parts(unsigned parts)
{
    testing_merge_parts = parts;
}
#endif

int host_merge_for(cl_device_id device)
{
#ifdef CLRADIX_TESTING
    if (testing_final_sort)
        return testing_final_sort == 1;
#endif
    cl_device_type type = 0;
    return clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
           (type & CL_DEVICE_TYPE_CPU);
}

int merge_needed(const uint64_t *run_count, int runs)
{
    int nonempty = 0;
    for (int r = 0; r < runs && nonempty < 2; ++r)
        nonempty += run_count[r] != 0;
    return nonempty > 1;
}

/* The merge of two runs while both have elements, for key width kb and value size vs
   (instantiated for each constant pair): branch-free, since which run goes next is a coin
   toss on random keys (a mispredicted branch per element took about half the time). */
static inline __attribute__((always_inline)) void merge_two_loop(const key_order *o, unsigned kb, size_t vs,
                                                                 size_t *i, size_t a_end, size_t *j, size_t b_end,
                                                                 const char *keys, const char *values, char *keys_to,
                                                                 char *values_to, size_t *to)
{
    size_t x = *i, y = *j, at = *to;
    while (x < a_end && y < b_end) {
        const key_order order = *o;
        const uint64_t image_a = (key_image(key_load(keys, kb, x), &order.image) >> order.begin_bit) & order.mask;
        const uint64_t image_b = (key_image(key_load(keys, kb, y), &order.image) >> order.begin_bit) & order.mask;
        const size_t take_b = image_b < image_a, pick = (size_t)0 - take_b, from = (y & pick) | (x & ~pick);
        element_copy(keys_to + at * kb, keys + from * kb, kb);
        if (vs)
            element_copy(values_to + at * vs, values + from * vs, vs);
        y += take_b;
        x += 1 - take_b;
        ++at;
    }
    *i = x;
    *j = y;
    *to = at;
}

/* Two runs, a and then b, of keys (and values) merged into keys_to (values_to) from
   element `to` on: the loser tree's work with one comparison and no tree. */
static void merge_two(const key_order *o, size_t value_size, merge_run a, merge_run b, const char *keys,
                      const char *values, char *keys_to, char *values_to, size_t to)
{
    const size_t kb = o->key_bytes, a_end = a.end, b_end = b.end;
    size_t i = a.first, j = b.first;
#define MERGE_TWO(kb, vs) merge_two_loop(o, kb, vs, &i, a_end, &j, b_end, keys, values, keys_to, values_to, &to)
#define MERGE_TWO_VALUES(kb)                   \
    switch (value_size) {                      \
    case 0: MERGE_TWO(kb, 0); break;           \
    case 4: MERGE_TWO(kb, 4); break;           \
    case 8: MERGE_TWO(kb, 8); break;           \
    default: MERGE_TWO(kb, 16); break;         \
    }
    switch (kb) {
    case 1: MERGE_TWO_VALUES(1) break;
    case 2: MERGE_TWO_VALUES(2) break;
    case 4: MERGE_TWO_VALUES(4) break;
    default: MERGE_TWO_VALUES(8) break;
    }
    /* One run is used up: the rest of the other follows as it is. */
    const size_t rest = i < a_end ? i : j, rest_count = i < a_end ? a_end - i : b_end - j;
    memcpy(keys_to + to * kb, keys + rest * kb, rest_count * kb);
    if (value_size)
        memcpy(values_to + to * value_size, values + rest * value_size, rest_count * value_size);
}

/* A contestant of the tree: a run's next element's image (UINT64_MAX once the run is used
   up), whether it is used up, and the run. */
typedef struct contestant {
    uint64_t image;
    uint64_t rank;  /* USED_UP once the run is used up, plus the run */
} contestant;

enum { RUN_BITS = 32 };
#define USED_UP ((uint64_t)1 << RUN_BITS)

static inline unsigned run_of(contestant c)
{
    return (unsigned)(c.rank & (USED_UP - 1));
}

/* Whether a's element goes before b's: a smaller image, or an equal one from a run not
   used up, or from a lower run; without branches (which way it goes is a coin toss on
   random keys). */
static inline uint64_t goes_first(contestant a, contestant b)
{
    return (uint64_t)(a.image < b.image) | ((uint64_t)(a.image == b.image) & (uint64_t)(a.rank < b.rank));
}

/* Plays the matches below node n of the tree (inner nodes 1 .. k - 1, whose children are
   2n and 2n + 1; nodes k .. 2k - 1 are the runs n - k, whose contestants are in leaf):
   records each inner node's loser and returns its winner. */
static contestant play(const contestant *leaf, contestant *tree, unsigned k, unsigned n)
{
    if (n >= k)
        return leaf[n - k];
    const contestant a = play(leaf, tree, k, 2 * n), b = play(leaf, tree, k, 2 * n + 1);
    const int a_wins = goes_first(a, b);
    tree[n] = a_wins ? b : a;
    return a_wins ? a : b;
}

size_t merge_tree_bytes(int runs)
{
    return 2 * (size_t)runs * sizeof(contestant);
}

/* Merges the k non-empty runs of list (positions in keys and values, in run order) into
   keys_to (values_to) from element `to` on, in one pass: tree has room for 2 k contestants. */
static void merge_list(const key_order *o, size_t value_size, merge_run *list, unsigned k, contestant *tree,
                       const char *keys, const char *values, char *keys_to, char *values_to, size_t to)
{
    const size_t kb = o->key_bytes;
    if (k == 0)
        return;
    if (k == 1) {
        memcpy(keys_to + to * kb, keys + list[0].first * kb, (list[0].end - list[0].first) * kb);
        if (value_size)
            memcpy(values_to + to * value_size, values + list[0].first * value_size,
                   (list[0].end - list[0].first) * value_size);
        return;
    }
    if (k == 2) {
        merge_two(o, value_size, list[0], list[1], keys, values, keys_to, values_to, to);
        return;
    }
    size_t total = 0;
    for (unsigned r = 0; r < k; ++r)
        total += list[r].end - list[r].first;
    /* The leaves' contestants sit in tree[k .. 2k - 1] until the matches are played. */
    for (unsigned r = 0; r < k; ++r)
        tree[k + r] = (contestant){ range_image(o, keys, list[r].first), r };
    contestant w = play(tree + k, tree, k, 1);  /* the run whose next element goes next */
    for (const size_t end = to + total; to < end; ++to) {
        const unsigned r = run_of(w);
        merge_run *run = &list[r];
        element_copy(keys_to + to * kb, keys + run->first * kb, kb);
        if (value_size)
            element_copy(values_to + to * value_size, values + run->first * value_size, value_size);
        if (++run->first < run->end)
            w.image = range_image(o, keys, run->first);
        else
            w = (contestant){ UINT64_MAX, USED_UP | r };
        for (unsigned n = (k + r) / 2; n >= 1; n /= 2) {  /* its path to the top, against each node's loser */
            const contestant t = tree[n];
            const uint64_t swap = (uint64_t)0 - goes_first(t, w);
            tree[n] = (contestant){ (w.image & swap) | (t.image & ~swap), (w.rank & swap) | (t.rank & ~swap) };
            w = (contestant){ (t.image & swap) | (w.image & ~swap), (t.rank & swap) | (w.rank & ~swap) };
        }
    }
}

/* Where the merged output's element `at` begins in each of the k runs: take[r] elements
   of run r go before it, in the merge's order (image, then run). The image of the element
   at `at` is the largest v with fewer than `at` + 1 elements below it. */
static void split_runs(const key_order *o, const merge_run *runs, unsigned k, const char *keys, size_t at,
                       size_t *take)
{
    uint64_t lo = 0, hi = o->mask;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2 + 1;
        size_t below = 0;
        for (unsigned r = 0; r < k; ++r)
            below += image_lower_bound(o, keys, runs[r].first, runs[r].end, mid) - runs[r].first;
        if (below <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* Below lo from every run, then elements equal to it from the lowest runs first. */
    size_t rest = at;
    for (unsigned r = 0; r < k; ++r) {
        take[r] = image_lower_bound(o, keys, runs[r].first, runs[r].end, lo) - runs[r].first;
        rest -= take[r];
    }
    for (unsigned r = 0; r < k && rest; ++r) {
        const size_t end = lo == o->mask ? runs[r].end
                                         : image_lower_bound(o, keys, runs[r].first, runs[r].end, lo + 1);
        const size_t equal = end - runs[r].first - take[r];
        const size_t more = equal < rest ? equal : rest;
        take[r] += more;
        rest -= more;
    }
}

/* One part of a merge split across threads: its runs and where its output begins. */
typedef struct merge_part {
    const key_order *o;
    size_t value_size;
    const char *keys, *values;
    char *keys_to, *values_to;
    merge_run *list;
    unsigned k;
    contestant *tree;
    size_t to;
} merge_part;

static void *merge_part_run(void *arg)
{
    merge_part *m = arg;
    merge_list(m->o, m->value_size, m->list, m->k, m->tree, m->keys, m->values, m->keys_to, m->values_to, m->to);
    return NULL;
}

unsigned merge_threads(int ranks_here)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int count = CPU_COUNT(&set);
    /* Bound to its own processors, a rank uses them all; unbound, it shares the node's. */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (ranks_here > 1 && online > 0 && count >= online)
        count = (int)(online / ranks_here);
    return count < 1 ? 1 : count > HOST_PARTS_MAX ? HOST_PARTS_MAX : (unsigned)count;
}

/* The merge in `parts` consecutive pieces of the output, one per thread, each piece's runs
   cut where split_runs says. Returns 0 (nothing written) when its memory cannot be had. */
static int merge_in_parts(const key_order *o, size_t value_size, const merge_run *runs, unsigned k, size_t total,
                          unsigned parts, const char *keys, const char *values, char *keys_to, char *values_to)
{
    merge_part *part = calloc(parts, sizeof *part);
    merge_run *lists = malloc((size_t)parts * k * sizeof *lists);
    contestant *trees = malloc((size_t)parts * merge_tree_bytes((int)k));
    size_t *cut = malloc((size_t)(parts + 1) * k * sizeof *cut);
    const int ready = part && lists && trees && cut;
    if (ready) {
        for (unsigned t = 0; t <= parts; ++t)
            split_runs(o, runs, k, keys, total / parts * t + (t == parts ? total % parts : 0), &cut[(size_t)t * k]);
        for (unsigned t = 0; t < parts; ++t) {
            merge_part *m = &part[t];
            *m = (merge_part){ o, value_size, keys, values, keys_to, values_to, &lists[(size_t)t * k], 0,
                               (contestant *)((char *)trees + (size_t)t * merge_tree_bytes((int)k)), total / parts * t };
            for (unsigned r = 0; r < k; ++r) {
                const size_t first = runs[r].first + cut[(size_t)t * k + r],
                             end = runs[r].first + cut[(size_t)(t + 1) * k + r];
                if (first < end)
                    m->list[m->k++] = (merge_run){ first, end };
            }
        }
        run_in_parts(merge_part_run, part, sizeof *part, parts);
    }
    free(part);
    free(lists);
    free(trees);
    free(cut);
    return ready;
}

void merge_runs(const key_order *o, size_t value_size, const uint64_t *run_count, int runs, unsigned threads,
                merge_run *list, contestant *tree, const void *keys, const void *values, void *keys_to,
                void *values_to)
{
    unsigned k = 0;
    size_t total = 0;
    for (int r = 0; r < runs; ++r) {
        if (run_count[r])
            list[k++] = (merge_run){ total, total + (size_t)run_count[r] };
        total += (size_t)run_count[r];
    }
    /* Threads where each gets at least MERGE_PART_MIN elements; on one thread (also when
       the threads' memory cannot be had) in the workspace's list and tree. */
    unsigned parts = threads;
    if (total / MERGE_PART_MIN < parts)
        parts = total / MERGE_PART_MIN > 1 ? (unsigned)(total / MERGE_PART_MIN) : 1;
#ifdef CLRADIX_TESTING
    if (testing_merge_parts)
        parts = testing_merge_parts < HOST_PARTS_MAX ? testing_merge_parts : HOST_PARTS_MAX;
#endif
    if (parts > 1 && merge_in_parts(o, value_size, list, k, total, parts, keys, values, keys_to, values_to))
        return;
    merge_list(o, value_size, list, k, tree, keys, values, keys_to, values_to, 0);
}
