/// Writes a `YAMLNode` in block style, deterministically: the same node gives the same bytes.
package enum YAMLWriter {
    /// The document, ending with a newline; `header` lines become `# ` comments above it.
    package static func document(_ root: YAMLNode, header: [String] = []) -> String {
        var out = ""
        for line in header { out += line.isEmpty ? "#\n" : "# \(YAMLScalar.comment(line))\n" }
        write(root, indent: 0, into: &out)
        return out
    }

    /// Writes a block node at `indent`; `lead` replaces the indentation of its first line (the
    /// `- ` of a sequence item whose mapping starts on the dash's line).
    private static func write(_ node: YAMLNode, indent: Int, lead: String? = nil, into out: inout String) {
        let pad = String(repeating: " ", count: indent)
        var lead = lead
        switch node {
        case .mapping(let entries):
            for entry in entries {
                if let comment = entry.comment {
                    out += (lead ?? pad) + "# " + YAMLScalar.comment(comment) + "\n"
                    lead = nil
                }
                out += (lead ?? pad) + YAMLScalar.quoted(entry.key) + ":"
                lead = nil
                writeValue(entry.value, indent: indent, into: &out)
            }
        case .sequence(let items):
            for item in items {
                if case .mapping(let entries) = item, !entries.isEmpty {
                    write(item, indent: indent + 2, lead: pad + "- ", into: &out)
                } else {
                    out += pad + "-"
                    writeValue(item, indent: indent, into: &out)
                }
            }
        default:
            out += pad
            writeValue(node, indent: indent - 2, into: &out)
        }
    }

    /// What follows `key:` or `-`: a scalar on the same line, or a nested block below it.
    private static func writeValue(_ value: YAMLNode, indent: Int, into out: inout String) {
        switch value {
        case .string(let text): out += " " + YAMLScalar.quoted(text) + "\n"
        case .literal(let text): out += " " + text + "\n"
        case .text(let text) where !text.utf8.contains(UInt8(ascii: "\n")):
            out += " " + YAMLScalar.quoted(text) + "\n"
        case .text(let text):
            if let block = YAMLScalar.literalBlock(text, indent: indent + 2) {
                out += " |-\n" + block
            } else {
                out += " " + YAMLScalar.doubleQuoted(text) + "\n"
            }
        case .flowSequence(let items):
            out += " [" + items.map(flowItem).joined(separator: ", ") + "]\n"
        case .sequence(let items) where items.isEmpty: out += " []\n"
        case .mapping(let entries) where entries.isEmpty: out += " {}\n"
        case .sequence, .mapping:
            out += "\n"
            write(value, indent: indent + 2, into: &out)
        }
    }

    private static func flowItem(_ node: YAMLNode) -> String {
        switch node {
        case .string(let text): YAMLScalar.quoted(text, inFlow: true)
        case .literal(let text): text
        default: YAMLScalar.doubleQuoted("\(node)")
        }
    }
}
