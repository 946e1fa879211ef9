import HTTPTypes
import MoonRunnerProtocol

extension HTTPResponse.Status {
    /// The HTTP status for a daemon ERROR, in one switch (as the CLI's
    /// `ExitCodes.code(for:)` is): what the phone's browser, and a script
    /// driving the pages, can rely on.
    public init(_ code: RequestError.Code) {
        switch code {
        case .notFound: self = .notFound
        case .invalidState: self = .conflict
        case .forbidden: self = .forbidden
        case .syntax, .unknownCommand, .badJSON, .badParameter, .tooLong: self = .badRequest
        case .tooLarge: self = .contentTooLarge
        case .badCourse, .badWorkout: self = .unprocessableContent
        case .rateLimited: self = .tooManyRequests
        case .tooManyClients, .busy, .idleTimeout, .unavailable, .storeError: self = .serviceUnavailable
        case .internalError: self = .internalServerError
        }
    }
}
