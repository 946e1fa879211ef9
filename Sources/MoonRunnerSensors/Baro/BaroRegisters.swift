/// Register access for the barometer drivers: one bus, one address, one
/// scratch buffer allocated once (no allocation per reading), and every
/// `I2CError` wrapped as the driver's error.
final class BaroRegisters {
    let bus: any I2CBus
    let address: UInt8
    /// What the last `readRegisters` read, from index 0.
    let buffer: UnsafeMutableRawBufferPointer

    init(bus: any I2CBus, address: UInt8) {
        self.bus = bus
        self.address = address
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    subscript(i: Int) -> UInt8 { buffer[i] }

    /// The bytes `0..<count` of the last read.
    func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }

    func select() throws(BaroDriverError) {
        do { try bus.select(address: address) } catch { throw .bus(error) }
    }

    func read(_ register: UInt8) throws(BaroDriverError) -> UInt8 {
        do { return try bus.readRegister(register) } catch { throw .bus(error) }
    }

    /// Reads `count` (at most 32) consecutive registers into `buffer`.
    func readRegisters(_ register: UInt8, count: Int) throws(BaroDriverError) {
        do {
            try bus.readRegisters(register, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch { throw .bus(error) }
    }

    func write(_ register: UInt8, _ value: UInt8) throws(BaroDriverError) {
        do { try bus.writeRegister(register, value: value) } catch { throw .bus(error) }
    }
}
