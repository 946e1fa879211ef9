/// An optional member of a reply (or of a value a reply carries, such as a
/// cue) that is written as `null` rather than left out, so that it always
/// has the same members (`jq .session`, Python's `reply["session"]`). A
/// missing member still decodes, as nil.
@propertyWrapper
public struct NullCoded<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let v = wrappedValue { try c.encode(v) } else { try c.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// Lets a `NullCoded` member be absent.
    public func decode<T>(_ type: NullCoded<T>.Type, forKey key: Key) throws -> NullCoded<T> {
        try decodeIfPresent(type, forKey: key) ?? NullCoded(wrappedValue: nil)
    }
}
