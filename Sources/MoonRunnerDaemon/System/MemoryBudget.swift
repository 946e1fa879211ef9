import CMalloc

/// What keeps the daemon's resident set small on a Pi Zero 2 W (512 MB
/// of RAM). Each figure is from `Tests/Tools/footprint.py` (`make bench`).
public enum MemoryBudget {
    /// Once, first thing in `main`, before any thread is started.
    public static func apply() {
        // glibc gives every thread that allocates an arena of its own (up to 8 per
        // core), and memory freed in one arena is not reused by another: the
        // cooperative pool, NIO's loops and the sensor threads each kept their own
        // freed pages. Two arenas suffice for a daemon that computes little.
        _ = mallopt(M_ARENA_MAX, 2)
    }
}
