import CYAML

extension YAMLLoader {
    /// libyaml's own limit: a simple key (`key: value`, quoted or not) is one only while its
    /// `:` comes within 1024 characters of its start.
    static let simpleKeyLimit = 1024

    /// The column (1-based) and length in characters of a key libyaml refused for its length:
    /// it stopped at a `:` ("mapping values are not allowed", or "could not find expected ':'")
    /// more than 1024 characters after the start of the line's key. Nil for a `:` inside a
    /// plain value (`echo lint: 3`), the usual cause of the first message.
    static func tooLongKey(endingAt mark: yaml_mark_t, in bytes: UnsafeBufferPointer<UInt8>) -> (column: Int, length: Int)? {
        // The line by every break libyaml reads (a file with CR line ends has no `\n`).
        guard let range = lineBytes(Int(mark.line), in: bytes) else { return nil }
        // Columns count characters, as libyaml's marks do.
        let line = Array(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self).unicodeScalars)
        let colon = Int(mark.column)
        guard colon < line.count, line[colon] == ":" else { return nil }
        func isBlank(_ index: Int) -> Bool { line[index] == " " || line[index] == "\t" }
        var key = 0
        while key < colon, isBlank(key) { key += 1 }
        // A list item's key: `- name: ...`.
        while key + 1 < colon, line[key] == "-", isBlank(key + 1) {
            key += 2
            while key < colon, isBlank(key) { key += 1 }
        }
        guard colon - key > simpleKeyLimit else { return nil }
        if line[key] == "\"" || line[key] == "'" {
            var last = colon - 1
            while last > key, isBlank(last) { last -= 1 }
            guard last > key, line[last] == line[key] else { return nil }
        } else if (key..<(colon - 1)).contains(where: { (line[$0] == ":" && isBlank($0 + 1)) || (isBlank($0) && line[$0 + 1] == "#") }) {
            return nil
        }
        return (key + 1, colon - key)
    }
}
