import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A course file posted from the phone (`multipart/form-data` with `file`,
/// `name` and `csrf`; a workout's may give `text`, its text form, instead of a
/// file), collected as it arrives: refused with 413 as soon as it
/// is known to be larger than the limit (the declared `Content-Length`, or the
/// bytes counted so far), never collected beyond it, and refused as broken
/// when the parts do not close (`MultipartForm`). The limit is the daemon's
/// `course.max_upload_kb` plus room for the form around the file.
struct CourseUploadForm: Sendable {
    var file: [UInt8] = []
    var fileName = ""
    var name = ""
    var text = ""
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
        var body: [UInt8] = []
        for try await chunk in request.body {
            guard body.count + chunk.readableBytes <= limit else { throw Refusal.tooLarge }
            body.append(contentsOf: chunk.readableBytesView)
        }
        guard let parts = try? MultipartForm.parse(body, boundary: boundary), !parts.parts.isEmpty else { throw Refusal.broken }
        var form = CourseUploadForm()
        if let file = parts["file"] {
            guard file.bytes.count <= maxFileBytes else { throw Refusal.tooLarge }
            form.file = file.bytes
            form.fileName = file.fileName ?? ""
        }
        form.name = parts["name"].map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
        form.csrf = parts["csrf"].map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
        form.text = parts["text"].map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
        return form
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(of contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        guard let b = HeaderParameter.value("boundary", in: contentType), !b.isEmpty, b.count <= 200 else { return nil }
        return b
    }
}
