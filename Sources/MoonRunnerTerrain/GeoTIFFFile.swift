import CTIFF
import FoundationEssentials
import Glibc
import MoonRunnerCore

/// How a GeoTIFF's postings are laid out: its size, its blocks (tiles, or
/// strips as wide as the image) and its samples.
struct GeoTIFFLayout: Sendable {
    var width, height: Int
    /// Postings of a block (a tile, or a strip: `blockWidth` is the image's).
    var blockWidth, blockHeight: Int
    var tiled: Bool
    var format: SampleFormat
    /// GDAL's no-data value (GDAL_NODATA), if the file names one.
    var noData: Double?

    enum SampleFormat: Sendable {
        case float32, float64, int16, uint16, int32

        var bytes: Int {
            switch self {
            case .int16, .uint16: 2
            case .float32, .int32: 4
            case .float64: 8
            }
        }
    }

    /// Sample `index` of a decoded block (native byte order), NaN for no data,
    /// SRTM's −32768 and anything no ground on Earth has.
    func sample(_ block: UnsafeRawBufferPointer, _ index: Int) -> Double {
        let at = index * format.bytes
        guard at + format.bytes <= block.count else { return .nan }
        let v: Double
        switch format {
        case .float32: v = Double(block.loadUnaligned(fromByteOffset: at, as: Float.self))
        case .float64: v = block.loadUnaligned(fromByteOffset: at, as: Double.self)
        case .int16: v = Double(block.loadUnaligned(fromByteOffset: at, as: Int16.self))
        case .uint16: v = Double(block.loadUnaligned(fromByteOffset: at, as: UInt16.self))
        case .int32: v = Double(block.loadUnaligned(fromByteOffset: at, as: Int32.self))
        }
        if let noData, v == noData { return .nan }
        // The Dead Sea shore is at −430 m, Everest 8849 m: beyond is a fill value.
        return v.isFinite && v > -1000 && v < 9000 ? v : .nan
    }
}

/// One open GeoTIFF through libtiff; closed (and libtiff's buffers freed) when it goes.
final class GeoTIFFFile {
    private let tiff: OpaquePointer
    private let errors: UnsafeMutablePointer<moonrunner_tiff_errors>
    let name: String
    /// No single allocation of libtiff's may exceed this (a corrupt size field), bytes.
    static let maxAllocation = 64 << 20

    init(path: String, name: String) throws(TerrainFileError) {
        self.name = name
        errors = .allocate(capacity: 1)
        errors.initialize(to: moonrunner_tiff_errors())
        guard let t = moonrunner_tiff_open(path, errors, Self.maxAllocation) else {
            let why = Self.text(errors)
            errors.deallocate()
            throw TerrainFileError(file: name, "is not a TIFF libtiff can read" + (why.isEmpty ? "" : " (\(why))"))
        }
        tiff = t
    }

    deinit {
        TIFFClose(tiff)
        errors.deallocate()
    }

    private static func text(_ e: UnsafeMutablePointer<moonrunner_tiff_errors>) -> String {
        withUnsafeBytes(of: e.pointee.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private func u32(_ tag: UInt32) -> Int? {
        var v: UInt32 = 0
        return moonrunner_tiff_u32(tiff, tag, &v) == 1 ? Int(v) : nil
    }

    private func u16(_ tag: UInt32) -> Int? {
        var v: UInt16 = 0
        return moonrunner_tiff_u16(tiff, tag, &v) == 1 ? Int(v) : nil
    }

    /// What the postings are and how they are stored; what this reader cannot take is said.
    func layout() throws(TerrainFileError) -> GeoTIFFLayout {
        guard let width = u32(UInt32(TIFFTAG_IMAGEWIDTH)), let height = u32(UInt32(TIFFTAG_IMAGELENGTH)),
              width >= 2, height >= 2 else { throw TerrainFileError(file: name, "has no image size") }
        guard u16(UInt32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1 == 1 else {
            throw TerrainFileError(file: name, "has more than one sample per posting (not an elevation model)")
        }
        let bits = u16(UInt32(TIFFTAG_BITSPERSAMPLE)) ?? 1
        let kind = u16(UInt32(TIFFTAG_SAMPLEFORMAT)) ?? Int(SAMPLEFORMAT_UINT)
        let format: GeoTIFFLayout.SampleFormat
        switch (kind, bits) {
        case (Int(SAMPLEFORMAT_IEEEFP), 32): format = .float32
        case (Int(SAMPLEFORMAT_IEEEFP), 64): format = .float64
        case (Int(SAMPLEFORMAT_INT), 16): format = .int16
        case (Int(SAMPLEFORMAT_UINT), 16): format = .uint16
        case (Int(SAMPLEFORMAT_INT), 32): format = .int32
        default: throw TerrainFileError(file: name, "holds \(bits)-bit samples of format \(kind) (float or 16/32-bit integers are read)")
        }
        let compression = u16(UInt32(TIFFTAG_COMPRESSION)) ?? 1
        guard TIFFIsCODECConfigured(UInt16(compression)) == 1 else {
            throw TerrainFileError(file: name, "is compressed with scheme \(compression), which this libtiff cannot decode")
        }
        let tiled = TIFFIsTiled(tiff) != 0
        let blockWidth = tiled ? u32(UInt32(TIFFTAG_TILEWIDTH)) ?? 0 : width
        let blockHeight = tiled ? u32(UInt32(TIFFTAG_TILELENGTH)) ?? 0 : min(u32(UInt32(TIFFTAG_ROWSPERSTRIP)) ?? height, height)
        guard blockWidth > 0, blockHeight > 0, blockWidth * blockHeight * format.bytes <= Self.maxAllocation else {
            throw TerrainFileError(file: name, "has blocks of \(blockWidth) × \(blockHeight) postings")
        }
        let noData = moonrunner_tiff_text(tiff, UInt32(TIFFTAG_GDAL_NODATA)).flatMap { Double(String(cString: $0)) }
        return GeoTIFFLayout(width: width, height: height, blockWidth: blockWidth, blockHeight: blockHeight, tiled: tiled,
                             format: format, noData: noData)
    }

    /// The three GeoTIFF tags (empty arrays when absent: `GeoTIFFGeoreference` says which is missing).
    func georeference() -> GeoTIFFGeoreference {
        GeoTIFFGeoreference(pixelScale: array(33550, TIFF_DOUBLE, Double.self), tiepoint: array(33922, TIFF_DOUBLE, Double.self),
                            geoKeys: array(34735, TIFF_SHORT, UInt16.self))
    }

    private func array<T>(_ tag: UInt32, _ type: TIFFDataType, _: T.Type) -> [T] {
        var count: UInt32 = 0
        var values: UnsafeRawPointer?
        guard moonrunner_tiff_array(tiff, tag, type, &count, &values) == 1, let values, count > 0, count < 10_000 else { return [] }
        return Array(UnsafeBufferPointer(start: values.assumingMemoryBound(to: T.self), count: Int(count)))
    }

    /// Decodes the block whose first posting is (`row`, `column`) into scratch memory of its own
    /// (mapped for this block and unmapped after `body`); nothing when it cannot be read.
    func decodeBlock(row: Int, column: Int, layout: GeoTIFFLayout, _ body: (UnsafeRawBufferPointer) -> Void) {
        let size = layout.blockWidth * layout.blockHeight * layout.format.bytes
        guard let scratch = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              scratch != MAP_FAILED else { return }
        defer { munmap(scratch, size) }
        let n: Int
        if layout.tiled {
            n = Int(TIFFReadEncodedTile(tiff, TIFFComputeTile(tiff, UInt32(column), UInt32(row), 0, 0), scratch, tmsize_t(size)))
        } else {
            n = Int(TIFFReadEncodedStrip(tiff, TIFFComputeStrip(tiff, UInt32(row), 0), scratch, tmsize_t(size)))
        }
        guard n > 0 else { return }
        body(UnsafeRawBufferPointer(start: scratch, count: n))
    }
}
