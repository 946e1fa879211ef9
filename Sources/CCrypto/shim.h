// libgcrypt (GnuPG's, Debian's libgcrypt20): the web app's SHA-256 and
// HMAC-SHA256. libsystemd already loads it into every MoonRunner service.
#include <gcrypt.h>

// gcry_control is variadic (Swift cannot call it): the initialisation libgcrypt
// asks for before its first use. 1 when done.
static inline int moonrunner_gcrypt_initialise(void) {
    if (gcry_check_version(NULL) == NULL) return 0;
    return gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0) == 0;
}
