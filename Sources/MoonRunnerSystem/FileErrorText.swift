import FoundationEssentials
import Glibc

/// What went wrong reading or writing a file, in the C library's words
/// ("No such file or directory", "Permission denied"): FoundationEssentials'
/// file errors carry the POSIX error underneath but, unlike the full
/// Foundation's `localizedDescription`, no sentence of their own.
public func fileErrorText(_ error: any Error) -> String {
    let posix = (error as? CocoaError)?.underlying as? POSIXError ?? error as? POSIXError
    if let posix { return errnoText(posix.code.rawValue) }
    return "\(error)"
}

/// An `errno` in the C library's words (strerror), as every message about a
/// file, a device or a socket that failed says it.
public func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
