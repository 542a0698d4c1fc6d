/// Bounds that keep a hostile file from exhausting memory, stack or time.
public struct YAMLLimits: Sendable {
    /// Deepest nesting of sequences and mappings.
    public var maxDepth = 100
    /// Nodes that all alias references together may stand for (a billion-laughs file hits this).
    public var maxAliasExpansion = 1_000_000
    /// Largest file read at all.
    public var maxFileBytes = 32 << 20

    public init() {}
}
