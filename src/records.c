/*
 * Records sorted by several key fields, and gathers (cl/records.cl). A record's fields make
 * one unsigned composite key, fields[0] at the top, each field as the order-preserving
 * image of its type (key_order.h), so that the composite's unsigned order is the field
 * list's order. Records of 4 or 8 bytes whose composite is their bits rotated are read as
 * one key by the sort itself (record_as_key, -D RECORD_IMAGE). Otherwise the device-buffer
 * calls make the composite's words on the device (records_key) and sort them stably with
 * the records (as values: 4, 8 or 16 bytes) or their positions: a composite of one word
 * by one pairs sort (of one field of a word's width, read from the records by the sort
 * where the engine partitions them: keys_in_records); a wider one by its most significant
 * word first (of the first field's ranks where it takes few values, else cut below the
 * bits that no record changes), then only the runs of records equal in the words so far
 * by the next (enqueue_by_words), or word by word, least significant first, where the
 * device ends long loops (Mesa's llvmpipe). Records of
 * one word that tile it are sorted as it and written back (records_unkey); others move by
 * a gather at the end. The host calls of several words use the device-buffer path in core;
 * otherwise they make each word on the host and sort it with clradix_sort_pairs_host
 * (which goes out of core where needed), least significant first. 128-bit key types are
 * records of two 64-bit fields (wide_keys_device, wide_keys_host).
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A 128-bit field counts as two 64-bit ones. */
enum { PLAN_FIELDS = 2 * CLRADIX_MAX_FIELDS };

static int host_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char low;
    memcpy(&low, &probe, 1);
    return low;
}

/* The two 64-bit fields of a 128-bit field (key_type_wide) at offset, the more significant
   first, in the host's byte order. */
static void wide_fields(clradix_key_type type, size_t offset, int descending, clradix_key_field two[2])
{
    const int little = host_little_endian();
    two[0] = (clradix_key_field){ type == CLRADIX_I128 ? CLRADIX_I64 : CLRADIX_U64, offset + (little ? 8 : 0),
                                  descending };
    two[1] = (clradix_key_field){ CLRADIX_U64, offset + (little ? 0 : 8), descending };
}

/* The composite key of a field list. */
typedef struct record_plan {
    unsigned num_fields;
    unsigned total_bits;          /* of the composite */
    unsigned words;               /* sorted words */
    unsigned low_pad;             /* zero bits below the lowest field (several words) */
    unsigned word_bytes;          /* 4: the composite fits 32 bits; else 8 */
    size_t offset[PLAN_FIELDS];
    clradix_key_type type[PLAN_FIELDS];
    int descending[PLAN_FIELDS];
    key_transform transform[PLAN_FIELDS];
    unsigned low_bit[PLAN_FIELDS];  /* the field's lowest bit in the composite */
    int aligned[PLAN_FIELDS];       /* every record's field at a multiple of its width */
    int tiled;                    /* the fields tile the record, no numpy order: the composite is the record */
    key_transform as_key;         /* as_key.record: the record read as one key gives the composite */
} record_plan;

/* plan->as_key, where the composite key of records of 4 or 8 bytes is their bits rotated
   (on top; the other bytes below, out of the bit range), the float fields all of one width
   and none in numpy's order: then the sort reads each record as one key and moves it
   unchanged, with nothing made before or written back after. Fields read in the host's
   byte order are the record's bits only on a little-endian host. */
static void record_as_key(record_plan *plan, size_t record_size)
{
    key_transform *t = &plan->as_key;
    memset(t, 0, sizeof *t);
    if ((record_size != 4 && record_size != 8) || !host_little_endian())
        return;
    const unsigned width = 8 * (unsigned)record_size;
    int rotation = -1;
    if (plan->total_bits > width)
        return;
    for (unsigned f = 0; f < plan->num_fields; ++f) {
        const key_transform *field = &plan->transform[f];
        const uint64_t sign = (uint64_t)1 << (field->width - 1);
        const unsigned from = 8 * (unsigned)plan->offset[f], to = width - plan->total_bits + plan->low_bit[f];
        const int r = (int)((to + width - from) % width);
        if (field->nan_above || (rotation >= 0 && r != rotation))
            return;
        rotation = r;
        t->pos_xor |= field->pos_xor << to;
        if (field->pos_xor != field->neg_xor) {  /* a float field: its sign decides */
            if (t->float_bits && t->float_bits != field->width)
                return;
            t->float_bits = field->width;
            t->neg_xor |= sign << to;
        }
    }
    t->width = width;
    t->rotate = (unsigned)rotation;
    t->record = 1;
}

/* The words of the plan's composite: one of 32 or 64 bits where it fits 64, else words of
   word_bits (32 or 64) cut from the top, the most significant one full (records told apart
   by it need nothing more) and the lowest padded below with zeros. */
static void plan_words(record_plan *plan, unsigned word_bits)
{
    if (plan->total_bits <= 64) {
        plan->words = 1;
        plan->word_bytes = plan->total_bits <= 32 ? 4 : 8;
        plan->low_pad = 0;
    } else {
        plan->words = (plan->total_bits + word_bits - 1) / word_bits;
        plan->word_bytes = word_bits / 8;
        plan->low_pad = plan->words * word_bits - plan->total_bits;
    }
}

static clradix_status plan_records(const clradix_key_field *fields, unsigned num_fields, size_t record_size,
                                   record_plan *plan)
{
    if (!fields || num_fields == 0 || num_fields > CLRADIX_MAX_FIELDS || record_size == 0)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_key_field expanded[PLAN_FIELDS];
    unsigned count = 0;
    for (unsigned f = 0; f < num_fields; ++f) {
        if (key_type_wide(fields[f].type)) {
            if (fields[f].offset > record_size || record_size - fields[f].offset < 16)
                return CLRADIX_ERROR_INVALID_ARGUMENT;
            wide_fields(fields[f].type, fields[f].offset, fields[f].descending, expanded + count);
            count += 2;
        } else {
            expanded[count++] = fields[f];
        }
    }
    fields = expanded;
    num_fields = count;
    plan->num_fields = num_fields;
    plan->total_bits = 0;
    for (unsigned f = num_fields; f-- > 0;) {  /* the last field is the least significant */
        const unsigned bytes = key_type_bytes(fields[f].type);
        if (!bytes || bytes > record_size || fields[f].offset > record_size - bytes)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        plan->offset[f] = fields[f].offset;
        plan->type[f] = fields[f].type;
        plan->descending[f] = fields[f].descending;
        plan->transform[f] = key_transform_of(fields[f].type, fields[f].descending);
        plan->low_bit[f] = plan->total_bits;
        plan->total_bits += 8 * bytes;
    }
    plan_words(plan, 64);
    /* Tiled: every byte of the record in exactly one field, and each image invertible. */
    unsigned char covered[128] = { 0 };
    plan->tiled = plan->total_bits == 8 * record_size && plan->words <= 2;
    for (unsigned f = 0; f < num_fields; ++f) {
        const unsigned bytes = plan->transform[f].width / 8;
        plan->aligned[f] = record_size % bytes == 0 && plan->offset[f] % bytes == 0;
        for (unsigned b = 0; plan->tiled && b < bytes; ++b)
            plan->tiled = !covered[plan->offset[f] + b]++;
        plan->tiled = plan->tiled && !plan->transform[f].nan_above;
    }
    record_as_key(plan, record_size);
    return CLRADIX_SUCCESS;
}

/* The bits of word w that its sort takes: [word_first_bit, word_end_bit). */
static unsigned word_first_bit(const record_plan *plan, unsigned w)
{
    return w == 0 ? plan->low_pad : 0;
}

static unsigned word_end_bit(const record_plan *plan)
{
    return plan->words == 1 ? plan->total_bits : 8 * plan->word_bytes;
}

/* A field's part in word w: its image shifted right by `right`, then left by `left`;
   0 when the field has no bit in that word. */
static int field_part(const record_plan *plan, unsigned f, unsigned w, unsigned *right, unsigned *left)
{
    const unsigned low = plan->low_bit[f] + plan->low_pad, size = 8 * plan->word_bytes, base = size * w;
    if (low >= base + size || low + plan->transform[f].width <= base)
        return 0;
    *right = low < base ? base - low : 0;
    *left = low > base ? low - base : 0;
    return 1;
}

/* The sort of records read as keys (plan->as_key), or their argsort into indices; 0 where
   the plan does not allow it or the device lacks the 64-bit integers of 8-byte records. */
static int request_as_keys(const clradix_sorter *sorter, const record_plan *plan, size_t record_size, size_t n,
                           size_t index_size, int argsort, sort_request *r)
{
    if (!plan->as_key.record || (record_size == 8 && !sorter->limits.int64))
        return 0;
    memset(r, 0, sizeof *r);
    r->type = record_size == 4 ? CLRADIX_U32 : CLRADIX_U64;
    r->key_bytes = (unsigned)record_size;
    r->record = &plan->as_key;
    r->n = n;
    r->begin_bit = 8 * (unsigned)record_size - plan->total_bits;  /* the composite on top (record_as_key) */
    r->end_bit = 8 * (unsigned)record_size;
    r->argsort = argsort;
    r->value_size = argsort ? index_size : 0;
    r->keys_size = n * record_size;  /* the callers checked these products */
    r->values_size = n * r->value_size;
    return 1;
}

/* ---------------------------------------------------------------------------------
 * Device buffers
 * ------------------------------------------------------------------------------ */

/* Composites of several words: runs of up to SHORT_RUN records equal in the words so far
   are sorted by one work-item each, longer ones by a segmented sort (cl/records.cl). */
enum { SHORT_RUN = 16, RUN_BLOCK = 4096 };
/* Records per work-item of records_key_runs (the records of runs of a word below the first:
   few of them, mostly). */
enum { RUNS_KEY_RECORDS = 256 };
/* The counts past the blocks' (cl/records.cl: DICT_TABLE_AT + 2^DICT_SLICE_MAX). */
enum { RUN_COUNTS_PAST_BLOCKS = 40 + 2 * 64 + 4096 };

static size_t run_blocks(size_t n)
{
    return (n + RUN_BLOCK - 1) / RUN_BLOCK;
}

/* The kernel arguments of field f's image, from `first` on: offset, bytes, aligned,
   pos_xor, neg_xor, nan_above. */
static cl_int set_field_args(cl_kernel kernel, cl_uint first, const record_plan *plan, unsigned f)
{
    const key_transform *t = &plan->transform[f];
    const cl_ulong offset = plan->offset[f], pos_xor = t->pos_xor, neg_xor = t->neg_xor, nan_above = t->nan_above;
    const cl_uint bytes = t->width / 8, aligned = (cl_uint)plan->aligned[f];
    return set_args_at(kernel, first, 6, ARG(offset), ARG(bytes), ARG(aligned), ARG(pos_xor), ARG(neg_xor),
                       ARG(nan_above));
}

/* Enqueues word w of every record's composite key into words (word_bytes each): one
   records_key launch per field with bits in it. from_order: of record order[i]; else of
   record i, and order (unless NULL) receives the identity. With heads and counts (the runs
   of the words so far, records_heads'), only the records of runs, by records_key_runs.
   With counts alone (the top word of several, records in place): then made again, cut below
   the bits that records_lead found the same in every record, where there are such bits
   (records_key_runs without heads, a launch per field: the device decides). */
static cl_int enqueue_word(chain *c, const radix_program *p, const record_plan *plan, unsigned w, cl_mem records,
                           size_t record_size, size_t n, cl_mem order, size_t order_size, int from_order, cl_mem words,
                           cl_mem heads, cl_mem counts)
{
    const cl_ulong record_bytes = record_size;
    const cl_uint n32 = (cl_uint)n, index_bytes = (cl_uint)order_size, by_order = (cl_uint)from_order;
    const cl_uint word_bytes = plan->word_bytes, word = w, word_base = 8 * plan->word_bytes * w;
    const cl_uint total_bits = plan->total_bits;
    const size_t wg = p->params.scan_wg;
    cl_uint accumulate = 0;
    for (int again = 0; again <= (!heads && counts); ++again)
        for (unsigned f = 0; f < plan->num_fields; ++f) {
            unsigned right = 0, left = 0;
            if (!field_part(plan, f, w, &right, &left) && !again)
                continue;
            const cl_kernel kernel = heads || again ? p->records_key_runs : p->records_key;
            const cl_uint left32 = left, right32 = right, grid_low = plan->low_bit[f] + plan->low_pad;
            const cl_mem runs = again ? NULL : heads;
            cl_int err = set_args(kernel, 5, ARG(records), ARG(record_bytes), ARG(order), ARG(index_bytes),
                                  ARG(by_order));
            if (err == CL_SUCCESS)
                err = set_field_args(kernel, 5, plan, f);
            if (err == CL_SUCCESS)
                err = set_args_at(kernel, 11, 6, ARG(left32), ARG(right32), ARG(accumulate), ARG(words),
                                  ARG(word_bytes), ARG(n32));
            if (err == CL_SUCCESS && kernel == p->records_key_runs)
                err = set_args_at(kernel, 17, 6, ARG(runs), ARG(counts), ARG(word), ARG(grid_low), ARG(word_base),
                                  ARG(total_bits));
            if (err == CL_SUCCESS)
                err = chain_kernel(c, kernel, groups_for(kernel == p->records_key ? n : n / RUNS_KEY_RECORDS + 1, wg),
                                   wg);
            if (err != CL_SUCCESS)
                return err;
            accumulate = 1;
        }
    return CL_SUCCESS;
}

/* Before the top word: the first field's dictionary where it is 32 bits or wider
   (records_dict), and the composite's bits up to the highest that varies between records
   (records_lead), into counts. */
static cl_int enqueue_top_counts(chain *c, const radix_program *p, const record_plan *plan, cl_mem records,
                                 size_t record_size, size_t n, cl_mem counts)
{
    const cl_ulong record_bytes = record_size;
    const cl_uint n32 = (cl_uint)n, total_bits = plan->total_bits, take = plan->transform[0].width >= 32;
    cl_int err = set_args(p->records_dict, 2, ARG(records), ARG(record_bytes));
    if (err == CL_SUCCESS)
        err = set_field_args(p->records_dict, 2, plan, 0);
    if (err == CL_SUCCESS)
        err = set_args_at(p->records_dict, 8, 3, ARG(n32), ARG(take), ARG(counts));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_dict, 1, 1);
    for (unsigned f = 0; f < plan->num_fields && err == CL_SUCCESS; ++f) {
        const cl_uint low = plan->low_bit[f];
        err = set_args(p->records_lead, 2, ARG(records), ARG(record_bytes));
        if (err == CL_SUCCESS)
            err = set_field_args(p->records_lead, 2, plan, f);
        if (err == CL_SUCCESS)
            err = set_args_at(p->records_lead, 8, 4, ARG(low), ARG(total_bits), ARG(n32), ARG(counts));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->records_lead, groups_for(run_blocks(n), p->params.scan_wg), p->params.scan_wg);
    }
    return err;
}

/* After the top word: where the first field's ranks make it (records_dict_key into ranked,
   records_dict_use into words). */
static cl_int enqueue_top_ranks(chain *c, const radix_program *p, const record_plan *plan, cl_mem records,
                                size_t record_size, size_t n, cl_mem counts, cl_mem ranked, cl_mem words)
{
    const cl_ulong record_bytes = record_size;
    const cl_uint n32 = (cl_uint)n, total_bits = plan->total_bits;
    const size_t wg = p->params.scan_wg, items = n / RUNS_KEY_RECORDS + 1;
    cl_int err = set_args(p->records_dict_key, 2, ARG(records), ARG(record_bytes));
    if (err == CL_SUCCESS)
        err = set_field_args(p->records_dict_key, 2, plan, 0);
    if (err == CL_SUCCESS)
        err = set_field_args(p->records_dict_key, 8, plan, 1);
    if (err == CL_SUCCESS)
        err = set_args_at(p->records_dict_key, 14, 4, ARG(n32), ARG(total_bits), ARG(counts), ARG(ranked));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_dict_key, groups_for(items, wg), wg);
    if (err == CL_SUCCESS)
        err = set_args(p->records_dict_use, 5, ARG(words), ARG(ranked), ARG(counts), ARG(n32), ARG(total_bits));
    return err == CL_SUCCESS ? chain_kernel(c, p->records_dict_use, groups_for(items, wg), wg) : err;
}

/* The buffers of one call, counted in the sorter's memory while they live. */
/* The temporaries of a device-buffer call: a set of the sorter's pool (scratch.c), reused
   from call to call (fresh memory's first touch cost POCL 30-40 ms a word at 2^24, more
   than making the word), its slots named for this use. */
enum { CALL_WORDS = SCRATCH_KEYS, CALL_ORDER = SCRATCH_VALUES,
       CALL_COPY = SCRATCH_TABLE_ALL, CALL_HEADS = SCRATCH_PARTIALS, CALL_HEADS_2 = SCRATCH_PLAN,
       CALL_ENDS = SCRATCH_TOP, CALL_RUN_COUNTS = SCRATCH_JOBS, CALL_OFFSETS = SCRATCH_STATE };

/* The segments of a word's segmented sort: at most one per run longer than SHORT_RUN. */
static size_t run_segments(size_t n)
{
    return n / (SHORT_RUN + 1) + 1;
}

/* The buffers of a host-array gather. */
enum { CALL_BUFFERS = 3 };
typedef struct call_buffers {
    cl_mem buffer[CALL_BUFFERS];
    size_t bytes[CALL_BUFFERS];
} call_buffers;

static cl_mem call_buffer(clradix_sorter *sorter, call_buffers *b, int slot, cl_mem_flags flags, size_t bytes,
                          void *host, cl_int *err)
{
    if (*err != CL_SUCCESS)
        return NULL;
    b->buffer[slot] = sorter_buffer(sorter, flags, bytes, host, err);
    b->bytes[slot] = bytes;
    return b->buffer[slot];
}

static void call_buffers_release(clradix_sorter *sorter, call_buffers *b)
{
    for (int i = 0; i < CALL_BUFFERS; ++i)
        sorter_buffer_release(sorter, b->buffer[i], b->bytes[i]);  /* freed once the commands that use it are done */
}

/* Enqueues dst[i] = src[min(indices[i], src_n - 1)] with the program's gathers. */
static cl_int enqueue_gather(chain *c, const radix_program *p, cl_mem indices, cl_uint index_size, cl_mem src,
                             cl_ulong src_n, cl_mem dst, size_t element_size, size_t n)
{
    const unsigned unit_log = element_size % 32 == 0 ? 4
                            : element_size % 16 == 0 ? 3
                            : element_size % 8 == 0 ? 2
                            : element_size % 4 == 0 ? 1 : 0;
    const size_t unit = unit_log ? (size_t)2 << unit_log : 1;
    const cl_kernel kernel = p->records_gather[unit_log];
    const cl_ulong units = element_size / unit, count = n;  /* an element per work-item */
    const size_t wg = p->params.scan_wg, launch = (size_t)1 << 30;  /* work-items per launch, at most */
    cl_int err = set_args(kernel, 5, ARG(indices), ARG(index_size), ARG(src), ARG(src_n), ARG(dst));
    if (err == CL_SUCCESS)
        err = set_args_at(kernel, 5, 1, ARG(units));
    if (err == CL_SUCCESS)
        err = set_args_at(kernel, 7, 1, ARG(count));
    for (cl_ulong first = 0; first < count && err == CL_SUCCESS; first += launch) {
        const cl_ulong left = count - first;
        err = set_args_at(kernel, 6, 1, ARG(first));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, kernel, groups_for(left < launch ? (size_t)left : launch, wg), wg);
    }
    return err;
}

/* The program of records and gathers (64-bit integers in kernels needed). */
static clradix_status records_program(clradix_sorter *sorter, radix_program **p)
{
    if (!sorter->limits.int64)
        return CLRADIX_ERROR_UNSUPPORTED;
    return program_get(sorter, PROGRAM_RECORDS, (key_variant){ .bytes = 8 }, 0, p);
}

/* The sort s after the chain's last command; its event becomes the chain's last. */
static clradix_status chain_sort(clradix_sorter *sorter, chain *c, const sort_request *s)
{
    cl_event sorted = NULL;
    int enqueued = 0;
    const clradix_status status = dispatch_sort_tracked(sorter, c->queue, s, chain_wait_count(c), chain_wait_list(c),
                                                        &sorted, &enqueued);
    c->tried |= enqueued;
    if (status == CLRADIX_SUCCESS)
        chain_follow(c, sorted);
    return status;
}

/* The sort of word w of the plan's composite keys in words (n of them), stable, values (of
   value_size bytes, or NULL) moving with them; with offsets, within the run_segments(n)
   segments there (the long runs of records equal in the words above). The call's sorts
   share the temporaries of sorts. */
static sort_request word_sort(const record_plan *plan, unsigned w, cl_mem words, cl_mem values, size_t value_size,
                              cl_mem offsets, size_t n, scratch *sorts)
{
    sort_request s = { 0 };
    s.scratch = sorts;
    s.type = plan->word_bytes == 4 ? CLRADIX_U32 : CLRADIX_U64;
    s.key_bytes = plan->word_bytes;
    s.keys = words;
    s.values = values;
    s.value_size = values ? value_size : 0;
    s.n = n;
    s.keys_size = n * plan->word_bytes;
    s.values_size = n * s.value_size;
    s.begin_bit = word_first_bit(plan, w);
    s.end_bit = word_end_bit(plan);
    s.segmented = offsets != NULL;
    s.offsets = offsets;
    s.num_segments = offsets ? run_segments(n) : 0;
    return s;
}

static clradix_status enqueue_word_sort(clradix_sorter *sorter, chain *c, const record_plan *plan, unsigned w,
                                        cl_mem words, cl_mem values, size_t value_size, cl_mem offsets, size_t n,
                                        scratch *sorts)
{
    const sort_request s = word_sort(plan, w, words, values, value_size, offsets, n, sorts);
    return chain_sort(sorter, c, &s);
}

/* Where the composite of records sorted as the values of the sort s is one field of a
   word's width (so their one word) at a multiple of it, not in numpy's order (whose program
   the records' sorts would not share otherwise), and the sort can read it there
   (dispatch_takes_keys_in_values): s sorts that field in place, of its own type and order,
   and the words only receive it. 0 leaves s as it was. */
static int keys_in_records(clradix_sorter *sorter, const record_plan *plan, sort_request *s)
{
    if (plan->num_fields != 1 || plan->transform[0].width != 8 * plan->word_bytes || !plan->aligned[0]
        || plan->transform[0].nan_above)
        return 0;
    sort_request r = *s;
    r.type = plan->type[0];
    r.descending = plan->descending[0];
    r.keys_in_values = (unsigned)(plan->offset[0] / plan->word_bytes) + 1;
    if (!dispatch_takes_keys_in_values(sorter, &r))
        return 0;
    *s = r;
    return 1;
}

/* The words of the plan, least significant first, sorted with the positions in order
   (index_size bytes each, or the records themselves as values when move_records), each word
   made by records_key from the order so far (or the records, which the sorts moved), or
   read by the sort from the records (keys_in_records). */
static clradix_status enqueue_records(clradix_sorter *sorter, chain *c, const radix_program *p,
                                      const record_plan *plan, cl_mem records, size_t record_size, size_t n,
                                      const scratch *b, scratch *sorts, cl_mem order, size_t index_size,
                                      int move_records)
{
    const cl_mem words = b->buffer[CALL_WORDS];
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned w = 0; w < plan->words && status == CLRADIX_SUCCESS; ++w) {
        sort_request s = word_sort(plan, w, words, move_records ? records : order,
                                   move_records ? record_size : index_size, NULL, n, sorts);
        if (!(move_records && keys_in_records(sorter, plan, &s)))
            status = status_from_cl(enqueue_word(c, p, plan, w, records, record_size, n,
                                                 move_records ? NULL : order, index_size, w > 0 && !move_records,
                                                 words, NULL, NULL));
        if (status == CLRADIX_SUCCESS)
            status = chain_sort(sorter, c, &s);
    }
    return status;
}

/* The heads of the runs of the words so far, with word w of the plan in words
   (records_heads; the top word's first), and in counts the records that continue a run. */
static cl_int enqueue_heads(chain *c, const radix_program *p, const record_plan *plan, unsigned w, cl_mem heads,
                            cl_mem words, cl_mem counts, size_t n)
{
    const cl_uint n32 = (cl_uint)n, blocks = (cl_uint)run_blocks(n), continuing = blocks + 1, word = w;
    const cl_uint first = w == plan->words - 1;
    const size_t wg = p->params.scan_wg;
    cl_int err = set_args(p->records_heads, 6, ARG(heads), ARG(words), ARG(first), ARG(n32), ARG(counts), ARG(word));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_heads, groups_for(blocks, wg), wg);
    if (err == CL_SUCCESS)
        err = set_args(p->records_run_scan, 3, ARG(counts), ARG(blocks), ARG(continuing));
    return err == CL_SUCCESS ? chain_kernel(c, p->records_run_scan, 1, 1) : err;
}

/* The runs of word w (words: the word of each record in the current order): short runs
   sorted (their words then 0), heads_out from heads_in, the long runs' segments in offsets
   and the words of records alone in their run 0 where a segment may hold them. */
static cl_int enqueue_runs(chain *c, const radix_program *p, const scratch *b, cl_mem heads_in, cl_mem heads_out,
                           cl_mem values, size_t value_size, size_t n, unsigned w)
{
    const cl_mem words = b->buffer[CALL_WORDS], ends = b->buffer[CALL_ENDS];
    const cl_mem counts = b->buffer[CALL_RUN_COUNTS], offsets = b->buffer[CALL_OFFSETS];
    const cl_uint n32 = (cl_uint)n, value_words = (cl_uint)(value_size / 4), blocks = (cl_uint)run_blocks(n);
    const cl_uint segments = (cl_uint)run_segments(n), word = w;
    const size_t wg = p->params.scan_wg;
    cl_int err = set_args(p->records_runs, 9, ARG(heads_in), ARG(heads_out), ARG(ends), ARG(words), ARG(values),
                          ARG(value_words), ARG(counts), ARG(n32), ARG(word));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_runs, groups_for(blocks, wg), wg);
    if (err == CL_SUCCESS)
        err = set_args(p->records_run_scan, 3, ARG(counts), ARG(blocks), ARG(blocks));  /* the long runs' total */
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_run_scan, 1, 1);
    if (err == CL_SUCCESS)
        err = set_args(p->records_run_offsets, 6, ARG(heads_in), ARG(ends), ARG(counts), ARG(offsets), ARG(words),
                       ARG(n32));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_run_offsets, groups_for(blocks, wg), wg);
    if (err == CL_SUCCESS)
        err = set_args(p->records_run_fill, 4, ARG(counts), ARG(blocks), ARG(offsets), ARG(segments));
    if (err == CL_SUCCESS)
        err = chain_kernel(c, p->records_run_fill, groups_for((size_t)segments + 1, wg), wg);
    return err;
}

/*
 * Composites of several words, most significant first: the top word sorted with the
 * values (the records themselves, their positions, or argsort's indices), then for each
 * next word only the runs of records equal in the words so far (none for random 128-bit
 * keys, whose top words differ), each run by that word.
 */
static clradix_status enqueue_by_words(clradix_sorter *sorter, chain *c, const radix_program *p,
                                       const record_plan *plan, cl_mem records, size_t record_size, size_t n,
                                       const scratch *b, scratch *sorts, cl_mem values, size_t value_size,
                                       int move_records)
{
    const cl_mem words = b->buffer[CALL_WORDS], counts = b->buffer[CALL_RUN_COUNTS];
    cl_mem heads = b->buffer[CALL_HEADS], heads_next = b->buffer[CALL_HEADS_2];
    const unsigned top = plan->words - 1;
    const cl_mem order = move_records ? NULL : values;  /* where each record of the current order is */
    clradix_status status = status_from_cl(enqueue_top_counts(c, p, plan, records, record_size, n, counts));
    if (status == CLRADIX_SUCCESS)
        status = status_from_cl(
            enqueue_word(c, p, plan, top, records, record_size, n, order, value_size, 0, words, NULL, counts));
    if (status == CLRADIX_SUCCESS)  /* (heads_next: free until the second word's runs) */
        status = status_from_cl(
            enqueue_top_ranks(c, p, plan, records, record_size, n, counts, heads_next, words));
    if (status == CLRADIX_SUCCESS)
        status = enqueue_word_sort(sorter, c, plan, top, words, values, value_size, NULL, n, sorts);
    if (status == CLRADIX_SUCCESS)
        status = status_from_cl(enqueue_heads(c, p, plan, top, heads, words, counts, n));
    for (unsigned w = top; w-- > 0 && status == CLRADIX_SUCCESS;) {
        status = status_from_cl(enqueue_word(c, p, plan, w, records, record_size, n, order, value_size, !move_records,
                                             words, heads, counts));
        if (status == CLRADIX_SUCCESS)
            status = status_from_cl(enqueue_runs(c, p, b, heads, heads_next, values, value_size, n, w));
        if (status == CLRADIX_SUCCESS)
            status =
                enqueue_word_sort(sorter, c, plan, w, words, values, value_size, b->buffer[CALL_OFFSETS], n, sorts);
        if (status == CLRADIX_SUCCESS && w > 0)
            status = status_from_cl(enqueue_heads(c, p, plan, w, heads_next, words, counts, n));
        const cl_mem swap = heads;
        heads = heads_next;
        heads_next = swap;
    }
    return status;
}

/* Records that are their composite key of one word (plan->tiled): the word sorted in place
   of them, then written back. */
static clradix_status enqueue_tiled(clradix_sorter *sorter, chain *c, const radix_program *p, const record_plan *plan,
                                    cl_mem records, size_t record_size, size_t n, const scratch *b, scratch *sorts)
{
    const cl_uint word_bytes = plan->word_bytes, n32 = (cl_uint)n;
    const cl_ulong record_bytes = record_size;
    const cl_mem words[2] = { b->buffer[CALL_WORDS], NULL };
    clradix_status status =
        status_from_cl(enqueue_word(c, p, plan, 0, records, record_size, n, NULL, 4, 0, words[0], NULL, NULL));
    if (status == CLRADIX_SUCCESS)
        status = enqueue_word_sort(sorter, c, plan, 0, words[0], NULL, 8, NULL, n, sorts);
    cl_int err = CL_SUCCESS;
    if (status == CLRADIX_SUCCESS)
        err = set_args(p->records_unkey, 2, ARG(records), ARG(record_bytes));
    if (err == CL_SUCCESS)
        err = set_args_at(p->records_unkey, 8, 4, ARG(words[0]), ARG(words[1]), ARG(word_bytes), ARG(n32));
    for (unsigned f = 0; f < plan->num_fields && status == CLRADIX_SUCCESS && err == CL_SUCCESS; ++f) {
        const key_transform *t = &plan->transform[f];
        const cl_ulong offset = plan->offset[f], pos_xor = t->pos_xor, neg_xor = t->neg_xor;
        const cl_uint bytes = t->width / 8, aligned = (cl_uint)plan->aligned[f], low = plan->low_bit[f];
        err = set_args_at(p->records_unkey, 2, 6, ARG(offset), ARG(bytes), ARG(aligned), ARG(low), ARG(pos_xor),
                          ARG(neg_xor));
        if (err == CL_SUCCESS)
            err = chain_kernel(c, p->records_unkey, groups_for(n, p->params.scan_wg), p->params.scan_wg);
    }
    return status == CLRADIX_SUCCESS ? status_from_cl(err) : status;
}

/* The device-buffer record calls; *enqueued (unless NULL): whether a command was enqueued,
   or failed to be. */
static clradix_status records_device(clradix_sorter *sorter, cl_command_queue queue, cl_mem records,
                                     size_t record_size, size_t n, const clradix_key_field *fields,
                                     unsigned num_fields, cl_mem indices, size_t index_size, int argsort,
                                     cl_uint num_wait, const cl_event *wait_list, cl_event *event, int *enqueued)
{
    int tried = 0;
    if (!enqueued)
        enqueued = &tried;
    *enqueued = 0;
    if (!sorter || !queue || !records || n > CLRADIX_MAX_N || (argsort && !indices))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    record_plan plan;
    clradix_status status = plan_records(fields, num_fields, record_size, &plan);
    size_t records_size = 0, indices_size = 0;
    if (status == CLRADIX_SUCCESS && argsort)
        status = check_index_size(index_size);
    if (status == CLRADIX_SUCCESS
        && (!size_mul(n, record_size, &records_size) || !size_mul(n, argsort ? index_size : 0, &indices_size)))
        status = CLRADIX_ERROR_INVALID_ARGUMENT;
    const sort_request buffers = { .keys = records, .keys_size = records_size, .argsort = argsort,
                                   .values = argsort ? indices : NULL, .values_size = indices_size };
    if (status == CLRADIX_SUCCESS)
        status = check_device_call(sorter, queue, num_wait, wait_list, &buffers);
    sort_request as_keys;
    if (status == CLRADIX_SUCCESS && request_as_keys(sorter, &plan, record_size, n, index_size, argsort, &as_keys)) {
        as_keys.keys = records;
        as_keys.values = argsort ? indices : NULL;
        return dispatch_sort_tracked(sorter, queue, &as_keys, num_wait, wait_list, event, enqueued);
    }
    radix_program *p = NULL;
    if (status == CLRADIX_SUCCESS && n > 0)
        status = records_program(sorter, &p);
    if (status != CLRADIX_SUCCESS)
        return status;
    chain c = { queue, num_wait, wait_list, NULL, 0 };
    if (n == 0)
        return chain_hand_over(&c, CLRADIX_SUCCESS, event);

    /* Records that are their composite key of one word are sorted as it; records of a value
       size move through the sorts; others by a gather at the end. Composites of several
       words: the most significant first, then runs of equal words by the next; on a device
       that ends long loops (loops.c: the run kernels take thousands of records per
       work-item) by every word, least significant first. */
    const int by_words = plan.words > 1 && !sorter->limits.loop_budget;
    if (by_words)
        plan_words(&plan, 32);  /* a top word of 32 bits sorts faster and tells most records apart; the
                                   run kernels take 32-bit words */
    const int tiled = !argsort && plan.tiled && plan.words == 1;
    const int move_records = !argsort && !tiled && (record_size == 4 || record_size == 8 || record_size == 16);
    const int by_gather = !argsort && !tiled && !move_records;
    const size_t order_size = argsort ? index_size : 4;
    const size_t inner_values = tiled ? 0 : move_records ? record_size : order_size;
    size_t bytes[SCRATCH_SLOTS] = { 0 };
    bytes[CALL_WORDS] = n * plan.word_bytes;
    bytes[CALL_ORDER] = by_gather ? n * 4 : 0;
    bytes[CALL_COPY] = by_gather ? records_size : 0;
    if (by_words) {
        bytes[CALL_HEADS] = bytes[CALL_ENDS] = n;
        bytes[CALL_HEADS_2] = 4 * n;  /* the top word's ranks first (enqueue_top_ranks), then marks */
        /* a count per block, two totals, a word, the lead, a dictionary (cl/records.cl) */
        bytes[CALL_RUN_COUNTS] = (run_blocks(n) + RUN_COUNTS_PAST_BLOCKS) * 4;
        bytes[CALL_OFFSETS] = (run_segments(n) + 1) * 4;
    }
    /* The sorts' temporaries, one set for all of them (the sizes alone count there): the
       top word's, or the segmented sort's of the others. */
    const sort_request widest = { .type = plan.word_bytes == 4 ? CLRADIX_U32 : CLRADIX_U64,
                                  .key_bytes = plan.word_bytes, .values = inner_values ? records : NULL,
                                  .value_size = inner_values, .n = n, .keys_size = n * plan.word_bytes,
                                  .values_size = n * inner_values, .end_bit = 8 * plan.word_bytes };
    sort_request runs = widest;
    runs.segmented = 1;
    runs.offsets = records;
    runs.num_segments = run_segments(n);
    cl_ulong inner = 0, inner_runs = 0;
    status = dispatch_temporary_bytes(sorter, &widest, &inner);
    if (status == CLRADIX_SUCCESS && by_words)
        status = dispatch_temporary_bytes(sorter, &runs, &inner_runs);
    if (status != CLRADIX_SUCCESS)
        return status;
    if (scratch_total(bytes) + (inner > inner_runs ? inner : inner_runs) > device_budget(sorter))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    scratch *b = NULL, *sorts = NULL;  /* the call's temporaries, and those of its sorts */
    const size_t none[SCRATCH_SLOTS] = { 0 };
    status = scratch_for(sorter, bytes, &b);  /* checks each against the largest allocation */
    if (status == CLRADIX_SUCCESS)
        status = scratch_for(sorter, none, &sorts);  /* grown by the sorts */
    const cl_mem order = argsort ? indices : by_gather && b ? b->buffer[CALL_ORDER] : NULL;
    radix_program *kernels = status == CLRADIX_SUCCESS ? program_kernels_take(sorter, p, &status) : NULL;
    if (status == CLRADIX_SUCCESS && tiled)
        status = enqueue_tiled(sorter, &c, kernels, &plan, records, record_size, n, b, sorts);
    else if (status == CLRADIX_SUCCESS && by_words)
        status = enqueue_by_words(sorter, &c, kernels, &plan, records, record_size, n, b, sorts,
                                  move_records ? records : order, move_records ? record_size : order_size,
                                  move_records);
    else if (status == CLRADIX_SUCCESS)
        status = enqueue_records(sorter, &c, kernels, &plan, records, record_size, n, b, sorts, order, order_size,
                                 move_records);
    if (status == CLRADIX_SUCCESS && by_gather)
        status = status_from_cl(enqueue_gather(&c, kernels, order, 4, records, n, b->buffer[CALL_COPY], record_size, n));
    if (status == CLRADIX_SUCCESS && by_gather)
        status = status_from_cl(chain_copy(&c, b->buffer[CALL_COPY], records, records_size));
    program_kernels_return(sorter, p, kernels);
    scratch_return(sorter, b, c.last);  /* reused once this call's commands are over */
    scratch_return(sorter, sorts, c.last);
    *enqueued = c.tried;
    return chain_hand_over(&c, status, event);
}

clradix_status clradix_sort_records(clradix_sorter *sorter, cl_command_queue queue, cl_mem records, size_t record_size,
                                    size_t n, const clradix_key_field *fields, unsigned num_fields,
                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    return records_device(sorter, queue, records, record_size, n, fields, num_fields, NULL, 0, 0,
                          num_events_in_wait_list, event_wait_list, event, NULL);
}

clradix_status clradix_argsort_records(clradix_sorter *sorter, cl_command_queue queue, cl_mem records,
                                       size_t record_size, size_t n, const clradix_key_field *fields,
                                       unsigned num_fields, cl_mem indices, size_t index_size,
                                       cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                       cl_event *event)
{
    return records_device(sorter, queue, records, record_size, n, fields, num_fields, indices, index_size, 1,
                          num_events_in_wait_list, event_wait_list, event, NULL);
}

/* The two fields of 128-bit keys taken as 16-byte records by options (the whole key only). */
static clradix_status wide_key_fields(clradix_key_type type, const clradix_options *options, clradix_key_field two[2])
{
    unsigned begin, end;
    if (!bit_range(options, 128, &begin, &end))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    if (begin != 0 || end != 128)
        return CLRADIX_ERROR_UNSUPPORTED;
    wide_fields(type, 0, options && options->descending, two);
    return CLRADIX_SUCCESS;
}

clradix_status wide_keys_device(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                cl_mem values, size_t value_size, int argsort, size_t n,
                                const clradix_options *options, cl_uint num_wait, const cl_event *wait_list,
                                cl_event *event)
{
    if (!sorter || !queue || !keys || n > CLRADIX_MAX_N || (value_size && !values))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_key_field two[2];
    clradix_status status = wide_key_fields(type, options, two);
    if (status != CLRADIX_SUCCESS)
        return status;
    if (!values || argsort)
        return records_device(sorter, queue, keys, 16, n, two, 2, values, value_size, argsort, num_wait, wait_list,
                              event, NULL);

    /* Pairs: the keys' argsort, then keys and values gathered from copies in one launch. */
    size_t keys_size, values_size;
    if (!size_mul(n, 16, &keys_size) || !size_mul(n, value_size, &values_size))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    const sort_request buffers = { .keys = keys, .keys_size = keys_size, .values = values, .values_size = values_size };
    status = check_device_call(sorter, queue, num_wait, wait_list, &buffers);
    radix_program *p = NULL;
    if (status == CLRADIX_SUCCESS && n > 0)
        status = records_program(sorter, &p);
    if (status != CLRADIX_SUCCESS)
        return status;
    chain c = { queue, num_wait, wait_list, NULL, 0 };
    if (n == 0)
        return chain_hand_over(&c, CLRADIX_SUCCESS, event);
    enum { ORDER = SCRATCH_VALUES, KEYS_COPY = SCRATCH_TABLE_ALL, VALUES_COPY = SCRATCH_KEYS };
    size_t bytes[SCRATCH_SLOTS] = { 0 };
    bytes[ORDER] = n * 4;
    bytes[KEYS_COPY] = keys_size;
    bytes[VALUES_COPY] = values_size;
    scratch *b = NULL;
    status = scratch_for(sorter, bytes, &b);
    cl_event sorted = NULL;
    int enqueued = 0;
    if (status == CLRADIX_SUCCESS)
        status = records_device(sorter, queue, keys, 16, n, two, 2, b->buffer[ORDER], 4, 1, num_wait, wait_list,
                                &sorted, &enqueued);
    c.tried = enqueued;
    if (status == CLRADIX_SUCCESS)
        chain_follow(&c, sorted);
    radix_program *kernels = status == CLRADIX_SUCCESS ? program_kernels_take(sorter, p, &status) : NULL;
    cl_int err = status == CLRADIX_SUCCESS ? chain_copy(&c, keys, b->buffer[KEYS_COPY], keys_size) : CL_SUCCESS;
    if (status == CLRADIX_SUCCESS && err == CL_SUCCESS)
        err = chain_copy(&c, values, b->buffer[VALUES_COPY], values_size);
    const cl_uint value_words = (cl_uint)(value_size / 4), n32 = (cl_uint)n;
    if (status == CLRADIX_SUCCESS && err == CL_SUCCESS)
        err = set_args(kernels->records_gather_pairs, 7, ARG(b->buffer[ORDER]), ARG(b->buffer[KEYS_COPY]), ARG(keys),
                       ARG(b->buffer[VALUES_COPY]), ARG(values), ARG(value_words), ARG(n32));
    if (status == CLRADIX_SUCCESS && err == CL_SUCCESS)
        err = chain_kernel(&c, kernels->records_gather_pairs, groups_for(n, kernels->params.scan_wg),
                           kernels->params.scan_wg);
    if (status == CLRADIX_SUCCESS)
        status = status_from_cl(err);
    program_kernels_return(sorter, p, kernels);
    scratch_return(sorter, b, c.last);
    return chain_hand_over(&c, status, event);
}

clradix_status clradix_gather(clradix_sorter *sorter, cl_command_queue queue, cl_mem indices, size_t index_size,
                              cl_mem src, size_t src_n, cl_mem dst, size_t element_size, size_t n,
                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    if (!sorter || !queue || !indices || !src || !dst || element_size == 0 || (src_n == 0 && n > 0)
        || n > CLRADIX_MAX_N || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    size_t indices_size, src_size, dst_size;
    if (!size_mul(n, index_size, &indices_size) || !size_mul(src_n, element_size, &src_size)
        || !size_mul(n, element_size, &dst_size))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = check_queue(sorter, queue);
    if (status == CLRADIX_SUCCESS)
        status = check_wait_list(sorter, num_events_in_wait_list, event_wait_list);
    buffer_span index_span = { 0 }, src_span = { 0 }, dst_span = { 0 };
    if (status == CLRADIX_SUCCESS)
        status = check_buffer(sorter, indices, indices_size, 0, &index_span);
    if (status == CLRADIX_SUCCESS)
        status = check_buffer(sorter, src, src_size, 0, &src_span);
    if (status == CLRADIX_SUCCESS)
        status = check_buffer(sorter, dst, dst_size, 1, &dst_span);
    if (status == CLRADIX_SUCCESS
        && (overlap(&dst_span, dst_size, &src_span, src_size)
            || overlap(&dst_span, dst_size, &index_span, indices_size)))
        status = CLRADIX_ERROR_INVALID_BUFFER;
    radix_program *p = NULL;
    if (status == CLRADIX_SUCCESS && n > 0)
        status = records_program(sorter, &p);
    if (status != CLRADIX_SUCCESS)
        return status;
    chain c = { queue, num_events_in_wait_list, event_wait_list, NULL, 0 };
    if (n > 0) {
        radix_program *kernels = program_kernels_take(sorter, p, &status);
        if (status == CLRADIX_SUCCESS)
            status = status_from_cl(
                enqueue_gather(&c, kernels, indices, (cl_uint)index_size, src, src_n, dst, element_size, n));
        program_kernels_return(sorter, p, kernels);
    }
    return chain_hand_over(&c, status, event);
}

/* ---------------------------------------------------------------------------------
 * Host arrays
 * ------------------------------------------------------------------------------ */

static size_t index_load(const void *indices, size_t index_size, size_t i)
{
    if (index_size == 4)
        return ((const uint32_t *)indices)[i];
    return (size_t)((const uint64_t *)indices)[i];
}

static void index_store(void *indices, size_t index_size, size_t i, size_t value)
{
    if (index_size == 4)
        ((uint32_t *)indices)[i] = (uint32_t)value;
    else
        ((uint64_t *)indices)[i] = value;
}

/* dst[i] = src[min(indices[i], src_n - 1)] on the host: records moved by their order, and
   gathers the device cannot take at once. */
static void gather_on_host(const void *indices, size_t index_size, const unsigned char *src, size_t src_n,
                           unsigned char *dst, size_t element_size, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        size_t from = index_load(indices, index_size, i);
        from = from < src_n ? from : src_n - 1;
        memcpy(dst + i * element_size, src + from * element_size, element_size);
    }
}

/* Word w of the composite key of each record order[i] into words. */
static void make_words(const record_plan *plan, unsigned w, const unsigned char *records, size_t record_size,
                       const void *order, size_t index_size, size_t n, void *words)
{
    unsigned count = 0, field[PLAN_FIELDS], right[PLAN_FIELDS], left[PLAN_FIELDS];
    for (unsigned f = 0; f < plan->num_fields; ++f)
        if (field_part(plan, f, w, &right[count], &left[count]))
            field[count++] = f;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *record = records + index_load(order, index_size, i) * record_size;
        uint64_t word = 0;
        for (unsigned j = 0; j < count; ++j) {
            const unsigned f = field[j];
            const key_transform *t = &plan->transform[f];
            word |= key_image(key_load(record + plan->offset[f], t->width / 8, 0), t) >> right[j] << left[j];
        }
        if (plan->word_bytes == 4)
            ((uint32_t *)words)[i] = (uint32_t)word;
        else
            ((uint64_t *)words)[i] = word;
    }
}

/* The stable order of the records into order (index_size bytes each), on the host's words. */
static clradix_status order_records_host(clradix_sorter *sorter, cl_command_queue queue, const record_plan *plan,
                                         const unsigned char *records, size_t record_size, size_t n, void *order,
                                         size_t index_size)
{
    void *words = malloc(n * plan->word_bytes);
    if (!words)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    for (size_t i = 0; i < n; ++i)
        index_store(order, index_size, i, i);
    const clradix_key_type type = plan->word_bytes == 4 ? CLRADIX_U32 : CLRADIX_U64;
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned w = 0; w < plan->words && status == CLRADIX_SUCCESS; ++w) {
        make_words(plan, w, records, record_size, order, index_size, n, words);
        const clradix_options options = { word_first_bit(plan, w), word_end_bit(plan), 0 };
        status = clradix_sort_pairs_host(sorter, queue, type, words, order, index_size, n, &options);
    }
    free(words);
    return status;
}

/* The host records sorted by the device-buffer call in buffers over them (over the arrays
   themselves where the device works in the host's memory, else copies), which the device
   takes at once; *tried: whether a command was enqueued (else the arrays are untouched). */
static clradix_status records_host_in_core(clradix_sorter *sorter, cl_command_queue queue, void *records,
                                           size_t record_size, size_t n, const clradix_key_field *fields,
                                           unsigned num_fields, void *indices, size_t index_size, int argsort,
                                           int *tried)
{
    *tried = 0;
    const size_t records_size = n * record_size, indices_size = argsort ? n * index_size : 0;
    if (n > CLRADIX_MAX_N || records_size > sorter->limits.max_alloc || indices_size > sorter->limits.max_alloc)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    const int unified = sorter->limits.host_unified;
    const cl_command_queue callers_queue = queue;
    clradix_status status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    if (status != CLRADIX_SUCCESS)
        return status;
    host_memory_admit(sorter, records_size + indices_size);
    cl_int err = CL_SUCCESS;
    const cl_mem_flags record_flags = (unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR)
                                    | (argsort ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE);
    const cl_mem record_buffer = sorter_buffer(sorter, record_flags, records_size, records, &err);
    const cl_mem index_buffer = argsort && err == CL_SUCCESS
                                  ? sorter_buffer(sorter, CL_MEM_READ_WRITE | (unified ? CL_MEM_USE_HOST_PTR : 0),
                                                  indices_size, unified ? indices : NULL, &err)
                                  : NULL;
    cl_event sorted = NULL;
    status = status_from_cl(err);
    if (status == CLRADIX_SUCCESS)
        status = records_device(sorter, queue, record_buffer, record_size, n, fields, num_fields, index_buffer,
                                index_size, argsort, 0, NULL, &sorted, tried);
    /* the result back in the host's array: mapped (the same memory) or read */
    const cl_mem written = argsort ? index_buffer : record_buffer;
    void *host = argsort ? indices : records;
    const size_t written_size = argsort ? indices_size : records_size;
    if (status == CLRADIX_SUCCESS && unified) {
        void *mapped = clEnqueueMapBuffer(queue, written, CL_TRUE, CL_MAP_READ, 0, written_size, 1, &sorted, NULL, &err);
        if (err == CL_SUCCESS)
            err = clEnqueueUnmapMemObject(queue, written, mapped, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clFinish(queue);
        status = status_from_cl(err);
    } else if (status == CLRADIX_SUCCESS) {
        status = status_from_cl(clEnqueueReadBuffer(queue, written, CL_TRUE, 0, written_size, host, 1, &sorted, NULL));
    }
    if (status != CLRADIX_SUCCESS)
        clFinish(queue);  /* nothing of this call runs once it has returned */
    if (sorted)
        clReleaseEvent(sorted);
    sorter_buffer_release(sorter, record_buffer, records_size);
    sorter_buffer_release(sorter, index_buffer, indices_size);
    host_memory_done(sorter);
    if (!callers_queue)
        host_queue_return(sorter, queue);
    return status;
}

static clradix_status records_host(clradix_sorter *sorter, cl_command_queue queue, void *records, size_t record_size,
                                   size_t n, const clradix_key_field *fields, unsigned num_fields, void *indices,
                                   size_t index_size, int argsort)
{
    if (!sorter || !records || (argsort && !indices))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    record_plan plan;
    clradix_status status = plan_records(fields, num_fields, record_size, &plan);
    if (status == CLRADIX_SUCCESS && argsort)
        status = check_index_size(index_size);
    if (!argsort)
        index_size = n > CLRADIX_MAX_N ? 8 : 4;
    size_t records_size = 0, order_size = 0, words_size = 0;
    if (status == CLRADIX_SUCCESS
        && (!size_mul(n, record_size, &records_size) || !size_mul(n, index_size, &order_size)
            || !size_mul(n, plan.word_bytes, &words_size) || (index_size == 4 && n > CLRADIX_MAX_N)))
        status = CLRADIX_ERROR_INVALID_ARGUMENT;
    if (status == CLRADIX_SUCCESS && queue)
        status = check_queue(sorter, queue);
    if (status == CLRADIX_SUCCESS && !sorter->limits.host_byte_order)
        status = CLRADIX_ERROR_UNSUPPORTED;
    if (status != CLRADIX_SUCCESS || n == 0)
        return status;
    sort_request as_keys;
    if (request_as_keys(sorter, &plan, record_size, n, index_size, argsort, &as_keys))
        return host_sort(sorter, queue, &as_keys, records, argsort ? indices : NULL);
    if (sorter->limits.int64 && !sorter->limits.loop_budget) {  /* on the device */
        int tried;
        status = records_host_in_core(sorter, queue, records, record_size, n, fields, num_fields, indices, index_size,
                                      argsort, &tried);
        if (status != CLRADIX_ERROR_OUT_OF_RESOURCES || tried)
            return status;
    }

    void *order = malloc(order_size);
    unsigned char *copy = argsort ? NULL : malloc(records_size);
    if (!order || (!argsort && !copy)) {
        free(order);
        free(copy);
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    status = order_records_host(sorter, queue, &plan, records, record_size, n, order, index_size);
    if (status == CLRADIX_SUCCESS && argsort) {
        memcpy(indices, order, order_size);
    } else if (status == CLRADIX_SUCCESS) {
        gather_on_host(order, index_size, records, n, copy, record_size, n);
        memcpy(records, copy, records_size);
    }
    free(order);
    free(copy);
    return status;
}

clradix_status wide_keys_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, void *keys,
                              void *values, size_t value_size, int argsort, size_t n, const clradix_options *options)
{
    if (!sorter || !keys || (value_size && !values))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_key_field two[2];
    clradix_status status = wide_key_fields(type, options, two);
    if (status != CLRADIX_SUCCESS)
        return status;
    if (!values || argsort)
        return records_host(sorter, queue, keys, 16, n, two, 2, values, value_size, argsort);

    /* Pairs: the keys' argsort, then keys and values gathered from copies on the host. */
    const size_t index_size = n > CLRADIX_MAX_N ? 8 : 4;
    size_t keys_size, values_size, order_size;
    if (!size_mul(n, 16, &keys_size) || !size_mul(n, value_size, &values_size) || !size_mul(n, index_size, &order_size))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    void *order = malloc(order_size ? order_size : 1), *keys_copy = malloc(keys_size ? keys_size : 1);
    void *values_copy = malloc(values_size ? values_size : 1);
    status = order && keys_copy && values_copy ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (status == CLRADIX_SUCCESS)
        status = records_host(sorter, queue, keys, 16, n, two, 2, order, index_size, 1);
    if (status == CLRADIX_SUCCESS && n > 0) {
        memcpy(keys_copy, keys, keys_size);
        memcpy(values_copy, values, values_size);
        gather_on_host(order, index_size, keys_copy, n, keys, 16, n);
        gather_on_host(order, index_size, values_copy, n, values, value_size, n);
    }
    free(order);
    free(keys_copy);
    free(values_copy);
    return status;
}

clradix_status clradix_sort_records_host(clradix_sorter *sorter, cl_command_queue queue, void *records,
                                         size_t record_size, size_t n, const clradix_key_field *fields,
                                         unsigned num_fields)
{
    return records_host(sorter, queue, records, record_size, n, fields, num_fields, NULL, 0, 0);
}

clradix_status clradix_argsort_records_host(clradix_sorter *sorter, cl_command_queue queue, const void *records,
                                            size_t record_size, size_t n, const clradix_key_field *fields,
                                            unsigned num_fields, void *indices, size_t index_size)
{
    return records_host(sorter, queue, (void *)records, record_size, n, fields, num_fields, indices, index_size, 1);
}

clradix_status clradix_gather_host(clradix_sorter *sorter, cl_command_queue queue, const void *indices,
                                   size_t index_size, const void *src, size_t src_n, void *dst, size_t element_size,
                                   size_t n)
{
    if (!sorter || !indices || !src || !dst || element_size == 0 || (src_n == 0 && n > 0)
        || check_index_size(index_size) != CLRADIX_SUCCESS)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    size_t indices_size, src_size, dst_size;
    if (!size_mul(n, index_size, &indices_size) || !size_mul(src_n, element_size, &src_size)
        || !size_mul(n, element_size, &dst_size))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    clradix_status status = queue ? check_queue(sorter, queue) : CLRADIX_SUCCESS;
    if (status == CLRADIX_SUCCESS && !sorter->limits.host_byte_order)
        status = CLRADIX_ERROR_UNSUPPORTED;
    if (status != CLRADIX_SUCCESS || n == 0)
        return status;
    const cl_ulong held = (cl_ulong)indices_size + src_size + dst_size;
    radix_program *p = NULL;
    if (n > CLRADIX_MAX_N || !sorter->limits.int64 || held > device_budget(sorter)
        || indices_size > sorter->limits.max_alloc || src_size > sorter->limits.max_alloc
        || dst_size > sorter->limits.max_alloc || records_program(sorter, &p) != CLRADIX_SUCCESS) {
        gather_on_host(indices, index_size, src, src_n, dst, element_size, n);
        return CLRADIX_SUCCESS;
    }

    const cl_command_queue callers_queue = queue;
    status = queue ? CLRADIX_SUCCESS : host_queue_acquire(sorter, &queue);
    if (status != CLRADIX_SUCCESS)
        return status;
    host_memory_admit(sorter, (size_t)held);
    const cl_mem_flags in_flags = CL_MEM_READ_ONLY
                                | (sorter->limits.host_unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR);
    call_buffers b = { { 0 }, { 0 } };
    cl_int err = CL_SUCCESS;
    const cl_mem index_buffer = call_buffer(sorter, &b, 0, in_flags, indices_size, (void *)indices, &err);
    const cl_mem src_buffer = call_buffer(sorter, &b, 1, in_flags, src_size, (void *)src, &err);
    const cl_mem dst_buffer = call_buffer(sorter, &b, 2, CL_MEM_READ_WRITE, dst_size, NULL, &err);
    status = status_from_cl(err);
    chain c = { queue, 0, NULL, NULL, 0 };
    if (status == CLRADIX_SUCCESS) {
        radix_program *kernels = program_kernels_take(sorter, p, &status);
        if (status == CLRADIX_SUCCESS)
            status = status_from_cl(enqueue_gather(&c, kernels, index_buffer, (cl_uint)index_size, src_buffer, src_n,
                                                   dst_buffer, element_size, n));
        program_kernels_return(sorter, p, kernels);
    }
    if (status == CLRADIX_SUCCESS)  /* dst only once everything ran */
        status = status_from_cl(clEnqueueReadBuffer(queue, dst_buffer, CL_TRUE, 0, dst_size, dst, 1, &c.last, NULL));
    if (status != CLRADIX_SUCCESS)
        clFinish(queue);  /* nothing of this call runs once it has returned */
    if (c.last)
        clReleaseEvent(c.last);
    call_buffers_release(sorter, &b);
    host_memory_done(sorter);
    if (!callers_queue)
        host_queue_return(sorter, queue);
    return status;
}
