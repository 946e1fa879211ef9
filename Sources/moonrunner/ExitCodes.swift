import MoonRunnerProtocol

/// Exit codes scripts can rely on (sysexits.h where one fits). Documented in
/// `moonrunner --help` and the README; tested end to end.
enum ExitCodes {
    /// The daemon refused the request with an ERROR (invalid_state, not_found, bad_parameter, ...).
    static let refused: Int32 = 1
    /// Bad command line (argument-parser's EX_USAGE).
    static let usage: Int32 = 64
    /// Bad input data (analyze) or a reply the CLI cannot read.
    static let dataError: Int32 = 65
    /// The daemon is not running, not reachable (including permission denied), or stopped answering.
    static let unavailable: Int32 = 69
    /// A file could not be read or written.
    static let ioError: Int32 = 74
    /// The daemon is busy (rate_limited, too_many_clients, busy): try again later.
    static let tryAgain: Int32 = 75
    /// The daemon refused a state change to this user (forbidden).
    static let forbidden: Int32 = 77

    /// The exit code for an ERROR reply.
    static func code(for error: RequestError.Code) -> Int32 {
        switch error {
        case .forbidden: forbidden
        case .rateLimited, .tooManyClients, .busy: tryAgain
        case .idleTimeout: unavailable
        default: refused
        }
    }

    static let summary = """
        Exit codes: 0 ok; 1 the daemon refused the request (an ERROR reply); 64 usage error; \
        65 bad input data; 69 the daemon is not running or not reachable (also permission denied \
        on the socket); 74 file I/O error; 75 the daemon is busy (rate_limited, too_many_clients, busy), \
        try again; 77 the request needs more privileges (forbidden).
        """
}
