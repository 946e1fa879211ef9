// pidfd_open (glibc 2.36, Linux 5.3): a descriptor that polls readable when
// the process exits, so a parent can wait for a child with a timeout
// without polling waitpid. Not in Swift's Glibc module.
#include <sys/pidfd.h>
