import Glibc

// printf's number conversions without Foundation. `String(format:)` lives in
// the full Foundation, which links ICU's 30 MB of locale data into every
// static executable that uses it; the command-line tool and the
// announcer need none of it. On Linux `String(format:)` hands `%f`, `%d` and
// `%X` to the C library's printf, and so do these, so the text is the same
// byte for byte (rounding of ties, `-0`, `nan`, `inf` included).

extension Double {
    /// `%.Nf` (`%W.Nf` with a width): `3.14159.fixed(2)` is `"3.14"`; right-aligned in `width` columns.
    public func fixed(_ decimals: Int, width: Int = 0) -> String {
        cFormat("%*.*f", Int32(width), Int32(decimals), self)
    }
}

extension BinaryInteger {
    /// `%0Wd`: `7.zeroPadded(2)` is `"07"`; a minus sign counts in the width, as in C.
    public func zeroPadded(_ width: Int) -> String {
        cFormat("%0*lld", Int32(width), Int64(self))
    }

    /// `%0Wx` (or `%0WX`): `0xAB.hex(width: 4, uppercase: true)` is `"00AB"`.
    public func hex(width: Int, uppercase: Bool = false) -> String {
        let bits = UInt64(truncatingIfNeeded: self)
        return uppercase ? cFormat("%0*llX", Int32(width), bits) : cFormat("%0*llx", Int32(width), bits)
    }
}

/// C's vsnprintf into a stack buffer; a longer result (a huge `%f`) is formatted again into one that fits.
private func cFormat(_ format: StaticString, _ arguments: CVarArg...) -> String {
    let format = UnsafeRawPointer(format.utf8Start).assumingMemoryBound(to: CChar.self)
    let fitted: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        let n = withVaList(arguments) { vsnprintf(buffer.baseAddress, 64, format, $0) }
        guard n >= 0, n < 64 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(n)), as: UTF8.self)
    }
    if let fitted { return fitted }
    let length = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) })
    var bytes = [CChar](repeating: 0, count: max(length, 0) + 1)
    _ = withVaList(arguments) { vsnprintf(&bytes, bytes.count, format, $0) }
    return String(decoding: bytes.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
