/// One `key: value` of a mapping whose key is a string.
struct MappingEntry {
    var key: String
    var keyNode: Node
    var value: Node
}
