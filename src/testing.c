/* The wrappers of testing.h: compiled into the test build of the library only. */
#include "testing.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_ulong calls, fail_at;  /* fail_at 0: nothing fails */
static const char *_Atomic counted_function;  /* NULL: every wrapped call counts */
static size_t forced_local_mem, forced_max_wg;
static cl_ulong forced_max_alloc, forced_global_mem;
static clradix_testing_traits traits;
static atomic_int builds_held;
static atomic_uint builds_waiting;
static atomic_size_t size_max, max_keys_in_core;

/* The library's buffers alive and their bytes, for clradix_testing_device_bytes. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct live_buffer { cl_mem buffer; size_t bytes; } *live;
static size_t live_count, live_capacity, live_bytes, peak_bytes;
static cl_int release_counted(cl_mem buffer);

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static int releases_held;
static cl_mem *held;
static size_t held_count, held_capacity;

void clradix_testing_fail_at(unsigned long n)
{
    atomic_store(&calls, 0);
    atomic_store(&fail_at, n);
}

void clradix_testing_count_only(const char *function)
{
    atomic_store(&counted_function, function);
}

unsigned long clradix_testing_calls(void)
{
    return atomic_load(&calls);
}

void clradix_testing_limits(size_t local_mem, size_t max_work_group, cl_ulong max_alloc, cl_ulong global_mem)
{
    forced_local_mem = local_mem;
    forced_max_wg = max_work_group;
    forced_max_alloc = max_alloc;
    forced_global_mem = global_mem;
}

void clradix_testing_set_traits(const clradix_testing_traits *t)
{
    static const clradix_testing_traits none = { 0 };
    traits = t ? *t : none;
}

void clradix_testing_hold_builds(int hold)
{
    atomic_store(&builds_held, hold);
}

unsigned clradix_testing_builds_waiting(void)
{
    return atomic_load(&builds_waiting);
}

void clradix_testing_hold_releases(int hold)
{
    pthread_mutex_lock(&held_lock);
    releases_held = hold;
    cl_mem *release = hold ? NULL : held;
    const size_t count = held_count;
    if (!hold) {
        held = NULL;
        held_count = held_capacity = 0;
    }
    pthread_mutex_unlock(&held_lock);
    for (size_t i = 0; release && i < count; ++i)
        release_counted(release[i]);
    free(release);
}

void clradix_testing_size_max(size_t max)
{
    atomic_store(&size_max, max);
}

void clradix_testing_max_keys_in_core(size_t n)
{
    atomic_store(&max_keys_in_core, n);
}

size_t testing_max_keys_in_core(void)
{
    const size_t n = atomic_load(&max_keys_in_core);
    return n ? n : CLRADIX_MAX_N;
}

unsigned long testing_loop_budget(void)
{
    return traits.loop_budget;
}

size_t testing_size_max(void)
{
    const size_t max = atomic_load(&size_max);
    return max ? max : SIZE_MAX;
}

void testing_device_limits(size_t *local_mem, size_t *max_wg, cl_ulong *max_alloc, cl_ulong *global_mem)
{
    if (forced_local_mem && forced_local_mem < *local_mem)
        *local_mem = forced_local_mem;
    if (forced_max_wg && forced_max_wg < *max_wg)
        *max_wg = forced_max_wg;
    if (forced_max_alloc && forced_max_alloc < *max_alloc)
        *max_alloc = forced_max_alloc;
    if (forced_global_mem && forced_global_mem < *global_mem)
        *global_mem = forced_global_mem;
}

/* Counts a call of function; 1 when it must fail. */
static int fails(const char *function)
{
    const char *only = atomic_load(&counted_function);
    if (only && strcmp(only, function))
        return 0;
    return atomic_fetch_add(&calls, 1) + 1 == atomic_load(&fail_at);
}

void *testing_malloc(size_t size) { return fails("malloc") ? NULL : malloc(size); }
void *testing_calloc(size_t count, size_t size) { return fails("calloc") ? NULL : calloc(count, size); }
char *testing_strdup(const char *text) { return fails("strdup") ? NULL : strdup(text); }

/* Answers a clGetDeviceInfo query with value, as the specification says a driver does. */
static cl_int answer(const void *value, size_t size, size_t param_size, void *param, size_t *size_ret)
{
    if (param && param_size < size)
        return CL_INVALID_VALUE;
    if (param)
        memcpy(param, value, size);
    if (size_ret)
        *size_ret = size;
    return CL_SUCCESS;
}

cl_int testing_clGetDeviceInfo(cl_device_id d, cl_device_info name, size_t size, void *value, size_t *size_ret)
{
    const clradix_testing_traits t = traits;
    if (t.work_item_dimensions > 3 && name == CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)
        return answer(&t.work_item_dimensions, sizeof t.work_item_dimensions, size, value, size_ret);
    if (t.work_item_dimensions > 3 && name == CL_DEVICE_MAX_WORK_ITEM_SIZES) {
        size_t sizes[16] = { 0 };
        const cl_uint dims = t.work_item_dimensions < 16 ? t.work_item_dimensions : 16;
        cl_int err = clGetDeviceInfo(d, name, 3 * sizeof(size_t), sizes, NULL);
        for (cl_uint i = 3; i < dims; ++i)
            sizes[i] = 1;
        return err != CL_SUCCESS ? err : answer(sizes, dims * sizeof(size_t), size, value, size_ret);
    }
    if (t.big_endian && name == CL_DEVICE_ENDIAN_LITTLE) {
        const cl_bool little = CL_FALSE;
        return answer(&little, sizeof little, size, value, size_ret);
    }
    if (t.discrete && name == CL_DEVICE_HOST_UNIFIED_MEMORY) {
        const cl_bool unified = CL_FALSE;
        return answer(&unified, sizeof unified, size, value, size_ret);
    }
    if (t.embedded && name == CL_DEVICE_PROFILE)
        return answer("EMBEDDED_PROFILE", sizeof "EMBEDDED_PROFILE", size, value, size_ret);
    if (t.embedded == 2 && name == CL_DEVICE_EXTENSIONS) {
        static const char extra[] = " cles_khr_int64";
        size_t real = 0;
        cl_int err = clGetDeviceInfo(d, name, 0, NULL, &real);
        char *all = err == CL_SUCCESS ? malloc(real + sizeof extra) : NULL;
        if (all && (err = clGetDeviceInfo(d, name, real, all, NULL)) == CL_SUCCESS) {
            strcpy(all + strlen(all), extra);
            err = answer(all, strlen(all) + 1, size, value, size_ret);
        }
        free(all);
        return all || err != CL_SUCCESS ? err : CL_OUT_OF_HOST_MEMORY;
    }
    return clGetDeviceInfo(d, name, size, value, size_ret);
}

/* An OpenCL call that returns an object, failing with CL_OUT_OF_RESOURCES. */
#define FAIL_OBJECT(function, err)                  \
    do {                                            \
        if (fails(function)) {                      \
            if (err)                                \
                *(err) = CL_OUT_OF_RESOURCES;       \
            return NULL;                            \
        }                                           \
    } while (0)

void clradix_testing_device_bytes(size_t *now, size_t *peak, int reset_peak)
{
    pthread_mutex_lock(&live_lock);
    *now = live_bytes;
    *peak = peak_bytes;
    if (reset_peak)
        peak_bytes = live_bytes;
    pthread_mutex_unlock(&live_lock);
}

static void count_created(cl_mem buffer, size_t bytes)
{
    pthread_mutex_lock(&live_lock);
    if (live_count == live_capacity) {
        const size_t capacity = live_capacity ? 2 * live_capacity : 64;
        struct live_buffer *more = realloc(live, capacity * sizeof *more);
        if (!more) {  /* not counted: the peak says so, and no test passes on it */
            peak_bytes = SIZE_MAX;
            pthread_mutex_unlock(&live_lock);
            return;
        }
        live = more;
        live_capacity = capacity;
    }
    live[live_count++] = (struct live_buffer){ buffer, bytes };
    live_bytes += bytes;
    peak_bytes = live_bytes > peak_bytes ? live_bytes : peak_bytes;
    pthread_mutex_unlock(&live_lock);
}

/* The library lets buffer go (it never retains one, so this is its only release; the
   OpenCL runtime may keep it while commands or sub-buffers use it). A test's own buffers
   were never counted. */
static cl_int release_counted(cl_mem buffer)
{
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < live_count; ++i)
        if (live[i].buffer == buffer) {
            live_bytes -= live[i].bytes;
            live[i] = live[--live_count];
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return clReleaseMemObject(buffer);
}

cl_mem testing_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *err)
{
    FAIL_OBJECT("clCreateBuffer", err);
    cl_int status;
    cl_mem buffer = clCreateBuffer(c, f, s, h, &status);
    if (buffer)
        count_created(buffer, s);
    if (err)
        *err = status;
    return buffer;
}

cl_int clradix_testing_release(cl_mem buffer)
{
    pthread_mutex_lock(&held_lock);
    int keep = releases_held;
    if (keep && held_count == held_capacity) {
        const size_t capacity = held_capacity ? 2 * held_capacity : 64;
        cl_mem *more = realloc(held, capacity * sizeof *more);
        if (more) {
            held = more;
            held_capacity = capacity;
        } else {
            keep = 0;
        }
    }
    if (keep)
        held[held_count++] = buffer;
    pthread_mutex_unlock(&held_lock);
    return keep ? CL_SUCCESS : release_counted(buffer);
}

cl_command_queue testing_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                              cl_int *err)
{
    FAIL_OBJECT("clCreateCommandQueue", err);
    return clCreateCommandQueue(c, d, p, err);
}

cl_context testing_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                   void(CL_CALLBACK *f)(const char *, const void *, size_t, void *), void *u,
                                   cl_int *err)
{
    FAIL_OBJECT("clCreateContext", err);
    return clCreateContext(p, n, d, f, u, err);
}

cl_program testing_clCreateProgramWithSource(cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *err)
{
    FAIL_OBJECT("clCreateProgramWithSource", err);
    return clCreateProgramWithSource(c, n, s, l, err);
}

cl_program testing_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
                                             const unsigned char **b, cl_int *st, cl_int *err)
{
    FAIL_OBJECT("clCreateProgramWithBinary", err);
    return clCreateProgramWithBinary(c, n, d, l, b, st, err);
}

cl_int testing_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                              void(CL_CALLBACK *f)(cl_program, void *), void *u)
{
    if (atomic_load(&builds_held)) {
        atomic_fetch_add(&builds_waiting, 1);
        const struct timespec pause = { 0, 1000000 };
        while (atomic_load(&builds_held))
            nanosleep(&pause, NULL);
        atomic_fetch_sub(&builds_waiting, 1);
    }
    return fails("clBuildProgram") ? CL_OUT_OF_HOST_MEMORY : clBuildProgram(p, n, d, o, f, u);
}

cl_kernel testing_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    FAIL_OBJECT("clCreateKernel", err);
    return clCreateKernel(p, name, err);
}

cl_int testing_clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info name, size_t size,
                                        void *value, size_t *size_ret)
{
    const cl_int err = clGetKernelWorkGroupInfo(k, d, name, size, value, size_ret);
    const size_t most = traits.kernel_work_group;
    if (err == CL_SUCCESS && most && name == CL_KERNEL_WORK_GROUP_SIZE && value && *(size_t *)value > most)
        *(size_t *)value = most;
    return err;
}

/* What a device with the forced limits would answer to a launch in work-groups of
   local_size: CL_INVALID_WORK_GROUP_SIZE past the kernel's own limit or the device's,
   CL_OUT_OF_RESOURCES (as GPUs say it) when the kernel's local memory is past the device's;
   else CL_SUCCESS. So a kernel launched past a faked limit fails its test. */
static cl_int forced_launch_limits(cl_command_queue q, cl_kernel k, const size_t *local_size)
{
    cl_device_id d;
    if (!local_size || clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS)
        return CL_SUCCESS;
    size_t most = 0;
    cl_ulong local = 0;
    if (testing_clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL) == CL_SUCCESS
        && (local_size[0] > most || (forced_max_wg && local_size[0] > forced_max_wg)))
        return CL_INVALID_WORK_GROUP_SIZE;
    if (forced_local_mem
        && clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL) == CL_SUCCESS
        && local > forced_local_mem)
        return CL_OUT_OF_RESOURCES;
    return CL_SUCCESS;
}

cl_int testing_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *o, const size_t *g,
                                      const size_t *l, cl_uint n, const cl_event *w, cl_event *e)
{
    if (fails("clEnqueueNDRangeKernel"))
        return CL_OUT_OF_RESOURCES;
    const cl_int refused = forced_launch_limits(q, k, l);
    return refused != CL_SUCCESS ? refused : clEnqueueNDRangeKernel(q, k, dims, o, g, l, n, w, e);
}

cl_int testing_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e)
{
    return fails("clEnqueueMarkerWithWaitList") ? CL_OUT_OF_RESOURCES : clEnqueueMarkerWithWaitList(q, n, w, e);
}

void *testing_clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags f, size_t o, size_t s,
                                 cl_uint n, const cl_event *w, cl_event *e, cl_int *err)
{
    FAIL_OBJECT("clEnqueueMapBuffer", err);
    return clEnqueueMapBuffer(q, b, blocking, f, o, s, n, w, e, err);
}

cl_int testing_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t o, size_t s, void *p,
                                   cl_uint n, const cl_event *w, cl_event *e)
{
    return fails("clEnqueueReadBuffer") ? CL_OUT_OF_RESOURCES : clEnqueueReadBuffer(q, b, blocking, o, s, p, n, w, e);
}

cl_int testing_clEnqueueCopyBuffer(cl_command_queue q, cl_mem from, cl_mem to, size_t from_offset, size_t to_offset,
                                   size_t s, cl_uint n, const cl_event *w, cl_event *e)
{
    return fails("clEnqueueCopyBuffer") ? CL_OUT_OF_RESOURCES
                                        : clEnqueueCopyBuffer(q, from, to, from_offset, to_offset, s, n, w, e);
}
