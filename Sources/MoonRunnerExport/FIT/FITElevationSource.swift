import MoonRunnerCore

/// Where a session's elevation came from, in its FIT file: FIT's profile has
/// no field for it, so it goes in developer fields on the session message
/// (`altitude_source` and each source's share of the track's points in %),
/// as GPX's `desc`, TCX's `Notes` and GeoJSON's `altitude_source` and
/// `altitude_shares` say it. Garmin Connect and Strava skip developer
/// fields; Garmin's SDK and the FIT viewers show them by name. Written only
/// when a terrain model gave any of the altitudes, like the other formats'
/// note, so other sessions' files are as before.
enum FITElevationSource {
    /// MoonRunner's developer application id (a UUID, fixed: readers key the fields by it).
    static let applicationID: [UInt8] = [47, 172, 67, 127, 158, 173, 66, 150, 166, 47, 78, 9, 189, 21, 216, 38]
    static let developerIndex: UInt8 = 0

    private enum Local {
        static let developerDataID: UInt8 = 7
        static let fieldDescription: UInt8 = 8
    }

    private enum Message {
        static let fieldDescription: UInt16 = 206
        static let developerDataID: UInt16 = 207
    }

    private struct Field {
        var number: UInt8
        var name: String
        var type: FITBaseType
        var size: UInt8
        var units: String
    }

    /// The session's fields, by number.
    private static let fields = [
        Field(number: 0, name: "altitude_source", type: .string, size: 12, units: ""),
        Field(number: 1, name: "altitude_barometric_share", type: .uint8, size: 1, units: "%"),
        Field(number: 2, name: "altitude_dem_share", type: .uint8, size: 1, units: "%"),
        Field(number: 3, name: "altitude_gps_share", type: .uint8, size: 1, units: "%"),
    ]
    private static let nameSize: UInt8 = 32
    private static let unitsSize: UInt8 = 4

    static func applies(to session: ExportSession) -> Bool { session.stats.demPoints > 0 }

    /// The session definition's developer fields.
    static var sessionFields: [FITDeveloperFieldDefinition] {
        fields.map { FITDeveloperFieldDefinition(number: $0.number, size: $0.size, developerIndex: developerIndex) }
    }

    /// developer_data_id and one field_description per field: they come before any definition that uses them.
    static func describe(into fit: inout FITEncoder) {
        fit.define(local: Local.developerDataID, global: Message.developerDataID, fields: [
            .init(number: 1, type: .byte, count: UInt8(applicationID.count)),  // application_id
            .init(number: 2, type: .uint16),                                   // manufacturer_id
            .init(number: 3, type: .uint8),                                    // developer_data_index
            .init(number: 4, type: .uint32),                                   // application_version
        ])
        fit.begin(local: Local.developerDataID)
        fit.bytes(applicationID)
        fit.uint16(FITProfile.Manufacturer.development)
        fit.uint8(developerIndex)
        fit.uint32(1)
        fit.define(local: Local.fieldDescription, global: Message.fieldDescription, fields: [
            .init(number: 0, type: .uint8),                       // developer_data_index
            .init(number: 1, type: .uint8),                       // field_definition_number
            .init(number: 2, type: .uint8),                       // fit_base_type_id
            .init(number: 3, type: .string, count: nameSize),     // field_name
            .init(number: 8, type: .string, count: unitsSize),    // units
        ])
        for f in fields {
            fit.begin(local: Local.fieldDescription)
            fit.uint8(developerIndex)
            fit.uint8(f.number)
            fit.uint8(f.type.rawValue)
            fit.string(f.name, size: nameSize)
            fit.string(f.units, size: unitsSize)
        }
    }

    /// The session message's developer values, in `fields`' order.
    static func writeSessionValues(_ session: ExportSession, into fit: inout FITEncoder) {
        let s = session.stats.altitudeShares
        fit.string(session.stats.altitudeSource.rawValue, size: fields[0].size)
        for share in [s.barometric, s.dem, s.gps] {
            fit.uint8(UInt8(clamping: Int((share * 100).rounded())))
        }
    }
}
