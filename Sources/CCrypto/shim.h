// Debian's libcrypto (OpenSSL 3): the web app's SHA-256 and HMAC-SHA256.
#include <openssl/evp.h>
