/// Reads what `PlanWriter` wrote, checking every bound: bytes cut short or damaged make a
/// `CompiledPlanError`, never a read past the end or a value out of its range.
struct PlanReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var table: [String] = []

    /// Reads the string table at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) throws(CompiledPlanError) {
        self.bytes = bytes
        let count = try count()
        // Each string takes at least its length's byte: a count beyond that is damage.
        guard count <= bytes.count - offset else { throw CompiledPlanError() }
        table.reserveCapacity(count)
        for _ in 0..<count {
            let length = try self.count()
            guard length <= bytes.count - offset else { throw CompiledPlanError() }
            let text = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
            table.append(String(decoding: text, as: UTF8.self))
            offset += length
        }
    }

    /// Whether every byte was read: a plan followed by more bytes is not the plan written.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func unsigned() throws(CompiledPlanError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw CompiledPlanError()
    }

    /// A count or an index: at most `Int32.max`, so that no damaged count asks for a huge array.
    mutating func count() throws(CompiledPlanError) -> Int {
        let value = try unsigned()
        guard value <= UInt64(Int32.max) else { throw CompiledPlanError() }
        return Int(value)
    }

    mutating func int64() throws(CompiledPlanError) -> Int64 {
        let value = try unsigned()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func int() throws(CompiledPlanError) -> Int { Int(try int64()) }

    mutating func bool() throws(CompiledPlanError) -> Bool {
        guard offset < bytes.count, bytes[offset] <= 1 else { throw CompiledPlanError() }
        offset += 1
        return bytes[offset - 1] == 1
    }

    mutating func string() throws(CompiledPlanError) -> String {
        let index = try count()
        guard index < table.count else { throw CompiledPlanError() }
        return table[index]
    }

    /// Checks a string as `string()` does, without taking it.
    mutating func stringIndex() throws(CompiledPlanError) {
        guard try count() < table.count else { throw CompiledPlanError() }
    }

    /// How many bytes are left to read.
    var remainingCount: Int { bytes.count - offset }

    mutating func optional<Value>(_ read: (inout Self) throws(CompiledPlanError) -> Value) throws(CompiledPlanError) -> Value? {
        try bool() ? try read(&self) : nil
    }

    mutating func array<Element>(_ read: (inout Self) throws(CompiledPlanError) -> Element) throws(CompiledPlanError) -> [Element] {
        let count = try count()
        // Every element takes at least a byte.
        guard count <= bytes.count - offset else { throw CompiledPlanError() }
        var values: [Element] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }

    mutating func strings() throws(CompiledPlanError) -> [String] { try array { (reader) throws(CompiledPlanError) in try reader.string() } }

    /// What `PlanWriter.sized` wrote, read with `read`, which must take exactly its bytes.
    mutating func sized<Value>(_ read: (inout Self) throws(CompiledPlanError) -> Value) throws(CompiledPlanError) -> Value {
        try sized(at: try skipSized(), read)
    }

    /// Steps over what `PlanWriter.sized` wrote, returning where it lies to read it later (`sized(at:)`).
    mutating func skipSized() throws(CompiledPlanError) -> Range<Int> {
        let length = try count()
        guard length <= bytes.count - offset else { throw CompiledPlanError() }
        offset += length
        return (offset - length)..<offset
    }

    /// What `PlanWriter.sized` wrote at `range` (from `skipSized`), read with `read`, which must
    /// take exactly those bytes; the reading then goes on where it was.
    mutating func sized<Value>(
        at range: Range<Int>, _ read: (inout Self) throws(CompiledPlanError) -> Value
    ) throws(CompiledPlanError)
        -> Value
    {
        let resume = offset
        offset = range.lowerBound
        let value = try read(&self)
        guard offset == range.upperBound else { throw CompiledPlanError() }
        offset = resume
        return value
    }

    /// A `RawRepresentable` enum by its raw string.
    mutating func raw<Value: RawRepresentable>(_: Value.Type) throws(CompiledPlanError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: try string()) else { throw CompiledPlanError() }
        return value
    }
}

/// Bytes that are not a compiled plan this flowrun wrote: cut short, damaged, or another layout.
package struct CompiledPlanError: Error {}
