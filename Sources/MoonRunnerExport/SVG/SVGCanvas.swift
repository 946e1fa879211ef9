import MoonRunnerCore

/// The few SVG elements the route picture is drawn with, appended straight
/// into an output buffer (coordinates with one decimal: a tenth of a pixel).
struct SVGCanvas {
    var out: OutputBuffer
    static let font = "DejaVu Sans, Helvetica, Arial, sans-serif"

    init(capacity: Int) {
        out = OutputBuffer(capacity: capacity)
    }

    mutating func number(_ v: Double) {
        out.write(v, decimals: 1)
    }

    mutating func point(_ x: Double, _ y: Double) {
        number(x)
        out.write(",")
        number(y)
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String,
                       radius: Double = 0, extra: String = "") {
        out.write("<rect x=\"")
        number(x)
        out.write("\" y=\"")
        number(y)
        out.write("\" width=\"")
        number(max(0, width))
        out.write("\" height=\"")
        number(max(0, height))
        if radius > 0 {
            out.write("\" rx=\"")
            number(radius)
        }
        out.write("\" fill=\"")
        out.write(text: fill)
        out.write("\"")
        if !extra.isEmpty {
            out.write(" ")
            out.write(text: extra)
        }
        out.write("/>\n")
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String,
                       width: Double = 1, extra: String = "") {
        out.write("<line x1=\"")
        number(x1)
        out.write("\" y1=\"")
        number(y1)
        out.write("\" x2=\"")
        number(x2)
        out.write("\" y2=\"")
        number(y2)
        out.write("\" stroke=\"")
        out.write(text: stroke)
        out.write("\" stroke-width=\"")
        number(width)
        out.write("\"")
        if !extra.isEmpty {
            out.write(" ")
            out.write(text: extra)
        }
        out.write("/>\n")
    }

    mutating func circle(_ x: Double, _ y: Double, r: Double, fill: String, stroke: String = "none",
                         width: Double = 0) {
        out.write("<circle cx=\"")
        number(x)
        out.write("\" cy=\"")
        number(y)
        out.write("\" r=\"")
        number(r)
        out.write("\" fill=\"")
        out.write(text: fill)
        out.write("\" stroke=\"")
        out.write(text: stroke)
        out.write("\" stroke-width=\"")
        number(width)
        out.write("\"/>\n")
    }

    enum Anchor: String {
        case start, middle, end
    }

    mutating func text(_ s: String, x: Double, y: Double, size: Double, fill: String = "#3c4650",
                       anchor: Anchor = .start, weight: String = "normal", extra: String = "") {
        out.write("<text x=\"")
        number(x)
        out.write("\" y=\"")
        number(y)
        out.write("\" font-size=\"")
        number(size)
        out.write("\" fill=\"")
        out.write(text: fill)
        out.write("\" text-anchor=\"")
        out.write(text: anchor.rawValue)
        out.write("\" font-weight=\"")
        out.write(text: weight)
        out.write("\"")
        if !extra.isEmpty {
            out.write(" ")
            out.write(text: extra)
        }
        out.write(">")
        out.write(xmlEscaped: s)
        out.write("</text>\n")
    }

    /// Roughly how wide `s` is drawn at `size` px: about 0.6 em for Latin
    /// letters and digits, a whole em for Chinese characters (so that a
    /// title's detail starts after the title in either language).
    static func approximateWidth(_ s: String, size: Double) -> Double {
        var ems = 0.0
        for scalar in s.unicodeScalars { ems += scalar.value >= 0x1100 ? 1.0 : 0.6 }
        return ems * size
    }
}
