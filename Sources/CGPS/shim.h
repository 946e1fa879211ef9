#include <gps.h>
#include <math.h>
#include <stdint.h>

/* What the GPS client needs from libgps, said once in C so that the header of
 * the gpsd it is compiled against decides: gpsd 3.22 (Debian 12, API 11) and
 * 3.25 (Debian 13, API 14) spell gps_stream's flags differently (unsigned int
 * vs watch_t, void * vs const char *), and the report bits are 64-bit shifts
 * that Swift does not import. A libgps older than API 9 (no timespec fix
 * times, no altMSL) is refused here, at build time, not at run time on a Pi. */
#if GPSD_API_MAJOR_VERSION < 9
#error "MoonRunner needs libgps API 9 or later (gpsd 3.20+)"
#endif

/* Streams JSON reports: WATCH_ENABLE | WATCH_JSON. */
static inline int moonrunner_gps_stream_json(struct gps_data_t *data) {
    return gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL);
}

/* The `set` bits of a report that the client reads. */
static inline uint64_t moonrunner_gps_time_set(void) { return TIME_SET; }
static inline uint64_t moonrunner_gps_mode_set(void) { return MODE_SET; }
static inline uint64_t moonrunner_gps_gst_set(void) { return GST_SET; }
