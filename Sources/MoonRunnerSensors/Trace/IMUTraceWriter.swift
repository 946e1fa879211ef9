import MoonRunnerCore

/// The writing side of the IMU CSV trace format that `IMUTraceReader` reads,
/// so that a trace written anywhere (the daemon's raw capture, tests) reads
/// back the same.
public enum IMUTraceWriter {
    /// The header line, with or without the gyro columns.
    public static func header(gyro: Bool) -> String {
        gyro ? "t,ax,ay,az,gx,gy,gz\n" : "t,ax,ay,az\n"
    }

    /// Appends one sample as a row to `text`. With gyro columns, a sample
    /// without gyro leaves them empty (read back as "no gyro").
    public static func append(_ s: IMUSample, gyro: Bool, to text: inout String) {
        text += "\(s.t),\(s.ax),\(s.ay),\(s.az)"
        if gyro {
            text += s.hasGyro ? ",\(s.gx),\(s.gy),\(s.gz)\n" : ",,,\n"
        } else {
            text += "\n"
        }
    }
}
