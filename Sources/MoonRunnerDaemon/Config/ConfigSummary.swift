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
            "state_dir": s(c.stateDir),
            "socket": .object(["path": s(c.socketPath), "mode": s(String(c.socketMode, radix: 8)),
                               "control_group": s(c.controlGroup), "max_line_bytes": i(c.maxLineBytes),
                               "max_clients": i(c.maxClients), "idle_timeout_s": n(c.idleTimeout),
                               "max_requests_per_s": i(c.maxRequestsPerSecond)]),
            "store": .object(["commit_interval_s": n(c.commitInterval), "recovery_window_s": n(c.recoveryWindow),
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
            "hooks": .object(["on_transition": s(c.hookCommand), "timeout_s": n(c.hookTimeout)]),
            "log_level": s(c.logLevel),
        ])
    }
}
