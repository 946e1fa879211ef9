/// A YAML null (`~`, `null`, an empty value) as `YAMLReader` hands it over:
/// the reader does without Foundation, so without its `NSNull`.
public struct YAMLNull: Sendable, Equatable {
    public init() {}
}
