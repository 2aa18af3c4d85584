/*
 * On-disk cache of compiled programs, so that a new process skips the OpenCL C compiler.
 *
 * Folder: $CLRADIX_CACHE_DIR, else $XDG_CACHE_HOME/clradix, else $HOME/.cache/clradix;
 * CLRADIX_CACHE=0 turns the cache off, 1 on for every device. By default it is off on POCL,
 * which keeps a cache of its own (a new process then creates a sorter in tens of
 * milliseconds) and compiles kernels as they are first launched: asking it for a binary
 * makes it compile every kernel of the program at once, which costs a new machine about
 * four times the compile time of the kernels a sort really launches. An entry is named by a 128-bit hash of the
 * platform, device, driver version, kernel sources and build options, and holds a
 * header (magic, that hash, the binary's length and checksum) before the binary. It is
 * written to a temporary file and renamed into place, so a reader never sees half an
 * entry. Anything wrong with an entry (missing, truncated, corrupt, foreign, refused by
 * the driver) makes the caller compile from source: the cache can cost a compile, never
 * a failure or a wrong result.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = { 'C', 'L', 'R', 'A', 'D', 'I', 'X', '1' };

typedef struct entry_header {
    char magic[8];
    uint64_t key[2];
    uint64_t length;    /* bytes of binary after the header */
    uint64_t checksum;  /* of the binary */
} entry_header;

/* FNV-1a, 64-bit. */
static uint64_t fnv(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i)
        hash = (hash ^ p[i]) * 0x100000001B3ull;
    return hash;
}

static void hash_text(uint64_t key[2], const char *text)
{
    const size_t size = strlen(text) + 1;  /* the NUL separates consecutive fields */
    key[0] = fnv(key[0], text, size);
    key[1] = fnv(key[1], text, size);
}

static void hash_device_info(uint64_t key[2], cl_device_id device)
{
    static const cl_device_info device_fields[] = { CL_DEVICE_NAME, CL_DEVICE_VENDOR, CL_DEVICE_VERSION,
                                                    CL_DRIVER_VERSION };
    char text[1024];
    cl_platform_id platform = NULL;
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    for (int i = 0; i < 2; ++i) {
        text[0] = '\0';
        clGetPlatformInfo(platform, i ? CL_PLATFORM_VERSION : CL_PLATFORM_NAME, sizeof text - 1, text, NULL);
        hash_text(key, text);
    }
    for (size_t i = 0; i < sizeof device_fields / sizeof device_fields[0]; ++i) {
        text[0] = '\0';
        clGetDeviceInfo(device, device_fields[i], sizeof text - 1, text, NULL);
        hash_text(key, text);
    }
}

void cache_key(cl_device_id device, const char *const *sources, int count, const char *options, uint64_t key[2])
{
    key[0] = 0xCBF29CE484222325ull;  /* FNV offset basis, and a second, different start */
    key[1] = 0x84222325CBF29CE4ull;
    hash_device_info(key, device);
    for (int i = 0; i < count; ++i)
        hash_text(key, sources[i]);
    hash_text(key, options);
}

int cache_enabled(cl_device_id device)
{
    const char *setting = getenv("CLRADIX_CACHE");
    if (setting && *setting)
        return strcmp(setting, "0") != 0;
    char name[256];
    device_platform_name(device, name, sizeof name);
    return !strstr(name, "Portable Computing Language");  /* POCL: its own cache (see above) */
}

/* The entry's path in buf, creating the folder; 0 when the cache is off or has no folder. */
static int entry_path(const uint64_t key[2], char *buf, size_t size)
{
    char dir[3072];
    const char *base = getenv("CLRADIX_CACHE_DIR");
    if (base && *base) {
        snprintf(dir, sizeof dir, "%s", base);
    } else if ((base = getenv("XDG_CACHE_HOME")) && *base) {
        snprintf(dir, sizeof dir, "%s/clradix", base);
    } else if ((base = getenv("HOME")) && *base) {
        snprintf(dir, sizeof dir, "%s/.cache/clradix", base);
    } else {
        return 0;
    }
    /* mkdir -p */
    for (char *slash = dir + 1;; ++slash) {
        const char saved = *slash;
        if (saved == '/' || saved == '\0') {
            *slash = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return 0;
            *slash = saved;
        }
        if (saved == '\0')
            break;
    }
    return snprintf(buf, size, "%s/%016llx%016llx.bin", dir, (unsigned long long)key[0],
                    (unsigned long long)key[1]) < (int)size;
}

unsigned char *cache_load(const uint64_t key[2], size_t *length)
{
    char path[4096];
    if (!entry_path(key, path, sizeof path))
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    entry_header h;
    unsigned char *binary = NULL;
    if (fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, magic, sizeof magic) && h.key[0] == key[0]
        && h.key[1] == key[1] && h.length > 0 && h.length < ((uint64_t)1 << 31)
        && (binary = malloc((size_t)h.length)) != NULL) {
        int extra;
        if (fread(binary, 1, (size_t)h.length, f) != h.length || (extra = fgetc(f)) != EOF
            || fnv(0xCBF29CE484222325ull, binary, (size_t)h.length) != h.checksum) {
            free(binary);  /* truncated, too long or corrupt */
            binary = NULL;
        }
    }
    fclose(f);
    if (binary)
        *length = (size_t)h.length;
    return binary;
}

void cache_store(const uint64_t key[2], const unsigned char *binary, size_t length)
{
    char path[4096], temporary[4200];
    if (!binary || length == 0 || !entry_path(key, path, sizeof path))
        return;
    snprintf(temporary, sizeof temporary, "%s.XXXXXX", path);
    const int fd = mkstemp(temporary);
    if (fd < 0)
        return;
    entry_header h;
    memcpy(h.magic, magic, sizeof magic);
    h.key[0] = key[0];
    h.key[1] = key[1];
    h.length = length;
    h.checksum = fnv(0xCBF29CE484222325ull, binary, length);
    FILE *f = fdopen(fd, "wb");
    int ok = f && fwrite(&h, sizeof h, 1, f) == 1 && fwrite(binary, 1, length, f) == length;
    if (f)
        ok &= fclose(f) == 0;
    else
        close(fd);
    if (!ok || rename(temporary, path) != 0)  /* rename replaces atomically */
        unlink(temporary);
}
