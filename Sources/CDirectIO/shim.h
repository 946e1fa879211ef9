// O_DIRECT and statx's STATX_DIOALIGN for the store's journal (JournalFile):
// O_DIRECT is only defined under _GNU_SOURCE, which Swift's Glibc module is not
// built with, and glibc's struct statx may predate the DIO alignment fields
// (Linux 6.1), so statx is called with a raw buffer and read at the kernel's offsets.
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int mr_o_direct(void) { return __O_DIRECT; }

static inline int mr_o_dsync(void) { return O_DSYNC; }

/// The file's direct I/O alignment (memory, file offset) from statx, or 0 when
/// the kernel or filesystem does not say (then the caller probes).
static inline int mr_dio_align(int fd, uint32_t *mem, uint32_t *offset) {
    uint64_t buf[32];  // struct statx: 256 bytes
    memset(buf, 0, sizeof buf);
#ifdef SYS_statx
    if (syscall(SYS_statx, fd, "", 0x1000 /* AT_EMPTY_PATH */, 0x2000U /* STATX_DIOALIGN */, buf) != 0) return -1;
    const unsigned char *b = (const unsigned char *)buf;
    uint32_t mask, m, o;
    memcpy(&mask, b, 4);
    memcpy(&m, b + 152, 4);  // stx_dio_mem_align
    memcpy(&o, b + 156, 4);  // stx_dio_offset_align
    if (!(mask & 0x2000U)) return -1;
    *mem = m;
    *offset = o;
    return 0;
#else
    return -1;
#endif
}
