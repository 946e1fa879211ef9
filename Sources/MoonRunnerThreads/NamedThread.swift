import CThreadName
import Glibc

/// A detached POSIX thread with a name (what `top -H` and gdb show), for the
/// loops around blocking C libraries and the announcer's two loops.
/// Foundation's `Thread` does the same but lives in the full Foundation, which
/// would link ICU into every tool that uses it.
public enum NamedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new detached thread; Linux keeps the first 15 bytes of `name`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        // Only a process out of threads or memory gets here; nothing sensible is left to do.
        precondition(rc == 0, "cannot start thread \(name): error \(rc)")
        _ = pthread_setname_np(thread, String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self))
        pthread_detach(thread)
    }
}
