/* Device discovery: one numbering of all devices of all platforms, and the default device. */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001  /* cl_khr_icd: the ICD loader found no platform */
#endif

clradix_status clradix_device_list(cl_uint capacity, cl_device_id *devices, cl_uint *count)
{
    if (capacity > 0 && !devices)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    cl_uint num_platforms = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &num_platforms);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && num_platforms == 0)) {
        if (count)
            *count = 0;
        return CLRADIX_SUCCESS;
    }
    if (err != CL_SUCCESS)
        return CLRADIX_ERROR_OPENCL;
    cl_platform_id *platforms = malloc(num_platforms * sizeof *platforms);
    if (!platforms)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    clradix_status status = CLRADIX_SUCCESS;
    cl_uint total = 0;
    if (clGetPlatformIDs(num_platforms, platforms, NULL) != CL_SUCCESS)
        status = CLRADIX_ERROR_OPENCL;
    for (cl_uint p = 0; p < num_platforms && status == CLRADIX_SUCCESS; ++p) {
        cl_uint num = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num);
        if (err == CL_DEVICE_NOT_FOUND || num == 0)
            continue;
        if (err != CL_SUCCESS) {
            status = CLRADIX_ERROR_OPENCL;
            break;
        }
        if (total < capacity) {
            cl_uint room = capacity - total;
            cl_device_id *ids = malloc(num * sizeof *ids);
            if (!ids) {
                status = CLRADIX_ERROR_OUT_OF_RESOURCES;
                break;
            }
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num, ids, NULL) != CL_SUCCESS)
                status = CLRADIX_ERROR_OPENCL;
            else
                memcpy(devices + total, ids, (num < room ? num : room) * sizeof *ids);
            free(ids);
        }
        total += num;
    }
    free(platforms);
    if (status == CLRADIX_SUCCESS && count)
        *count = total;
    return status;
}

/* Case-insensitive substring test. */
static int contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; ++haystack) {
        size_t i = 0;
        while (i < n && haystack[i] && tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

int device_platform_name(cl_device_id device, char *buf, size_t size)
{
    cl_platform_id platform = NULL;
    buf[0] = '\0';
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS
        && clGetPlatformInfo(platform, CL_PLATFORM_NAME, size - 1, buf, NULL) == CL_SUCCESS) {
        buf[size - 1] = '\0';
        return 1;
    }
    return 0;
}

/* "<platform name> <device name>" of device, in buf. */
static void describe(cl_device_id device, char *buf, size_t size)
{
    size_t used = 0;
    if (device_platform_name(device, buf, size)) {
        used = strlen(buf);
        buf[used++] = ' ';
        buf[used] = '\0';
    }
    if (clGetDeviceInfo(device, CL_DEVICE_NAME, size - used, buf + used, NULL) != CL_SUCCESS)
        buf[used] = '\0';
}

static clradix_status find_by_spec(const cl_device_id *devices, cl_uint count, const char *spec, cl_device_id *device)
{
    if (all_digits(spec)) {
        char *end;
        unsigned long index = strtoul(spec, &end, 10);
        if (index >= count)
            return CLRADIX_ERROR_INVALID_ARGUMENT;
        *device = devices[index];
        return CLRADIX_SUCCESS;
    }
    for (cl_uint i = 0; i < count; ++i) {
        char name[1024];
        describe(devices[i], name, sizeof name);
        if (contains_nocase(name, spec)) {
            *device = devices[i];
            return CLRADIX_SUCCESS;
        }
    }
    return CLRADIX_ERROR_INVALID_ARGUMENT;
}

static clradix_status find_default(const cl_device_id *devices, cl_uint count, cl_device_id *device)
{
    for (cl_uint i = 0; i < count; ++i) {
        cl_device_type type = 0;
        if (clGetDeviceInfo(devices[i], CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS
            && (type & CL_DEVICE_TYPE_GPU)) {
            *device = devices[i];
            return CLRADIX_SUCCESS;
        }
    }
    *device = devices[0];
    return CLRADIX_SUCCESS;
}

clradix_status clradix_device_find(const char *spec, cl_device_id *device)
{
    if (!device)
        return CLRADIX_ERROR_INVALID_ARGUMENT;
    cl_uint count = 0;
    clradix_status status = clradix_device_list(0, NULL, &count);
    if (status != CLRADIX_SUCCESS)
        return status;
    if (count == 0)
        return CLRADIX_ERROR_UNSUPPORTED;
    cl_device_id *devices = malloc(count * sizeof *devices);
    if (!devices)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    const cl_uint capacity = count;
    status = clradix_device_list(capacity, devices, &count);
    if (count > capacity)  /* a device appeared between the two calls */
        count = capacity;
    if (status == CLRADIX_SUCCESS && count > 0) {
        if (!spec || !*spec)
            spec = getenv("CLRADIX_DEVICE");
        if (spec && *spec)
            status = find_by_spec(devices, count, spec, device);
        else
            status = find_default(devices, count, device);
    }
    else if (status == CLRADIX_SUCCESS)
        status = CLRADIX_ERROR_UNSUPPORTED;
    free(devices);
    return status;
}
