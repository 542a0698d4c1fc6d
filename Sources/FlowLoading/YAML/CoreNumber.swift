/// Numbers as the YAML 1.2 core schema spells them, and nothing else: decimal integers with an
/// optional sign, `0o` octal, `0x` hexadecimal; floats `1.5`, `.5`, `1.`, `2e3`, `-.inf`,
/// `.nan`. Swift's `Int` and `Double` parsers accept other spellings (`0x1p3`, `infinity`,
/// `nan`) and reject some of these (`0o17`), so a plain scalar is matched here, byte by byte.
enum CoreNumber {
    static func kind(of text: String) -> Node.ScalarKind {
        let bytes = Array(text.utf8)
        if let value = integer(bytes) { return .int(value) }
        if isFloat(bytes) { return .float }
        // A decimal integer too large for Int is still a number, not a word.
        return isDecimal(unsigned(bytes[...])) ? .float : .string
    }

    /// `bytes` without a leading `+` or `-`.
    static func unsigned(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`, if it fits in an `Int`.
    static func integer(_ bytes: [UInt8]) -> Int? {
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let digits = bytes[2...]
            switch bytes[1] {
            case UInt8(ascii: "o"): return digits.allSatisfy(isOctal) ? Int(String(decoding: digits, as: UTF8.self), radix: 8) : nil
            case UInt8(ascii: "x"): return digits.allSatisfy(isHex) ? Int(String(decoding: digits, as: UTF8.self), radix: 16) : nil
            default: break
            }
        }
        guard isDecimal(unsigned(bytes[...])) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self))  // Int reads a leading + or - itself
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?\.(inf|Inf|INF)` or
    /// `\.nan|\.NaN|\.NAN`.
    static func isFloat(_ bytes: [UInt8]) -> Bool {
        if [".nan", ".NaN", ".NAN"].contains(where: { $0.utf8.elementsEqual(bytes) }) { return true }
        var rest = unsigned(bytes[...])
        if [".inf", ".Inf", ".INF"].contains(where: { $0.utf8.elementsEqual(rest) }) { return true }
        let whole = rest.prefix(while: isDigit)
        rest = rest[whole.endIndex...]
        var fraction = rest[rest.startIndex..<rest.startIndex]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            fraction = rest.prefix(while: isDigit)
            rest = rest[fraction.endIndex...]
        } else if whole.isEmpty {
            return false
        }
        // `.` alone is not a number; `1.` and `.5` are.
        guard !whole.isEmpty || !fraction.isEmpty else { return false }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = unsigned(rest.dropFirst())
            guard !rest.isEmpty, rest.allSatisfy(isDigit) else { return false }
            return true
        }
        return rest.isEmpty
    }

    static func isDecimal(_ bytes: ArraySlice<UInt8>) -> Bool { !bytes.isEmpty && bytes.allSatisfy(isDigit) }
    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    static func isOctal(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) }
    static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}
