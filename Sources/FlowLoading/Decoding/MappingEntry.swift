/// One `key: value` of a mapping whose key is a string.
///
/// The key is kept as its text and position, not as its node: entries are copied as a task is
/// decoded, and a lighter entry is cheaper to copy.
struct MappingEntry {
    var key: String
    var keyMark: Mark
    var value: Node
}

/// Where something is written: 1-based line and column, as nodes carry them.
struct Mark {
    var line: Int32
    var column: Int32
}

extension Node {
    var mark: Mark { Mark(line: line, column: column) }
}
