import CYAML
import FlowModel
import Glibc

/// Builds the node tree from libyaml events with an explicit stack, so depth costs no recursion.
struct TreeBuilder {
    let file: String
    let limits: YAMLLimits
    private(set) var root: Node?
    private(set) var diagnostics: [Diagnostic] = []
    /// Where a tag was refused: the node there is not what its tag says, so the decoder's
    /// complaint about its value would be a second error for one mistake.
    private(set) var refusedTags: Set<SourceLocation> = []
    private var stack: [Frame] = []
    private var anchors: [String: Node] = [:]
    /// Scalar bytes of anchored nodes already referenced, so that each is walked once.
    private var anchoredBytes: [String: Int] = [:]
    private var aliasExpansion = 0
    private var aliasBytes = 0
    private var documents = 0

    init(file: String, limits: YAMLLimits) {
        self.file = file
        self.limits = limits
    }

    typealias KeyPosition = (line: Int32, column: Int32)

    /// An open sequence or mapping.
    private struct Frame {
        var isMapping: Bool
        var anchor: String?
        var line: Int32
        var column: Int32
        var items: [Node] = []
        var pairs: [Node.Pair] = []
        var pendingKey: Node?
        var dropNextValue = false
        /// Each `<<` value, with where it was written (an alias's own site, not its anchor's) and
        /// how many of the mapping's own pairs came before it.
        var mergeSources: [(node: Node, line: Int32, column: Int32, ownPairsBefore: Int)] = []
        var keyIndex: [String: KeyPosition]?
        var weight = 1
    }

    mutating func handle(_ event: yaml_event_t) throws {
        let line = Int32(event.start_mark.line) + 1
        let column = Int32(event.start_mark.column) + 1
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 { throw fail(.secondDocument, line, column) }
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = Self.string(data.value, length: data.length)
            // Only an escape (`"\0"`) can write one, in a double-quoted scalar (libyaml refuses
            // a raw one); C strings end there, so it would cut a script, a variable, an argument
            // or a path short without a word.
            if data.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE, memchr(data.value, 0, data.length) != nil {
                diagnostics.append(Diagnostic(.nulInScalar, at: location(line, column)))
            }
            var isPlain = data.style == YAML_PLAIN_SCALAR_STYLE
            if let tag = data.tag.map({ Self.string($0) }) {
                switch CoreTag.reading(scalar: text, tag: tag) {
                case .string: isPlain = false
                case .typed: isPlain = true
                case .refused(let message): refuseTag(message, line, column)
                }
            }
            let node = Node(.scalar(.init(text: text, isPlain: isPlain)), line: line, column: column, weight: 1)
            try add(node, anchor: data.anchor)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor)
            guard let node = anchors[name] else { throw fail(.undefinedAlias(name), line, column) }
            aliasExpansion += node.weight
            if aliasExpansion > limits.maxAliasExpansion {
                throw fail(.aliasExpansionTooLarge(limit: limits.maxAliasExpansion), line, column)
            }
            aliasBytes += bytes(ofAnchor: name, node)
            if aliasBytes > limits.maxAliasBytes {
                throw fail(.aliasBytesTooLarge(limit: limits.maxAliasBytes), line, column)
            }
            try add(node, anchor: nil, writtenAt: (line, column))
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let data = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            let tag = isMapping ? event.data.mapping_start.tag : event.data.sequence_start.tag
            if let tag = tag.map({ Self.string($0) }), let problem = CoreTag.problem(collectionTag: tag, isMapping: isMapping) {
                refuseTag(problem, line, column)
            }
            guard stack.count < limits.maxDepth else { throw fail(.nestingTooDeep(limit: limits.maxDepth), line, column) }
            stack.append(Frame(isMapping: isMapping, anchor: data.map { Self.string($0) }, line: line, column: column))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let frame = stack.removeLast()
            let content: Node.Content = frame.isMapping ? .mapping(merged(frame)) : .sequence(frame.items)
            let node = Node(content, line: frame.line, column: frame.column, weight: frame.weight)
            try add(node, anchor: nil)
            if let anchor = frame.anchor { define(anchor, node) }
        default:
            break
        }
    }

    /// Places a finished node in its parent, or makes it the root. `writtenAt` is an alias's own
    /// position; other nodes are written where they start.
    private mutating func add(
        _ node: Node, anchor: UnsafeMutablePointer<yaml_char_t>?, writtenAt: (Int32, Int32)? = nil
    ) throws {
        if let anchor { define(Self.string(anchor), node) }
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        stack[top].weight += node.weight
        guard stack[top].isMapping else {
            stack[top].items.append(node)
            return
        }
        guard let key = stack[top].pendingKey else {
            // An alias used as a key is placed where it is written: a problem with that key (a
            // mapping as a key, a duplicate) is about this use, not about the anchored node.
            let placed = writtenAt.map { Node(node.content, line: $0.0, column: $0.1, weight: node.weight) } ?? node
            startPair(withKey: placed, in: top)
            return
        }
        stack[top].pendingKey = nil
        if stack[top].dropNextValue {
            stack[top].dropNextValue = false
        } else if key.scalar.map({ $0.isPlain && $0.text == "<<" }) == true {
            let (line, column) = writtenAt ?? (node.line, node.column)
            stack[top].mergeSources.append((node, line, column, stack[top].pairs.count))
        } else {
            stack[top].pairs.append(Node.Pair(key: key, value: node))
        }
    }

    /// An anchor may be defined again; aliases after that refer to the new node.
    private mutating func define(_ anchor: String, _ node: Node) {
        anchors[anchor] = node
        anchoredBytes[anchor] = nil
    }

    /// The bytes of every scalar in the anchored `node`, counted once per anchor: the walk costs
    /// the node's weight, already counted against the node limit, so it is bounded too.
    private mutating func bytes(ofAnchor name: String, _ node: Node) -> Int {
        if let known = anchoredBytes[name] { return known }
        var total = 0
        var pending = [node]
        while let next = pending.popLast() {
            switch next.content {
            case .scalar(let scalar): total += scalar.text.utf8.count
            case .sequence(let items): pending += items
            case .mapping(let pairs):
                for pair in pairs {
                    pending.append(pair.key)
                    pending.append(pair.value)
                }
            }
        }
        anchoredBytes[name] = total
        return total
    }

    /// Records a key, reporting it if the mapping already has it.
    private mutating func startPair(withKey key: Node, in top: Int) {
        stack[top].pendingKey = key
        guard let text = key.scalar?.text, key.scalar?.isPlain == false || text != "<<" else { return }
        if let first = existingKey(text, writtenAt: (key.line, key.column), in: top) {
            diagnostics.append(
                Diagnostic(
                    .duplicateKey(text, firstLine: first.line, firstColumn: first.column),
                    at: location(key.line, key.column)))
            stack[top].dropNextValue = true
        }
    }

    /// Where the mapping already has `text` as a key, if it does; otherwise `text` is noted as
    /// one of its keys. Small mappings are scanned; large ones (the `tasks` map) get an index
    /// once they grow, which looks a key up and notes it with one hash.
    private mutating func existingKey(_ text: String, writtenAt position: KeyPosition, in top: Int) -> KeyPosition? {
        if stack[top].keyIndex == nil {
            let pairs = stack[top].pairs
            if pairs.count < 16 {
                return pairs.first { $0.key.scalar?.text == text }.map { ($0.key.line, $0.key.column) }
            }
            var index: [String: KeyPosition] = [:]
            for pair in pairs { if let key = pair.key.scalar?.text { index[key] = (pair.key.line, pair.key.column) } }
            stack[top].keyIndex = index
        }
        guard let first = stack[top].keyIndex!.updateValue(position, forKey: text) else { return nil }
        stack[top].keyIndex![text] = first  // a duplicate is reported against the first one
        return first
    }

    /// The mapping's own pairs with, where each `<<` was written, the merged pairs whose keys it
    /// does not set itself (anywhere) nor an earlier merge: file order, as go-yaml keeps it, so a
    /// merged matrix key or task comes where the `<<` is.
    private mutating func merged(_ frame: Frame) -> [Node.Pair] {
        guard !frame.mergeSources.isEmpty else { return frame.pairs }
        var pairs: [Node.Pair] = []
        var ownPairsTaken = 0
        var seen = Set(frame.pairs.compactMap { $0.key.scalar?.text })
        for (source, line, column, ownPairsBefore) in frame.mergeSources {
            pairs += frame.pairs[ownPairsTaken..<ownPairsBefore]
            ownPairsTaken = ownPairsBefore
            let mappings: [Node]
            switch source.content {
            case .mapping: mappings = [source]
            case .sequence(let items) where items.allSatisfy({ if case .mapping = $0.content { true } else { false } }):
                mappings = items
            default:
                diagnostics.append(Diagnostic(.badMergeValue(found: source.kindDescription), at: location(line, column)))
                continue
            }
            for case .mapping(let sourcePairs) in mappings.map(\.content) {
                for pair in sourcePairs where seen.insert(pair.key.scalar?.text ?? "").inserted {
                    pairs.append(pair)
                }
            }
        }
        return pairs + frame.pairs[ownPairsTaken...]
    }

    private mutating func refuseTag(_ message: Diagnostic.Message, _ line: Int32, _ column: Int32) {
        diagnostics.append(Diagnostic(message, at: location(line, column)))
        refusedTags.insert(location(line, column))
    }

    private func location(_ line: Int32, _ column: Int32) -> SourceLocation {
        SourceLocation(file: file, line: Int(line), column: Int(column))
    }

    private func fail(_ message: Diagnostic.Message, _ line: Int32, _ column: Int32) -> YAMLError {
        YAMLError(Diagnostic(message, at: location(line, column)))
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>, length: Int? = nil) -> String {
        let count = length ?? strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
