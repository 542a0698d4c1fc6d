/// Bounds that keep a hostile file from exhausting memory, stack or time.
package struct YAMLLimits: Sendable {
    /// Deepest nesting of sequences and mappings.
    package var maxDepth = 100
    /// Nodes that all alias references together may stand for (a billion-laughs file hits this).
    package var maxAliasExpansion = 1_000_000
    /// Bytes of scalar text that all alias references together may stand for: one long value
    /// anchored and referenced many times stays under the node limit, yet expands to gigabytes.
    /// 64 MiB is the node limit at 64 bytes a scalar, longer than ordinary keys and values,
    /// so a file within the node limit hits this only with long values repeated.
    package var maxAliasBytes = 64 << 20
    /// Largest file read at all.
    package var maxFileBytes = 32 << 20

    package init() {}
}
