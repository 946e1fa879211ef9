import MoonRunnerProtocol

/// The effective configuration as `?CONFIG;` shows it, keyed like the file.
enum ConfigSummary {
    static func json(_ c: DaemonConfig) -> JSONValue {
        func n(_ d: Double) -> JSONValue { .number(d) }
        func i(_ v: Int) -> JSONValue { .number(Double(v)) }
        func s(_ v: String) -> JSONValue { .string(v) }
        return .object([
            "gpsd": .object(["host": s(c.gpsdHost), "port": i(c.gpsdPort)]),
            "imu": .object(["source": s(c.imuSource), "rate_hz": i(c.imuRateHz), "accel_range_g": i(c.imuAccelRangeG),
                            "gyro_range_dps": i(c.imuGyroRangeDps)]),
            "baro": .object(["source": s(c.baroSource)]),
            "elevation": .object(["dem_dir": s(c.demDir)]),
            "hr": .object(["source": s(c.hrSource), "zone_model": s(c.hrZoneModel.rawValue),
                           "zone_bounds": .array(c.hrZoneBounds.map(n)), "max_bpm": c.hrMaxBPM.map(n) ?? .null,
                           "resting_bpm": n(c.hrRestingBPM), "age": n(c.hrAge), "sex": s(c.hrSex.rawValue)]),
            "state_dir": s(c.stateDir),
            "socket": .object(["path": s(c.socketPath), "mode": s(String(c.socketMode, radix: 8)),
                               "control_group": s(c.controlGroup), "max_line_bytes": i(c.maxLineBytes),
                               "max_clients": i(c.maxClients), "idle_timeout_s": n(c.idleTimeout),
                               "max_requests_per_s": i(c.maxRequestsPerSecond)]),
            "store": .object(["commit_interval_s": n(c.commitInterval),
                              "consolidate_interval_s": n(c.consolidateInterval), "recovery_window_s": n(c.recoveryWindow),
                              "retention_days": i(c.retentionDays), "raw_imu_capture_mb": n(c.rawIMUCaptureMB)]),
            "session": .object(["activity": s(c.defaultActivity.rawValue)]),
            "units": s(c.units.rawValue),
            "body_mass_kg": n(c.bodyMassKg),
            "steps": .object(["detector": s(c.detector.rawValue)]),
            "gps_filter": .object(["max_accuracy_m": n(c.gpsMaxAccuracy), "max_age_s": n(c.gpsMaxAge),
                                   "max_speed_mps": n(c.gpsMaxSpeed)]),
            "auto_pause": .object(["enabled": .bool(c.autoPauseEnabled), "dwell_s": n(c.autoPauseDwell),
                                   "resume_steps": i(c.autoPauseResumeSteps), "move_speed_mps": n(c.autoPauseMoveSpeed),
                                   "gyro_threshold_rad_s": n(c.autoPauseGyroThreshold)]),
            "course": .object(["off_course_m": n(c.courseOffDistance),
                               "to_go_alerts_m": .array(c.courseToGoAlerts.map(n)),
                               "finish_m": n(c.courseFinishDistance), "max_upload_kb": i(c.courseMaxUploadKB)]),
            "destination": .object(["arrive_radius_m": n(c.arriveRadius)]),
            "hooks": .object(["on_transition": s(c.hookCommand), "timeout_s": n(c.hookTimeout)]),
            "log_level": s(c.logLevel),
            "battery": battery(c.battery),
        ])
    }

    private static func battery(_ b: BatterySettings) -> JSONValue {
        .object(["source": .string(b.source), "power_supply_dir": .string(b.powerSupplyDir), "interval_s": .number(b.interval),
                 "warn_percent": .array(b.warnPercent.map { .number($0) }), "critical_percent": .number(b.criticalPercent),
                 "critical_volts": b.criticalVolts.map { .number($0) } ?? .null, "confirm_s": .number(b.confirm),
                 "capacity_mah": .number(b.capacityMAh), "poweroff": .bool(b.powerOff),
                 "poweroff_delay_s": .number(b.powerOffDelay)])
    }
}
