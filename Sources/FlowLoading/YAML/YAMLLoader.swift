import CYAML
import FlowModel

/// A loaded document: its root (nil for an empty file) and the problems found on the way.
public struct YAMLDocument: Sendable {
    public var root: Node?
    public var diagnostics: [Diagnostic]
}

/// Turns YAML text into a `Node` tree through libyaml's event API.
public enum YAMLLoader {
    /// Loads one document. Throws `YAMLError` for problems that leave no tree to decode (syntax,
    /// limits); gathers the rest (duplicate keys, unknown tags) into the document's diagnostics.
    public static func load(_ bytes: [UInt8], file: String, limits: YAMLLimits = YAMLLimits()) throws -> YAMLDocument {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLError(Diagnostic(.yamlSyntax(problem: "cannot initialize the YAML parser", context: nil),
                                       at: SourceLocation(file: file, line: 1, column: 1)))
        }
        defer { yaml_parser_delete(parser) }

        return try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(file: file, limits: limits)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(parser, &event) == 1 else {
                    throw YAMLError(syntaxDiagnostic(parser.pointee, bytes: buffer, file: file))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.handle(event)
            }
            return YAMLDocument(root: builder.root, diagnostics: builder.diagnostics)
        }
    }

    /// libyaml's own problem text at its (1-based) position; reader errors only carry an offset.
    static func syntaxDiagnostic(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>, file: String) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        let location: SourceLocation
        if parser.error == YAML_READER_ERROR {
            location = position(ofOffset: parser.problem_offset, in: bytes, file: file)
        } else {
            location = SourceLocation(file: file, line: Int(parser.problem_mark.line) + 1,
                                      column: Int(parser.problem_mark.column) + 1)
        }
        var message = Diagnostic.Message.yamlSyntax(problem: problem, context: context)
        if parser.error == YAML_READER_ERROR, parser.problem_value >= 0 {
            let hex = String(parser.problem_value, radix: 16, uppercase: true)
            message.text += " (byte 0x\(hex.count < 2 ? "0" + hex : hex))"
        }
        return Diagnostic(message, at: location)
    }

    /// Line and column of a byte offset, counting columns in characters as libyaml does.
    static func position(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
        var line = 1
        var column = 1
        for byte in bytes.prefix(min(offset, bytes.count)) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: file, line: line, column: column)
    }
}
