/// A position in a workflow file, 1-based as editors count, converted once from libyaml's marks.
package struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int

    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    package var description: String { "\(file):\(line):\(column)" }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

/// A value together with the place in the file it came from.
package struct Located<Value: Sendable & Hashable>: Sendable, Hashable {
    package var value: Value
    package var location: SourceLocation

    package init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}
