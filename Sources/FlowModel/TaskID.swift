/// The name of a task: the key under `tasks:`, `[A-Za-z0-9_.-]{1,64}`; for one combination of a
/// task's `matrix`, that name and its values, `test[linux,3.11]`.
package typealias TaskID = String

extension TaskID {
    /// Whether `self` has the syntax of a task id.
    package var isValidTaskID: Bool {
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}

extension TaskID {
    /// Whether `self` can name a task in `needs` or on the command line: a task id, or a matrix
    /// combination's `ID[VALUE,VALUE]` whose values have a task id's syntax.
    package var isValidTaskReference: Bool {
        // `NS:ID`: a task of an included file, namespaces nesting as includes do.
        if let colon = lastIndex(of: ":"), firstIndex(of: "[").map({ colon < $0 }) ?? true {
            return self[..<colon].split(separator: ":", omittingEmptySubsequences: false).allSatisfy { String($0).isValidTaskID }
                && String(self[index(after: colon)...]).isValidTaskReference
        }
        guard let open = firstIndex(of: "["), last == "]" else { return isValidTaskID }
        let values = self[index(after: open)..<index(before: endIndex)]
        return String(self[..<open]).isValidTaskID
            && values.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { String($0).isValidTaskID }
    }
}
