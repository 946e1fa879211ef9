import Testing
@testable import MoonRunnerWeb

@Suite("Web: multipart/form-data bodies split into their parts")
struct MultipartFormTests {
    static func body(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    @Test("a browser's form: fields and a file whose bytes hold line ends, dashes and the boundary's text inside a line")
    func browserForm() throws {
        let file = "<gpx>\r\nnot at a line start: --XyZ\r\n-- nor this\r\n</gpx>\r\n"
        let raw = Self.body("--XyZ\nContent-Disposition: form-data; name=\"csrf\"\n\nt0k3n\n--XyZ\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"loop.gpx\"\nContent-Type: application/gpx+xml\n\n")
            + Array(file.utf8) + Self.body("\n--XyZ\nContent-Disposition: form-data; name=\"name\"\n\n\n--XyZ--\n")
        let form = try MultipartForm.parse(raw, boundary: "XyZ")
        #expect(form.parts.map(\.name) == ["csrf", "file", "name"])
        #expect(form["csrf"]?.bytes == Array("t0k3n".utf8))
        #expect(form["file"]?.fileName == "loop.gpx" && form["file"]?.bytes == Array(file.utf8))
        #expect(form["name"]?.bytes == [])
    }

    @Test("a preamble before the first boundary and an epilogue after the last are ignored; padding after a boundary is allowed")
    func preambleAndEpilogue() throws {
        let raw = Self.body("This is a preamble.\n--b1 \t\nContent-Disposition: form-data; name=a\n\nA\n--b1--\nepilogue")
        let form = try MultipartForm.parse(raw, boundary: "b1")
        #expect(form.parts == [MultipartForm.Part(name: "a", fileName: nil, bytes: Array("A".utf8))])
    }

    @Test("broken: no boundary, headers without their blank line, cut off before the close, a boundary run into text",
          arguments: ["no boundary at all\n", "--q\nContent-Disposition: form-data; name=a\n",
                      "--q\nContent-Disposition: form-data; name=a\n\nhalf a file", "--q\nContent-Disposition: form-data; name=a\n\nA\n--q",
                      "--qx\nContent-Disposition: form-data; name=a\n\nA\n--q--\n"])
    func broken(text: String) {
        #expect(throws: MultipartForm.Broken.self) { try MultipartForm.parse(Self.body(text), boundary: "q") }
    }

    @Test("header parameters: quoted or not, any case of the key, spaces around")
    func parameters() {
        #expect(HeaderParameter.value("boundary", in: "multipart/form-data; Boundary = \"a b\"") == "a b")
        #expect(HeaderParameter.value("filename", in: "form-data; name=file; filename=x.fit") == "x.fit")
        #expect(HeaderParameter.value("name", in: "form-data") == nil)
    }
}
