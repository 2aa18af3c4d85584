/*
 * Builds the kernels of one program variant (key width x value size) for the sorter's
 * device, once, from the sources embedded in the library (or from CLRADIX_KERNEL_DIR
 * during development), with parameters that fit the device's local memory and the
 * kernels' own work-group limits.
 */
#include "internal.h"
#include "kernel_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Program sources, concatenated in this order. */
static const char *const source_files[] = { "common.cl", "histogram.cl", "plan.cl", "scan.cl",
                                            "scatter.cl", "small.cl", "iota.cl" };
enum { SOURCE_COUNT = sizeof source_files / sizeof source_files[0] };

static _Thread_local char *thread_build_log;

void build_log_set_thread(const char *log)
{
    free(thread_build_log);
    thread_build_log = log ? strdup(log) : NULL;
}

const char *clradix_build_log(const clradix_sorter *sorter)
{
    const char *log = sorter ? sorter->build_log : thread_build_log;
    return log ? log : "";
}

static void set_log(clradix_sorter *sorter, char *log)
{
    free(sorter->build_log);
    sorter->build_log = log;
}

static char *read_file(const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (text = malloc((size_t)size + 1)) != NULL) {
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
            free(text);
            text = NULL;
        } else {
            text[size] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* Fills texts with the sources (owned[i] set where texts[i] must be freed). */
static clradix_status load_sources(clradix_sorter *sorter, const char *texts[SOURCE_COUNT], int owned[SOURCE_COUNT])
{
    const char *dir = getenv("CLRADIX_KERNEL_DIR");
    for (int i = 0; i < SOURCE_COUNT; ++i) {
        owned[i] = 0;
        texts[i] = NULL;
    }
    for (int i = 0; i < SOURCE_COUNT; ++i) {
        if (dir && *dir) {
            texts[i] = read_file(dir, source_files[i]);
            owned[i] = 1;
            if (!texts[i]) {
                char *log = malloc(4200);
                if (log)
                    snprintf(log, 4200, "clradix: cannot read %s/%s (CLRADIX_KERNEL_DIR)", dir, source_files[i]);
                set_log(sorter, log);
                return CLRADIX_ERROR_BUILD_FAILED;
            }
        } else {
            for (const clradix_kernel_source *s = clradix_kernel_sources; s->name; ++s)
                if (!strcmp(s->name, source_files[i]))
                    texts[i] = s->text;
            if (!texts[i]) {  /* a build of the library that forgot to embed it */
                char *log = malloc(200);
                if (log)
                    snprintf(log, 200, "clradix: %s is not embedded in this library", source_files[i]);
                set_log(sorter, log);
                return CLRADIX_ERROR_BUILD_FAILED;
            }
        }
    }
    return CLRADIX_SUCCESS;
}

static char *get_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
        return NULL;
    char *log = malloc(size + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
        log[0] = '\0';
    if (log)
        log[size] = '\0';
    return log;
}

void program_release(radix_program *p)
{
    cl_kernel *kernels[] = { &p->histogram_all, &p->histogram, &p->plan, &p->gather, &p->scan,
                             &p->scan_add, &p->scatter, &p->copy_back, &p->sort_small, &p->iota };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
        if (*kernels[i]) {
            clReleaseKernel(*kernels[i]);
            *kernels[i] = NULL;
        }
    if (p->program) {
        clReleaseProgram(p->program);
        p->program = NULL;
    }
}

/* Puts the program's binary for its one device into the disk cache. */
static void store_binary(cl_program program, const uint64_t key[2])
{
    size_t length = 0;
    if (!cache_enabled()
        || clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof length, &length, NULL) != CL_SUCCESS || length == 0)
        return;
    unsigned char *binary = malloc(length);
    unsigned char *binaries[] = { binary };
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL) == CL_SUCCESS)
        cache_store(key, binary, length);
    free(binary);
}

/* Builds p with p->params. Where a kernel cannot run that shape (its own work-group limit
   or local memory), shrinks p->params and sets *retry. */
static clradix_status build_once(clradix_sorter *sorter, radix_program *p, const char *const texts[SOURCE_COUNT],
                                 unsigned key_bytes, unsigned value_bytes, int *retry)
{
    const radix_params *q = &p->params;
    char options[512];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -D KEY_BITS=%u -D VALUE_SIZE=%u -D RADIX_BITS=%u -D WG=%u -D KPT=%u -D RANK_BITS=%u"
             " -D HIST_COPIES=%u -D FUSED=%u -D MAX_GROUPS=%u -D SMALL_N=%u -D SCAN_WG=%u",
             key_bytes * 8, value_bytes, q->radix_bits, q->wg, q->kpt, q->rank_bits, q->hist_copies, q->fused,
             q->max_groups, q->small_n, q->scan_wg);
    *retry = 0;

    cl_int err = CL_SUCCESS;
    uint64_t key[2];
    cache_key(sorter->device, texts, SOURCE_COUNT, options, key);
    size_t length = 0;
    unsigned char *binary = cache_load(key, &length);
    if (binary) {  /* a compiled program from an earlier process; any trouble: compile instead */
        const unsigned char *binaries[] = { binary };
        cl_int binary_status = CL_SUCCESS;
        p->program = clCreateProgramWithBinary(sorter->context, 1, &sorter->device, &length, binaries, &binary_status,
                                               &err);
        free(binary);
        if (err != CL_SUCCESS || binary_status != CL_SUCCESS
            || clBuildProgram(p->program, 1, &sorter->device, options, NULL, NULL) != CL_SUCCESS) {
            if (p->program)
                clReleaseProgram(p->program);
            p->program = NULL;
        }
    }
    if (!p->program) {
        p->program = clCreateProgramWithSource(sorter->context, SOURCE_COUNT, (const char **)texts, NULL, &err);
        if (err != CL_SUCCESS)
            return status_from_cl(err);
        err = clBuildProgram(p->program, 1, &sorter->device, options, NULL, NULL);
        if (err != CL_SUCCESS) {
            set_log(sorter, get_build_log(p->program, sorter->device));
            return err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ? CLRADIX_ERROR_BUILD_FAILED
                                                                                      : status_from_cl(err);
        }
        store_binary(p->program, key);
    }
    /* scan: 1 when the kernel runs in groups of SCAN_WG rather than WG. */
    struct { cl_kernel *kernel; const char *name; int scan, wanted; } kernels[] = {
        { &p->histogram_all, "radix_histogram_all", 0, 1 },
        { &p->histogram, "radix_histogram", 0, 1 },
        { &p->scatter, "radix_scatter", 0, 1 },
        { &p->sort_small, "radix_sort_small", 0, q->small_n > 0 },
        { &p->plan, "radix_plan", 1, 1 },
        { &p->gather, "radix_gather", 1, 1 },
        { &p->scan, "radix_scan", 1, 1 },
        { &p->scan_add, "radix_scan_add", 1, 1 },
        { &p->copy_back, "radix_copy_back", 1, 1 },
        { &p->iota, "radix_iota", 1, value_bytes == 4 || value_bytes == 8 },
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
        if (!kernels[i].wanted)
            continue;
        *kernels[i].kernel = clCreateKernel(p->program, kernels[i].name, &err);
        if (err != CL_SUCCESS)
            return status_from_cl(err);
        size_t max_wg = 0;
        cl_ulong local = 0;
        if (clGetKernelWorkGroupInfo(*kernels[i].kernel, sorter->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg,
                                     &max_wg, NULL) != CL_SUCCESS
            || clGetKernelWorkGroupInfo(*kernels[i].kernel, sorter->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                        &local, NULL) != CL_SUCCESS)
            return CLRADIX_ERROR_OPENCL;
        if (max_wg < (kernels[i].scan ? q->scan_wg : q->wg) || local > sorter->limits.local_mem) {
            *retry = tuning_halve_wg(&p->params, kernels[i].scan);
            return CLRADIX_ERROR_UNSUPPORTED;
        }
    }
    return CLRADIX_SUCCESS;
}

clradix_status program_get(clradix_sorter *sorter, unsigned key_bytes, unsigned value_bytes, radix_program **out)
{
    const unsigned key_class = key_bytes == 8;
    const unsigned value_class = value_bytes == 0 ? 0 : value_bytes == 4 ? 1 : value_bytes == 8 ? 2 : 3;
    radix_program *p = &sorter->programs[key_class][value_class];
    if (p->built == 1) {
        *out = p;
        return CLRADIX_SUCCESS;
    }
    if (p->built == -1)
        return CLRADIX_ERROR_BUILD_FAILED;

    const char *texts[SOURCE_COUNT];
    int owned[SOURCE_COUNT];
    clradix_status status = load_sources(sorter, texts, owned);
    p->params = sorter->params;
    for (int attempt = 0; status == CLRADIX_SUCCESS; ++attempt) {
        if (!tuning_fit(&p->params, sorter->limits.local_mem, key_bytes, value_bytes)) {
            status = CLRADIX_ERROR_UNSUPPORTED;
            break;
        }
        int retry = 0;
        status = build_once(sorter, p, texts, key_bytes, value_bytes, &retry);
        if (!retry || attempt == 32)
            break;
        program_release(p);
        status = CLRADIX_SUCCESS;
    }
    for (int i = 0; i < SOURCE_COUNT; ++i)
        if (owned[i])
            free((char *)texts[i]);
    if (status != CLRADIX_SUCCESS) {
        program_release(p);
        p->built = status == CLRADIX_ERROR_BUILD_FAILED ? -1 : 0;
        return status;
    }
    p->built = 1;
    *out = p;
    return CLRADIX_SUCCESS;
}
