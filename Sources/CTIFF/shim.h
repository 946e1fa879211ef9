#include <tiffio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* What the GeoTIFF reader needs from libtiff (Debian's libtiff-dev, 4.5 or
 * later: TIFFOpenExt and handlers per file). libtiff's getters are variadic
 * C, which Swift does not call: each type gets its own small function here.
 * Errors are kept per file (the first one's text, for the message that names
 * the file) instead of going to standard error; warnings (the GeoTIFF tags
 * libtiff does not know itself, for one) are dropped. */

typedef struct {
    char text[256];
    int count;
} moonrunner_tiff_errors;

static int moonrunner_tiff_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    moonrunner_tiff_errors *e = (moonrunner_tiff_errors *)user;
    if (e != NULL && e->count++ == 0) {
        vsnprintf(e->text, sizeof e->text, fmt, ap);
    }
    return 1;
}

static int moonrunner_tiff_quiet(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

/* Opens for reading without mapping the file ('m'): libtiff reads only the
 * blocks asked for, and a file cut short under it is an error, not a SIGBUS.
 * No single allocation may exceed `max_alloc` bytes (a corrupt size field). */
static inline TIFF *moonrunner_tiff_open(const char *path, moonrunner_tiff_errors *errors, long max_alloc) {
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (o == NULL) {
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(o, moonrunner_tiff_error, errors);
    TIFFOpenOptionsSetWarningHandlerExtR(o, moonrunner_tiff_quiet, NULL);
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, (tmsize_t)max_alloc);
    TIFF *t = TIFFOpenExt(path, "rm", o);
    TIFFOpenOptionsFree(o);
    return t;
}

static inline int moonrunner_tiff_u32(TIFF *t, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(t, tag, value);
}

static inline int moonrunner_tiff_u16(TIFF *t, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(t, tag, value);
}

/* An ASCII tag (GDAL_NODATA): its text, or NULL. */
static inline const char *moonrunner_tiff_text(TIFF *t, uint32_t tag) {
    const char *text = NULL;
    if (TIFFFindField(t, tag, TIFF_ASCII) == NULL || !TIFFGetField(t, tag, &text)) {
        return NULL;
    }
    return text;
}

/* An array tag of `type` (TIFF_DOUBLE for the GeoTIFF model tags, TIFF_SHORT
 * for the GeoKey directory), whether libtiff knows it or read it as an
 * anonymous field: its count and values, 0 when it is absent or of another type. */
static inline int moonrunner_tiff_array(TIFF *t, uint32_t tag, TIFFDataType type, uint32_t *count, const void **values) {
    const TIFFField *f = TIFFFindField(t, tag, TIFF_ANY);
    if (f == NULL || TIFFFieldDataType(f) != type || !TIFFFieldPassCount(f)) {
        return 0;
    }
    if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
        return TIFFGetField(t, tag, count, values);
    }
    uint16_t short_count = 0;
    int ok = TIFFGetField(t, tag, &short_count, values);
    *count = short_count;
    return ok;
}
