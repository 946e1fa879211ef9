import FoundationEssentials
import Glibc

/// What went wrong reading or writing a file, in the C library's words
/// ("No such file or directory", "Permission denied"): FoundationEssentials'
/// file errors carry the POSIX error underneath but, unlike the full
/// Foundation's `localizedDescription`, no sentence of their own (issue 21).
public func fileErrorText(_ error: any Error) -> String {
    let posix = (error as? CocoaError)?.underlying as? POSIXError ?? error as? POSIXError
    if let posix { return String(cString: strerror(posix.code.rawValue)) }
    return "\(error)"
}
