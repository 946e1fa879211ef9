// glibc's malloc tuning (mallopt, M_ARENA_MAX, malloc_trim): <malloc.h> is not
// in Swift's Glibc module. What the daemon sets and why: MemoryBudget.swift.
#include <malloc.h>
