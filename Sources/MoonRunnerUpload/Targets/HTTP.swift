import AsyncHTTPClient
import Foundation
import MoonRunnerProtocol
import NIOCore
import NIOHTTP1

/// A reply read whole: the services answer a few kilobytes of JSON.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public var json: JSONValue? { try? JSONValue.parse(String(decoding: body, as: UTF8.self)) }
    public var text: String { String(decoding: body.prefix(300), as: UTF8.self) }
}

/// The targets' one way out: AsyncHTTPClient with bounded waits, its
/// failures turned into `UploadFailure`s (no answer is `.network`, so the
/// queue backs off and tries again when the network returns). This file only
/// turns requests into replies; what they mean is each target's business.
public struct HTTP: Sendable {
    let client: HTTPClient
    /// A whole exchange may take this long (a FIT of a long run on a slow uplink), seconds.
    let timeout: Int64

    public init(client: HTTPClient, timeout: Int64 = 120) {
        self.client = client
        self.timeout = timeout
    }

    /// The client every target shares: connect within 10 s, no redirects followed
    /// (a service that moved is a configuration to fix, not something to send a token after).
    public static func makeClient() -> HTTPClient {
        var config = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                              timeout: .init(connect: .seconds(10), read: .seconds(60)))
        config.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
    }

    public func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [],
                     body: [UInt8]? = nil) async throws(UploadFailure) -> HTTPReply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        request.headers.replaceOrAdd(name: "User-Agent", value: "moonrunner-upload/\(MoonRunnerRelease.version)")
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await client.execute(request, timeout: .seconds(timeout))
            let buffer = try await response.body.collect(upTo: 4 << 20)
            return HTTPReply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
        } catch {
            throw UploadFailure.network("\(URLText.host(url)): \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .remoteConnectionClosed: return "the connection was closed before the answer"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .connectTimeout: return "cannot connect (timed out)"
            default: return "\(e)"
            }
        }
        return "\(error)"
    }

    /// Form fields as `application/x-www-form-urlencoded`.
    public static func form(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { "\(URLText.escape($0.0))=\(URLText.escape($0.1))" }.joined(separator: "&").utf8)
    }

    public static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}

/// A multipart/form-data body (RFC 7578) of fields and files.
public struct Multipart: Sendable {
    public let boundary: String
    private(set) var bytes: [UInt8] = []

    public init(boundary: String = "moonrunner-" + String(UInt64.random(in: 1...UInt64.max), radix: 36)) {
        self.boundary = boundary
    }

    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public mutating func field(_ name: String, _ value: String) {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    public mutating func file(_ name: String, filename: String, type: String, _ data: Data) {
        bytes += Array(("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n"
            + "Content-Type: \(type)\r\n\r\n").utf8)
        bytes += data
        bytes += Array("\r\n".utf8)
    }

    public var body: [UInt8] { bytes + Array("--\(boundary)--\r\n".utf8) }
}

/// The few URL pieces the targets build.
public enum URLText {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func escape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if unreserved.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += String(format: "%%%02X", b) }
        }
        return out
    }

    public static func query(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// The host of a URL, for messages (never the path: it may hold an athlete id).
    public static func host(_ url: String) -> String {
        guard let r = url.range(of: "://") else { return url }
        return String(url[r.upperBound...].prefix { $0 != "/" })
    }

    /// Values of a query string (`a=1&b=2`), decoded.
    public static func parameters(_ query: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(kv[0]).removingPercentEncoding ?? String(kv[0])
            let value = kv.count > 1 ? (String(kv[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
            out[key] = value
        }
        return out
    }
}

extension HTTPReply {
    /// The usual reading of a status: 2xx is the caller's; 401/403 a refused credential;
    /// 429 a wait; 5xx and anything else unexpected a retry; other 4xx the file's fault.
    func failure(_ service: String, now: Double) -> UploadFailure {
        switch status {
        case 401, 403: .refused("\(service) refused the credential (\(status)); reconnect \(service)")
        case 429: .rateLimited(until: now + 900, "\(service) asks to slow down (429)")
        case 500...599: .server("\(service) failed (\(status)): \(text)")
        case 400...499: .rejected("\(service) refused the file (\(status)): \(text)")
        default: .server("\(service) answered \(status): \(text)")
        }
    }
}
