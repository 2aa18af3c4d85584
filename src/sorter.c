/*
 * The sorter: its device's limits, its context, locks and programs, created and released;
 * what the application asks of it (device, tuning, memory limit).
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static size_t smaller(size_t a, size_t b)
{
    return a < b ? a : b;
}

static int host_is_little_endian(void)
{
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

static clradix_status query_limits(cl_device_id device, device_limits *limits)
{
    size_t max_wg = 0, *item_sizes = NULL;
    cl_uint dimensions = 0;
    cl_bool little_endian = CL_TRUE, unified = CL_FALSE;
    clradix_status status = CLRADIX_ERROR_OPENCL;
    if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof limits->type, &limits->type, NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof limits->compute_units, &limits->compute_units,
                           NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL) != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dimensions, &dimensions, NULL)
               != CL_SUCCESS
        || dimensions < 1
        || clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof limits->local_mem, &limits->local_mem, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof limits->max_alloc, &limits->max_alloc, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof limits->global_mem, &limits->global_mem, NULL)
               != CL_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_ENDIAN_LITTLE, sizeof little_endian, &little_endian, NULL) != CL_SUCCESS)
        return status;
    /* As many sizes as the device has dimensions, which may be more than three. */
    item_sizes = calloc(dimensions, sizeof *item_sizes);
    if (!item_sizes)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof *item_sizes, item_sizes, NULL)
        == CL_SUCCESS) {
        limits->max_wg = smaller(max_wg, item_sizes[0]);
        status = CLRADIX_SUCCESS;
    }
    free(item_sizes);
    if (status != CLRADIX_SUCCESS)
        return status;
    limits->host_byte_order = !little_endian == !host_is_little_endian();
    if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) == CL_SUCCESS)
        limits->host_unified = unified == CL_TRUE;  /* an optional query: a copy otherwise */
#ifdef CLRADIX_TESTING
    size_t local_mem = (size_t)limits->local_mem;
    testing_device_limits(&local_mem, &limits->max_wg, &limits->max_alloc, &limits->global_mem);
    limits->local_mem = local_mem;
#endif

    char profile[64] = "", *extensions = NULL;
    size_t extensions_size = 0;
    clGetDeviceInfo(device, CL_DEVICE_PROFILE, sizeof profile - 1, profile, NULL);
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &extensions_size) == CL_SUCCESS
        && (extensions = calloc(1, extensions_size + 1)) != NULL)
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, extensions_size, extensions, NULL);
    const int full_profile = !strcmp(profile, "FULL_PROFILE");
    limits->int64_extension = !full_profile && extensions && strstr(extensions, "cles_khr_int64");
    limits->int64 = full_profile || limits->int64_extension;
    free(extensions);
    /* Intel's CPU runtime crashes in functions with barriers that it keeps out of line
       (cl/common.cl, BARRIER_FUNCTION); forcing them inline elsewhere breaks POCL and oclgrind. */
    char platform_name[256];
    device_platform_name(device, platform_name, sizeof platform_name);
    limits->inline_barrier_functions = (limits->type & CL_DEVICE_TYPE_CPU) && strstr(platform_name, "Intel") != NULL;
    char device_name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
    limits->runs_in_caller = strstr(platform_name, "Portable Computing Language") != NULL &&
                             (!strncmp(device_name, "basic", 5) || !strncmp(device_name, "cpu-minimal", 11));
    /* Mesa's rusticl (22.3) fails an unmap with CL_INVALID_VALUE now and then when threads
       map and unmap buffers of host memory on one queue (tests/mesa-map-repro.c). */
    limits->no_host_maps = strstr(platform_name, "rusticl") != NULL;
    if (limits->compute_units == 0)
        limits->compute_units = 1;
    return CLRADIX_SUCCESS;
}

static int context_has_device(cl_context context, cl_device_id device)
{
    size_t bytes = 0;
    if (clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &bytes) != CL_SUCCESS || bytes == 0)
        return 0;
    cl_device_id *devices = malloc(bytes);
    int found = 0;
    if (devices && clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof *devices; ++i)
            found |= devices[i] == device;
    free(devices);
    return found;
}

void clradix_sorter_release(clradix_sorter *sorter)
{
    if (!sorter)
        return;
    for (int kind = 0; kind < PROGRAM_KINDS; ++kind)
        for (int k = 0; k < KEY_CLASSES; ++k)
            for (int v = 0; v < VALUE_CLASSES; ++v)
                program_release(&sorter->programs[kind][k][v]);
    for (unsigned i = 0; i < sorter->idle_count; ++i)
        clReleaseCommandQueue(sorter->idle_queues[i]);
    for (unsigned i = 0; i < sorter->scratch_count; ++i)
        scratch_free(sorter, sorter->scratch_pool[i]);
    if (sorter->context)
        clReleaseContext(sorter->context);
    if (sorter->device)
        clReleaseDevice(sorter->device);
    build_logs_free(sorter);
    pthread_cond_destroy(&sorter->memory_freed);
    pthread_cond_destroy(&sorter->program_built);
    pthread_mutex_destroy(&sorter->memory_lock);
    pthread_mutex_destroy(&sorter->enqueue_lock);
    pthread_mutex_destroy(&sorter->lock);
    free(sorter);
}

/* The sorter's locks and conditions; 0, with none of them left, on failure. */
static int sync_init(clradix_sorter *sorter)
{
    pthread_mutexattr_t recursive;
    if (pthread_mutexattr_init(&recursive) != 0)
        return 0;
    int made = pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE) == 0 &&
               pthread_mutex_init(&sorter->enqueue_lock, &recursive) == 0;
    pthread_mutexattr_destroy(&recursive);
    if (!made)
        return 0;
    if (pthread_mutex_init(&sorter->lock, NULL) == 0) {
        if (pthread_mutex_init(&sorter->memory_lock, NULL) == 0) {
            if (pthread_cond_init(&sorter->program_built, NULL) == 0) {
                if (pthread_cond_init(&sorter->memory_freed, NULL) == 0)
                    return 1;
                pthread_cond_destroy(&sorter->program_built);
            }
            pthread_mutex_destroy(&sorter->memory_lock);
        }
        pthread_mutex_destroy(&sorter->lock);
    }
    pthread_mutex_destroy(&sorter->enqueue_lock);
    return 0;
}

clradix_status clradix_sorter_create_tuned(cl_context context, cl_device_id device, const clradix_tuning *tuning,
                                           clradix_sorter **out)
{
    if (!out || (!context) != (!device))
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    build_log_set_thread(NULL);

    clradix_status status = CLRADIX_SUCCESS;
    if (!device) {
        status = clradix_device_find(NULL, &device);
        if (status != CLRADIX_SUCCESS)
            return status;
        cl_platform_id platform;
        cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
        cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0 };
        if (err == CL_SUCCESS)
            context = clCreateContext(props, 1, &device, NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return status_from_cl(err);
    } else {
        if (!context_has_device(context, device))
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        if (clRetainContext(context) != CL_SUCCESS)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
    }

    clradix_sorter *sorter = calloc(1, sizeof *sorter);
    if (!sorter) {
        clReleaseContext(context);
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    sorter->context = context;
    if (!sync_init(sorter)) {
        clReleaseContext(context);
        free(sorter);
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    if (clRetainDevice(device) == CL_SUCCESS)
        sorter->device = device;
    else
        status = CLRADIX_ERROR_OPENCL;

    if (status == CLRADIX_SUCCESS)
        status = query_limits(device, &sorter->limits);
    if (status == CLRADIX_SUCCESS)
        status = device_loop_budget(context, device, &sorter->limits.loop_budget);
    if (status == CLRADIX_SUCCESS)
        status = tuning_select(&sorter->limits, device, tuning, &sorter->params);
    if (status == CLRADIX_SUCCESS && !tuning_supported(&sorter->limits, &sorter->params))
        status = CLRADIX_ERROR_UNSUPPORTED;  /* too little local memory: now rather than at a later call */
    radix_program *program;
    if (status == CLRADIX_SUCCESS)
        status = program_get(sorter, PROGRAM_LSD, (key_variant){ .bytes = 4 }, 0, &program);  /* the common variant; a broken device fails here */
    if (status == CLRADIX_SUCCESS && sorter->params.strategy == STRATEGY_PARTITION)
        status = program_get(sorter, PROGRAM_SEGMENTS, (key_variant){ .bytes = 4 }, 0, &program);  /* what its flat sorts use */
    if (status != CLRADIX_SUCCESS) {
        build_log_set_thread(sorter);
        clradix_sorter_release(sorter);
        return status;
    }
    *out = sorter;
    return CLRADIX_SUCCESS;
}

clradix_status clradix_sorter_create(cl_context context, cl_device_id device, clradix_sorter **sorter)
{
    return clradix_sorter_create_tuned(context, device, NULL, sorter);
}

cl_context clradix_sorter_context(const clradix_sorter *sorter)
{
    return sorter ? sorter->context : NULL;
}

cl_device_id clradix_sorter_device(const clradix_sorter *sorter)
{
    return sorter ? sorter->device : NULL;
}

clradix_status clradix_sorter_tuning(const clradix_sorter *sorter, clradix_tuning *tuning)
{
    if (!sorter || !tuning)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    tuning_report(&sorter->programs[PROGRAM_LSD][0][0].params, tuning);  /* built at creation */
    return CLRADIX_SUCCESS;
}

clradix_status clradix_sorter_set_memory_limit(clradix_sorter *sorter, size_t bytes)
{
    if (!sorter)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    atomic_store(&sorter->memory_limit, bytes);
    memory_make_room(sorter, 0);  /* what the pool keeps of earlier sorts fits the limit too */
    return CLRADIX_SUCCESS;
}
