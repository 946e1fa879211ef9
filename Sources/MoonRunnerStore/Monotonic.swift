import Glibc

/// CLOCK_MONOTONIC in seconds: consolidation intervals do not follow wall-clock steps.
enum Monotonic {
    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
