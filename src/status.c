/* Status messages, the version, and statuses from OpenCL errors. */
#include "internal.h"

unsigned clradix_version(void)
{
    return CLRADIX_VERSION_NUMBER;
}

/* The switch has no default, so -Wswitch flags a status without a message. */
const char *clradix_status_string(clradix_status status)
{
    switch (status) {
    case CLRADIX_SUCCESS: return "success";
    case CLRADIX_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLRADIX_ERROR_INVALID_BUFFER: return "buffer too small or unusable for this sort";
    case CLRADIX_ERROR_OUT_OF_RESOURCES: return "out of device or host resources";
    case CLRADIX_ERROR_BUILD_FAILED: return "the kernels did not compile for this device";
    case CLRADIX_ERROR_UNSUPPORTED: return "not supported by this device or build";
    case CLRADIX_ERROR_OPENCL: return "OpenCL call failed";
    case CLRADIX_ERROR_MPI: return "MPI call failed";
    }
    return "unknown clradix status";
}

clradix_status status_from_cl(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return CLRADIX_SUCCESS;
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE: return CLRADIX_ERROR_OUT_OF_RESOURCES;
    default: return CLRADIX_ERROR_OPENCL;
    }
}
