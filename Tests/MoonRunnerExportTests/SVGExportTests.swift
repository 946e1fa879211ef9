import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoonRunnerCore
import Testing
@testable import MoonRunnerExport

@Suite("Export: SVG route picture")
struct SVGExportTests {
    let session = ExportFixture.session()

    /// Decodes an 8-bit RGB/RGBA PNG with the standard library only and
    /// reports its size, distinct colours and the share of non-background pixels.
    static let pngScript = """
        import json, struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
        pos, idat, w, h, ctype = 8, b'', 0, 0, 0
        while pos < len(data):
            n, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + n]
            if kind == b'IHDR':
                w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
                assert depth == 8 and ctype in (2, 6)
            elif kind == b'IDAT':
                idat += body
            pos += 12 + n
        bpp = 4 if ctype == 6 else 3
        raw = zlib.decompress(idat)
        stride = w * bpp
        prev = bytearray(stride)
        colours = {}
        i = 0
        for y in range(h):
            f = raw[i]; i += 1
            line = bytearray(raw[i:i + stride]); i += stride
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    line[x] = (line[x] + pr) & 255
            for x in range(0, stride, bpp):
                px = bytes(line[x:x + 3])
                colours[px] = colours.get(px, 0) + 1
            prev = line
        background = max(colours.values())
        reds = sum(n for (r, g, b), n in colours.items() if r > 200 and g < 120 and b < 120)
        greens = sum(n for (r, g, b), n in colours.items() if r < 80 and g > 110 and b < 140 and g > b)
        print(json.dumps({"width": w, "height": h, "colours": len(colours),
                          "foreground": 1 - background / (w * h), "red": reds, "green": greens}))
        """

    @Test("rsvg-convert renders a picture with many colours, red and green route parts")
    func renders() throws {
        let dir = try makeScratchDirectory("svg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let svg = dir.appendingPathComponent("s.svg"), png = dir.appendingPathComponent("s.png")
        let data = SVGRouteWriter.write(session)
        try data.write(to: svg)
        let r = try ExternalTool.run("rsvg-convert", ["-w", "480", "-o", png.path, svg.path],
                                     hint: ExternalTool.rsvgHint)
        #expect(r.status == 0, "rsvg-convert: \(r.stderr)")
        let image = try ExternalTool.python(Self.pngScript, [png.path])
        #expect(image["width"] as? Int == 480)
        #expect((image["height"] as? Int ?? 0) > 480)
        #expect((image["colours"] as? Int ?? 0) > 500, "\(image)")
        #expect((image["foreground"] as? Double ?? 0) > 0.15, "\(image)")
        #expect((image["red"] as? Int ?? 0) > 100 && (image["green"] as? Int ?? 0) > 100, "\(image)")
        keepSample(data, name: "session-12-checked.svg")
    }

    @Test("the picture has a title with date, distance, time and pace, axes with units")
    func content() {
        let text = String(decoding: SVGRouteWriter.write(session), as: UTF8.self)
        #expect(text.contains("Run · Wednesday 1 May 2024, 07:30 UTC"))
        #expect(text.contains(Formatting.distance(session.distance)))
        #expect(text.contains(Formatting.duration(session.moving)))
        #expect(text.contains(Formatting.pace(speed: session.distance / session.moving)))
        #expect(text.contains("Pace (min/km)") && text.contains("Elevation (m)") && text.contains("Distance (km)"))
        #expect(text.contains("#ff142c") && text.contains("#00924e"))
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let imperial = String(decoding: SVGRouteWriter.write(session, units: .imperial), as: UTF8.self)
        #expect(imperial.contains("Distance (mi)") && imperial.contains("min/mi"))
    }

    @Test("an empty session still draws a valid picture")
    func empty() throws {
        let empty = ExportSession(id: 1, activity: .walk, startTime: ExportFixture.start, stats: SessionStats(),
                                  points: [])
        let data = SVGRouteWriter.write(empty)
        let parser = XMLParser(data: data)
        #expect(parser.parse())
        #expect(String(decoding: data, as: UTF8.self).contains("no GPS track recorded"))
        for format in ExportFormat.allCases { _ = format.export(empty) }
    }
}
