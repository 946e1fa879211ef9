/// libFuzzer's entry point for the Heart Rate Measurement parser (`make fuzz-hr`):
/// compiled with `HeartRateNotification.swift` alone, outside the package build.
///
/// Any bytes a strap (or a radio's noise) could send: the parser must either
/// refuse them with a `HeartRateParseError` or read a measurement that its own
/// encoder writes back to the same measurement. A crash, a sanitizer report or
/// a broken round trip stops the fuzzer with the input that did it.
@_cdecl("LLVMFuzzerTestOneInput")
public func heartRateNotificationFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    guard let m = try? HeartRateNotification.parse(bytes) else { return 0 }
    let wide = (bytes.first ?? 0) & HeartRateNotification.Flag.uint16Value != 0
    guard let again = try? HeartRateNotification.parse(m.encoded(wide: wide)) else { fatalError("re-encoded bytes refused: \(Array(bytes))") }
    // A strap's "contact not supported" (0b00 or 0b01) reads the same either way.
    if again != m { fatalError("round trip changed \(m) into \(again) for \(Array(bytes))") }
    if m.rrIntervals.count * 2 > bytes.count { fatalError("more RR intervals than bytes: \(Array(bytes))") }
    return 0
}
