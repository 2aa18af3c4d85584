/* The wrappers of testing.h: compiled into the test build of the library only. */
#include "testing.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong calls, fail_at;  /* fail_at 0: nothing fails */
static size_t forced_local_mem, forced_max_wg;
static cl_ulong forced_max_alloc, forced_global_mem;

void clradix_testing_fail_at(unsigned long n)
{
    atomic_store(&calls, 0);
    atomic_store(&fail_at, n);
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

/* Counts a call; 1 when it must fail. */
static int fails(void)
{
    return atomic_fetch_add(&calls, 1) + 1 == atomic_load(&fail_at);
}

void *testing_malloc(size_t size) { return fails() ? NULL : malloc(size); }
void *testing_calloc(size_t count, size_t size) { return fails() ? NULL : calloc(count, size); }
char *testing_strdup(const char *text) { return fails() ? NULL : strdup(text); }

/* An OpenCL call that returns an object, failing with CL_OUT_OF_RESOURCES. */
#define FAIL_OBJECT(err)                            \
    do {                                            \
        if (fails()) {                              \
            if (err)                                \
                *(err) = CL_OUT_OF_RESOURCES;       \
            return NULL;                            \
        }                                           \
    } while (0)

cl_mem testing_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateBuffer(c, f, s, h, err);
}

cl_command_queue testing_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p,
                                              cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateCommandQueue(c, d, p, err);
}

cl_context testing_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                   void(CL_CALLBACK *f)(const char *, const void *, size_t, void *), void *u,
                                   cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateContext(p, n, d, f, u, err);
}

cl_program testing_clCreateProgramWithSource(cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateProgramWithSource(c, n, s, l, err);
}

cl_program testing_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
                                             const unsigned char **b, cl_int *st, cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateProgramWithBinary(c, n, d, l, b, st, err);
}

cl_int testing_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                              void(CL_CALLBACK *f)(cl_program, void *), void *u)
{
    return fails() ? CL_OUT_OF_HOST_MEMORY : clBuildProgram(p, n, d, o, f, u);
}

cl_kernel testing_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    FAIL_OBJECT(err);
    return clCreateKernel(p, name, err);
}

cl_int testing_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *o, const size_t *g,
                                      const size_t *l, cl_uint n, const cl_event *w, cl_event *e)
{
    return fails() ? CL_OUT_OF_RESOURCES : clEnqueueNDRangeKernel(q, k, dims, o, g, l, n, w, e);
}

cl_int testing_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e)
{
    return fails() ? CL_OUT_OF_RESOURCES : clEnqueueMarkerWithWaitList(q, n, w, e);
}

cl_int testing_clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t o, size_t s, void *p,
                                   cl_uint n, const cl_event *w, cl_event *e)
{
    return fails() ? CL_OUT_OF_RESOURCES : clEnqueueReadBuffer(q, b, blocking, o, s, p, n, w, e);
}
