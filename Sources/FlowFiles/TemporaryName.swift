import Foundation

/// The names of flowrun's temporary files and folders: `.NAME.flowrun-RANDOM` beside what they
/// become, hidden so that a later task's `*` does not match them, and random so that no one
/// can plant a file or a symlink there in advance.
package enum TemporaryName {
    /// What every temporary name holds; `LeftoverSweep` looks for it.
    package static let marker = ".flowrun-"

    /// A new name for a temporary that becomes `name`.
    package static func make(for name: String) -> String {
        ".\(name)\(marker)\(randomSuffix())"
    }

    /// Whether `name` looks like one of ours: `.`, a name, the marker, then 1 to 13 letters or
    /// digits (an older flowrun's mkstemp names included). A user's `.flowrun-settings` is not.
    package static func isTemporary(_ name: String) -> Bool {
        guard name.hasPrefix("."), let marker = name.dropFirst().range(of: marker, options: .backwards) else { return false }
        let suffix = name[marker.upperBound...]
        return marker.lowerBound > name.index(after: name.startIndex) && (1...13).contains(suffix.count)
            && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// 64 random bits in base 36 (13 characters at most).
    static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
