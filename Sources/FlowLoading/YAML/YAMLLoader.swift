import CYAML
import FlowModel

/// A loaded document: its root (nil for an empty file) and the problems found on the way.
package struct YAMLDocument: Sendable {
    package var root: Node?
    package var diagnostics: [Diagnostic]
    /// Where a tag was refused (reported in `diagnostics`): the node's value is in doubt there.
    package var refusedTags: Set<SourceLocation> = []
}

/// Turns YAML text into a `Node` tree through libyaml's event API.
package enum YAMLLoader {
    /// Inputs at least this large are parsed on a thread of their own (`ConcurrentParser`);
    /// below it a thread would cost more than it saves.
    package static let concurrentParsingFrom = 256 << 10

    /// Loads one document. Throws `YAMLError` for problems that leave no tree to decode (syntax,
    /// limits); gathers the rest (duplicate keys, unknown tags) into the document's diagnostics.
    /// `concurrentFrom` is the input size from which libyaml parses on a thread of its own.
    package static func load(
        _ bytes: [UInt8], file: String, limits: YAMLLimits = YAMLLimits(), concurrentFrom: Int = concurrentParsingFrom
    ) throws -> YAMLDocument {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLError(
                Diagnostic(
                    .yamlSyntax(problem: "cannot initialize the YAML parser", context: nil),
                    at: SourceLocation(file: file, line: 1, column: 1)))
        }
        defer { yaml_parser_delete(parser) }

        return try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file, limits: limits)
            if buffer.count >= concurrentFrom {
                let events = ConcurrentParser(parser: parser, bytes: buffer, file: file)
                defer { events.finish() }
                while let batch = try events.next() {
                    defer { ConcurrentParser.delete(batch) }
                    for event in batch where event.type != YAML_STREAM_END_EVENT { try builder.handle(event) }
                }
            } else {
                var event = yaml_event_t()
                while true {
                    guard yaml_parser_parse(parser, &event) == 1 else {
                        throw YAMLError(syntaxDiagnostic(parser.pointee, bytes: buffer, file: file))
                    }
                    defer { yaml_event_delete(&event) }
                    if event.type == YAML_STREAM_END_EVENT { break }
                    try builder.handle(event)
                }
            }
            return YAMLDocument(root: builder.root, diagnostics: builder.diagnostics, refusedTags: builder.refusedTags)
        }
    }

    /// libyaml's own problem text at its (1-based) position; reader errors only carry an offset.
    ///
    /// An unclosed bracket, brace or quote is found far from where it was opened, often at the
    /// end of the file, and a line with no `:` (`oops` among a task's keys) at the next key: the
    /// error then points at the opening or at that line, where the fix goes, and a note tells
    /// where libyaml gave up. Other problems are reported where libyaml found them.
    static func syntaxDiagnostic(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>, file: String) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        if parser.error == YAML_READER_ERROR {
            if problem.contains("UTF-8"), let offset = firstByteNotUTF8(in: bytes) {
                return Diagnostic(.notUTF8(bytes[offset]), at: position(ofOffset: offset, in: bytes, file: file))
            }
            var message = Diagnostic.Message.yamlSyntax(problem: problem, context: context)
            if parser.problem_value >= 0 {
                let hex = String(parser.problem_value, radix: 16, uppercase: true)
                message.text += " (byte 0x\(hex.count < 2 ? "0" + hex : hex))"
            }
            return Diagnostic(message, at: position(ofOffset: parser.problem_offset, in: bytes, file: file))
        }
        let problemMark = parser.problem_mark
        let problemAt = SourceLocation(file: file, line: Int(problemMark.line) + 1, column: Int(problemMark.column) + 1)
        if isIndentingTab(at: problemMark, in: bytes) {
            return Diagnostic(.tabIndentation, at: problemAt)
        }
        if let key = tooLongKey(endingAt: problemMark, in: bytes) {
            return Diagnostic(.keyTooLong(characters: key.length), at: SourceLocation(file: file, line: problemAt.line, column: key.column))
        }
        var message = Diagnostic.Message.yamlSyntax(problem: problem, context: context)
        if problem == "mapping values are not allowed in this context" {
            // The usual cause: `shell: echo "lint: 3 problems"`, a plain value with ': ' inside.
            message.hint = "a ': ' inside an unquoted value starts a mapping; quote the whole value, or write it as a block with |"
        }
        let contextMark = parser.context_mark
        let opensSomething = context.map { $0.contains("flow") || $0.contains("quoted") || $0.contains("simple key") } ?? false
        guard opensSomething, contextMark.line < problemMark.line else { return Diagnostic(message, at: problemAt) }
        message.hint = "it starts here; the problem was found at line \(problemAt.line), column \(problemAt.column)"
        return Diagnostic(message, at: SourceLocation(file: file, line: Int(contextMark.line) + 1, column: Int(contextMark.column) + 1))
    }

    /// A tab with only blanks before it on its line: libyaml's "cannot start any token" there
    /// means the line is indented with a tab. Found by the mark's line and column, which count
    /// as `lineBytes` does: its `index` counts characters, not bytes.
    static func isIndentingTab(at mark: yaml_mark_t, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let line = lineBytes(Int(mark.line), in: bytes), Int(mark.column) < line.count else { return false }
        let tab = line.lowerBound + Int(mark.column)
        // Only blanks before it: one byte each, so the column is the byte's place.
        return bytes[tab] == UInt8(ascii: "\t") && bytes[line.lowerBound..<tab].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    /// The offset of the first byte that starts no valid UTF-8 character. libyaml stops at the
    /// same place but names the byte after a lead byte left without its continuation (after a
    /// Latin-1 `é`, 0xE9, the closing quote), one column on.
    static func firstByteNotUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// The offset of the first byte libyaml counts in its marks: past a leading UTF-8 BOM.
    static func textStart(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Line and column of a byte offset, counted as libyaml counts its marks: in characters, a
    /// leading BOM not counted, and a line ended by any break libyaml reads (`lineBreakLength`).
    static func position(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
        let end = min(offset, bytes.count)
        var index = min(textStart(in: bytes), end)
        var line = 1
        var column = 1
        while index < end {
            let breakLength = lineBreakLength(at: index, in: bytes)
            if breakLength > 0 {
                line += 1
                column = 1
                index += breakLength
                continue
            }
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return SourceLocation(file: file, line: line, column: column)
    }

    /// The length of the line break at `index` as libyaml reads one: LF, CRLF, a CR alone, NEL,
    /// LS or PS; 0 for none.
    static func lineBreakLength(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let next = { (ahead: Int) in index + ahead < bytes.count ? bytes[index + ahead] : 0 }
        switch bytes[index] {
        case 0x0A: return 1
        case 0x0D: return next(1) == 0x0A ? 2 : 1
        case 0xC2 where next(1) == 0x85: return 2
        case 0xE2 where next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9): return 3
        default: return 0
        }
    }

    /// The bytes of line `line` (0-based, as libyaml's marks count lines), without its break;
    /// nil past the file's end. By every break libyaml reads: a file with CR line ends has no
    /// `\n` at all.
    static func lineBytes(_ line: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var index = textStart(in: bytes)
        var start = index
        var number = 0
        while index < bytes.count {
            let breakLength = lineBreakLength(at: index, in: bytes)
            guard breakLength > 0 else {
                index += 1
                continue
            }
            if number == line { return start..<index }
            number += 1
            index += breakLength
            start = index
        }
        return number == line ? start..<bytes.count : nil
    }
}
