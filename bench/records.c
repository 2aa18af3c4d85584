/*
 * clradix-bench --records SIZE:FIELDS: records of SIZE bytes whose key fields (types, most
 * significant first) lie one after another from byte 0, the rest random payload; sorted by
 * clradix_sort_records, next to what a user would do instead (argsort the composite key,
 * then gather the records) and to the plain sort of the composite's width.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

int parse_record_spec(const char *text, record_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    snprintf(spec->text, sizeof spec->text, "%s", text);
    char copy[sizeof spec->text];
    snprintf(copy, sizeof copy, "%s", text);
    char *colon = strchr(copy, ':');
    if (!colon)
        return 0;
    *colon = '\0';
    if (!parse_size(copy, &spec->record_size) || spec->record_size == 0)
        return 0;
    size_t offset = 0;
    for (char *item = strtok(colon + 1, ","); item; item = strtok(NULL, ",")) {
        clradix_key_type type;
        char *slash = strchr(item, '/');  /* TYPE/DIST: the field's own distribution */
        if (slash)
            *slash = '\0';
        const unsigned f = spec->num_fields;
        if (f == CLRADIX_MAX_FIELDS || !parse_type(item, &type) || (slash && !parse_dist(slash + 1, &spec->dist[f])))
            return 0;
        spec->own_dist[f] = slash != NULL;
        spec->fields[spec->num_fields++] = (clradix_key_field){ type, offset, 0 };
        spec->key_bits += 8 * type_bytes(type);
        offset += type_bytes(type);
    }
    return spec->num_fields > 0 && offset <= spec->record_size;
}

/* The composite key of a record: its fields' images one after another, as many as fit 64
   bits (past 64 bits, the plain sort's u64 keys). */
static uint64_t composite_of(const record_spec *spec, const unsigned char *record)
{
    uint64_t composite = 0;
    for (unsigned f = 0, bits = 0; f < spec->num_fields; ++f) {
        const unsigned bytes = type_bytes(spec->fields[f].type);
        if ((bits += 8 * bytes) > 64)
            break;
        uint64_t key = 0;
        memcpy(&key, record + spec->fields[f].offset, bytes);
        composite = (bytes == 8 ? 0 : composite << (8 * bytes)) | order_image(spec->fields[f].type, key);
    }
    return composite;
}

/* Whether a precedes b or equals it in the fields' order. */
static int in_order(const record_spec *spec, const unsigned char *a, const unsigned char *b)
{
    for (unsigned f = 0; f < spec->num_fields; ++f) {
        const clradix_key_field *field = &spec->fields[f];
        const unsigned bytes = type_bytes(field->type);
        uint64_t x = 0, y = 0;
        memcpy(&x, a + field->offset, bytes);
        memcpy(&y, b + field->offset, bytes);
        x = order_image(field->type, x);
        y = order_image(field->type, y);
        if (x != y)
            return x < y;
    }
    return 1;
}

static uint64_t record_hash(const unsigned char *record, size_t size)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ record[i]) * 0x100000001B3ull;
    return h;
}

/* Records sorted by the fields, and a permutation of the input (by a sum of hashes). */
static int verify_records(const record_spec *spec, const unsigned char *in, const unsigned char *out, size_t n,
                          char *why, size_t why_size)
{
    uint64_t sum_in = 0, sum_out = 0;
    for (size_t i = 0; i < n; ++i) {
        sum_in += record_hash(in + i * spec->record_size, spec->record_size);
        sum_out += record_hash(out + i * spec->record_size, spec->record_size);
        if (i > 0 && !in_order(spec, out + (i - 1) * spec->record_size, out + i * spec->record_size)) {
            snprintf(why, why_size, "records %zu and %zu out of order", i - 1, i);
            return 1;
        }
    }
    if (sum_in != sum_out) {
        snprintf(why, why_size, "the records are not those of the input");
        return 1;
    }
    return 0;
}

unsigned char *make_records(const record_spec *spec, bench_dist d, size_t n, uint64_t seed)
{
    unsigned char *records = malloc(n * spec->record_size), *keys = malloc(n * 8);
    if (!records || !keys) {
        free(records);
        free(keys);
        return NULL;
    }
    uint64_t state = seed;
    for (size_t i = 0; i < n * spec->record_size; ++i)
        records[i] = (unsigned char)bench_random(&state);
    for (unsigned f = 0; f < spec->num_fields; ++f) {
        const clradix_key_field *field = &spec->fields[f];
        const unsigned bytes = type_bytes(field->type);
        make_keys(field->type, spec->own_dist[f] ? spec->dist[f] : d, n, seed + 1 + f, keys);
        for (size_t i = 0; i < n; ++i)
            memcpy(records + i * spec->record_size + field->offset, keys + i * bytes, bytes);
    }
    free(keys);
    return records;
}

/* One timed call of a way (records, key+gather, plain) on the buffers. */
static clradix_status run_way(record_way way, const record_spec *spec, clradix_sorter *sorter, cl_command_queue queue,
                              cl_mem records, cl_mem keys, cl_mem indices, cl_mem out, size_t value_size, size_t n)
{
    const clradix_key_type composite = spec->key_bits <= 32 ? CLRADIX_U32 : CLRADIX_U64;
    clradix_status s;
    switch (way) {
    case RECORDS_SORT:
        s = clradix_sort_records(sorter, queue, records, spec->record_size, n, spec->fields, spec->num_fields, 0, NULL,
                                 NULL);
        break;
    case RECORDS_KEY_GATHER:
        s = clradix_argsort(sorter, queue, composite, keys, indices, 4, n, NULL, 0, NULL, NULL);
        if (s == CLRADIX_SUCCESS)
            s = clradix_gather(sorter, queue, indices, 4, records, n, out, spec->record_size, n, 0, NULL, NULL);
        break;
    default:
        s = value_size ? clradix_sort_pairs(sorter, queue, composite, keys, out, value_size, n, NULL, 0, NULL, NULL)
                       : clradix_sort_keys(sorter, queue, composite, keys, n, NULL, 0, NULL, NULL);
        break;
    }
    if (s == CLRADIX_SUCCESS && clFinish(queue) != CL_SUCCESS)
        s = CLRADIX_ERROR_OPENCL;
    return s;
}

/* The plain sort's values: the record when it is a value size of its own and larger than
   the key, else none (past 64 bits: u64 keys alone). */
size_t plain_value_size(const record_spec *spec)
{
    const size_t s = spec->record_size;
    return (s == 4 || s == 8 || s == 16) && 8 * s > spec->key_bits && spec->key_bits <= 64 ? s : 0;
}

int time_records(record_way way, const record_spec *spec, cl_context context, cl_command_queue queue,
                 clradix_sorter *sorter, const unsigned char *input, size_t n, int runs, double *times,
                 double *first_ms, char *why, size_t why_size)
{
    if (way == RECORDS_KEY_GATHER && spec->key_bits > 64) {
        snprintf(why, why_size, "a composite key past 64 bits");
        return -1;
    }
    const size_t bytes = n * spec->record_size, key_bytes = spec->key_bits <= 32 ? 4 : 8;
    const size_t value_size = plain_value_size(spec);
    void *composite = malloc(n * key_bytes);
    unsigned char *back = malloc(bytes);
    for (size_t i = 0; composite && i < n; ++i) {
        const uint64_t c = composite_of(spec, input + i * spec->record_size);
        if (key_bytes == 4)
            ((uint32_t *)composite)[i] = (uint32_t)c;
        else
            ((uint64_t *)composite)[i] = c;
    }
    cl_int err = composite && back ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    cl_mem records = err == CL_SUCCESS ? clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    cl_mem keys = err == CL_SUCCESS ? clCreateBuffer(context, CL_MEM_READ_WRITE, n * key_bytes, NULL, &err) : NULL;
    cl_mem indices = err == CL_SUCCESS ? clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4, NULL, &err) : NULL;
    cl_mem out = err == CL_SUCCESS ? clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    int verified = -1;
    clradix_status s = err == CL_SUCCESS ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES;
    for (int run = -1; run < runs && s == CLRADIX_SUCCESS; ++run) {
        err = clEnqueueWriteBuffer(queue, way == RECORDS_PLAIN ? out : records, CL_TRUE, 0, bytes, input, 0, NULL,
                                   NULL);
        if (err == CL_SUCCESS && way != RECORDS_SORT)
            err = clEnqueueWriteBuffer(queue, keys, CL_TRUE, 0, n * key_bytes, composite, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            s = CLRADIX_ERROR_OPENCL;
            break;
        }
        const double t0 = seconds();
        s = run_way(way, spec, sorter, queue, records, keys, indices, out, value_size, n);
        const double t = seconds() - t0;
        if (run < 0)
            *first_ms = t * 1e3;
        else
            times[run] = t;
    }
    if (s != CLRADIX_SUCCESS) {
        snprintf(why, why_size, "%s", clradix_status_string(s));
    } else if (way == RECORDS_PLAIN) {  /* the composite keys in order */
        verified = clEnqueueReadBuffer(queue, keys, CL_TRUE, 0, n * key_bytes, composite, 0, NULL, NULL) == CL_SUCCESS;
        for (size_t i = 1; verified && i < n; ++i)
            verified = key_bytes == 4 ? ((uint32_t *)composite)[i - 1] <= ((uint32_t *)composite)[i]
                                      : ((uint64_t *)composite)[i - 1] <= ((uint64_t *)composite)[i];
        if (!verified)
            snprintf(why, why_size, "keys out of order");
    } else {
        verified = clEnqueueReadBuffer(queue, way == RECORDS_SORT ? records : out, CL_TRUE, 0, bytes, back, 0, NULL,
                                       NULL) == CL_SUCCESS
                && !verify_records(spec, input, back, n, why, why_size);
    }
    const cl_mem buffers[] = { records, keys, indices, out };
    for (int i = 0; i < 4; ++i)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    free(composite);
    free(back);
    return s == CLRADIX_SUCCESS ? verified : 0;
}
