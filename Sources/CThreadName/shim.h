// pthread_setname_np (glibc 2.12): a GNU extension, declared by <pthread.h>
// only under _GNU_SOURCE, so Swift's Glibc module does not import it.
#include <pthread.h>
int pthread_setname_np(pthread_t thread, const char *name);
