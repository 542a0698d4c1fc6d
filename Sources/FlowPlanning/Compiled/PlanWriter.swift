import Foundation

/// Writes the bytes of a compiled plan (`Plan+Compiled`): integers as LEB128 varints (signed
/// ones zigzagged), and each distinct string once in a table ahead of the body, referred to by
/// its index. A 20,000-task plan repeats a few strings (file names, folders) in every task;
/// read back, each distinct one is one String whose storage every task shares.
struct PlanWriter {
    private var body: [UInt8] = []
    private var indexes: [ExactText: Int] = [:]
    private var table: [String] = []

    init() {}

    /// The string table, then the body.
    var bytes: [UInt8] {
        var head = PlanWriter()
        head.count(table.count)
        for string in table {
            head.count(string.utf8.count)
            head.body.append(contentsOf: string.utf8)
        }
        return head.body + body
    }

    mutating func unsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            body.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        body.append(UInt8(value))
    }

    mutating func count(_ value: Int) { unsigned(UInt64(value)) }

    mutating func int(_ value: Int) { int64(Int64(value)) }

    mutating func int64(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func bool(_ value: Bool) { body.append(value ? 1 : 0) }

    mutating func string(_ value: String) {
        if let index = indexes[ExactText(value)] { return count(index) }
        indexes[ExactText(value)] = table.count
        count(table.count)
        table.append(value)
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout Self, Value) -> Void) {
        guard let value else { return bool(false) }
        bool(true)
        write(&self, value)
    }

    mutating func array<Element>(_ values: [Element], _ write: (inout Self, Element) -> Void) {
        count(values.count)
        for value in values { write(&self, value) }
    }

    mutating func strings(_ values: [String]) { array(values) { $0.string($1) } }

    /// What `write` writes, after its length in bytes: a reader may step over it
    /// (`PlanReader.skipSized`) and read it later, or never. Its strings go to the one table.
    mutating func sized(_ write: (inout Self) -> Void) {
        let outer = body
        body = []
        write(&self)
        let inner = body
        body = outer
        count(inner.count)
        body += inner
    }
}

/// A string keyed by its UTF-8 bytes. `String`'s `==` and hash are Unicode canonical
/// equivalence, under which "caf\u{E9}" and "cafe\u{301}" are one key: yet they are two file
/// names, and a plan read back must hold the bytes each field was written with.
private struct ExactText: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    /// Compared with `memcmp`: `utf8.elementsEqual` (and `elementsEqual` of the buffers) went a
    /// byte at a time, ~40 instructions a byte at every string of the plan found in the table.
    static func == (left: Self, right: Self) -> Bool {
        guard left.text.utf8.count == right.text.utf8.count else { return false }
        var left = left.text
        var right = right.text
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in leftBytes.isEmpty || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0 }
        }
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
