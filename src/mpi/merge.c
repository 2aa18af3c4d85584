/* The final merge on the host: what a rank receives is one sorted run per source rank, in
   rank order; one P-way merge through a loser tree joins them in one pass over the data
   (log2 P comparisons per element; the lower run wins ties, so equal keys stay in
   (rank, position) order). */
#include "mpi_internal.h"

#ifdef CLRADIX_TESTING
#include "mpi_testing.h"
static int testing_final_sort;
void clradix_mpi_testing_final_sort(int how)
{
    testing_final_sort = how;
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

/* Two runs, a and then b, of keys (and values) merged into the same place of keys_to
   (values_to): the loser tree's work with one comparison and no tree. */
static void merge_two(const key_order *o, size_t value_size, merge_run a, merge_run b, const char *keys,
                      const char *values, char *keys_to, char *values_to)
{
    const size_t kb = o->key_bytes, a_end = a.end, b_end = b.end;
    size_t i = a.first, j = b.first, to = a.first;
    if (a.first < a_end && b.first < b_end) {
        uint64_t image_a = range_image(o, keys, i), image_b = range_image(o, keys, j);
        for (;; ++to) {
            const int take_b = image_b < image_a;
            const size_t from = take_b ? j : i;
            element_copy(keys_to + to * kb, keys + from * kb, kb);
            if (value_size)
                element_copy(values_to + to * value_size, values + from * value_size, value_size);
            if (take_b) {
                if (++j == b_end)
                    break;
                image_b = range_image(o, keys, j);
            } else {
                if (++i == a_end)
                    break;
                image_a = range_image(o, keys, i);
            }
        }
        ++to;
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
    unsigned done, run;
} contestant;

/* Whether a's element goes before b's: a smaller image, or an equal one from a run not
   used up, or from a lower run. */
static inline int goes_first(contestant a, contestant b)
{
    if (a.image != b.image)
        return a.image < b.image;
    return a.done != b.done ? b.done : a.run < b.run;
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

void merge_runs(const key_order *o, size_t value_size, const uint64_t *run_count, int runs, merge_run *list,
                contestant *tree, const void *keys, const void *values, void *keys_to, void *values_to)
{
    const size_t kb = o->key_bytes;
    const char *from_keys = keys, *from_values = values;
    char *to_keys = keys_to, *to_values = values_to;
    unsigned k = 0;
    size_t total = 0;
    for (int r = 0; r < runs; ++r) {
        if (run_count[r]) {
            list[k] = (merge_run){ total, total + (size_t)run_count[r] };
            ++k;
        }
        total += (size_t)run_count[r];
    }
    if (k == 2) {  /* (k >= 2: see merge_needed) */
        merge_two(o, value_size, list[0], list[1], from_keys, from_values, to_keys, to_values);
        return;
    }
    /* The leaves' contestants sit in tree[k .. 2k - 1] until the matches are played. */
    for (unsigned r = 0; r < k; ++r)
        tree[k + r] = (contestant){ range_image(o, keys, list[r].first), 0, r };
    contestant w = play(tree + k, tree, k, 1);  /* the run whose next element goes next */
    for (size_t to = 0; to < total; ++to) {
        merge_run *run = &list[w.run];
        element_copy(to_keys + to * kb, from_keys + run->first * kb, kb);
        if (value_size)
            element_copy(to_values + to * value_size, from_values + run->first * value_size, value_size);
        if (++run->first < run->end)
            w.image = range_image(o, keys, run->first);
        else
            w = (contestant){ UINT64_MAX, 1, w.run };
        for (unsigned n = (k + w.run) / 2; n >= 1; n /= 2)  /* its path to the top, against each node's loser */
            if (goes_first(tree[n], w)) {
                const contestant loser = w;
                w = tree[n];
                tree[n] = loser;
            }
    }
}
