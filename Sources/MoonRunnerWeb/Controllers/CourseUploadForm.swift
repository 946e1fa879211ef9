import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore

/// A course file posted from the phone (`multipart/form-data` with `file`,
/// `name` and `csrf`), read as it arrives: refused with 413 as soon as it is
/// known to be larger than the limit (the declared `Content-Length`, or the
/// bytes counted so far), never collected beyond it, and refused as broken
/// when the parts do not close. The limit is the daemon's
/// `course.max_upload_kb` plus room for the form around the file.
struct CourseUploadForm: Sendable {
    var file: [UInt8] = []
    var fileName = ""
    var name = ""
    var csrf = ""

    enum Refusal: Error, Equatable {
        /// Larger than the limit (bytes): refused before it was read whole.
        case tooLarge
        /// Not multipart/form-data, or cut off before its closing boundary.
        case broken
    }

    /// Bytes of form around the file: headers of three parts and their boundaries.
    static let formOverhead = 16 * 1024

    static func read(_ request: Request, maxFileBytes: Int) async throws -> CourseUploadForm {
        let limit = maxFileBytes + formOverhead
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { throw Refusal.tooLarge }
        guard let type = request.headers[.contentType], let boundary = boundary(of: type) else { throw Refusal.broken }
        let parser = MultipartParser(boundary: boundary)
        var form = CourseUploadForm()
        var part: (name: String, fileName: String?, bytes: [UInt8]) = ("", nil, [])
        var completed = 0
        var overflow = false
        parser.onHeader = { field, value in
            guard field.lowercased() == "content-disposition" else { return }
            part.name = parameter("name", in: value) ?? ""
            part.fileName = parameter("filename", in: value)
        }
        parser.onBody = { buffer in
            if part.bytes.count + buffer.readableBytes > maxFileBytes {
                overflow = true
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                return
            }
            part.bytes.append(contentsOf: buffer.readableBytesView)
        }
        parser.onPartComplete = {
            switch part.name {
            case "file":
                form.file = part.bytes
                form.fileName = part.fileName ?? ""
            case "name": form.name = String(decoding: part.bytes, as: UTF8.self)
            case "csrf": form.csrf = String(decoding: part.bytes, as: UTF8.self)
            default: break
            }
            completed += 1
            part = ("", nil, [])
        }
        var received = 0
        // The last bytes of the body: a whole form ends with its closing delimiter.
        let closing = Array("--\(boundary)--".utf8)
        var tail: [UInt8] = []
        for try await chunk in request.body {
            received += chunk.readableBytes
            if received > limit || overflow { throw Refusal.tooLarge }
            tail.append(contentsOf: chunk.readableBytesView.suffix(closing.count + 4))
            if tail.count > closing.count + 4 { tail.removeFirst(tail.count - closing.count - 4) }
            do {
                try parser.execute(chunk)
            } catch {
                throw Refusal.broken
            }
        }
        if overflow { throw Refusal.tooLarge }
        while let last = tail.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") { tail.removeLast() }
        // A body cut off before its closing delimiter is broken, whatever parts it held.
        guard completed > 0, tail.count >= closing.count, Array(tail.suffix(closing.count)) == closing else {
            throw Refusal.broken
        }
        return form
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(of contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        guard let b = parameter("boundary", in: contentType), !b.isEmpty, b.count <= 200 else { return nil }
        return b
    }

    /// A parameter of a header value (`form-data; name="file"; filename="a.gpx"`), quotes removed.
    static func parameter(_ key: String, in value: String) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            let kv = item.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var v = kv[1].trimmingCharacters(in: .whitespaces)
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            return v
        }
        return nil
    }
}
