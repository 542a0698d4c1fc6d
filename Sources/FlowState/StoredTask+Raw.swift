import Crypto
import Glibc

/// The no-op's comparisons in raw bytes (`UpToDateCheck`'s path for a task kept as it was):
/// a kept digest against the one of now, or fed to a hasher as the text it stands for, with
/// no hex text made (a 20,000-task no-op made eight such strings a task).
extension StoredTask {
    /// Whether the part kept is `digest` (32 raw bytes).
    func part(_ part: Part, isRaw digest: UnsafeRawBufferPointer) -> Bool {
        let kept = self.digest(part)
        return digest.count == kept.count && memcmp(digest.baseAddress!, kept.baseAddress!, kept.count) == 0
    }

    /// Feeds the raw digest `raw` (a part kept, `digest(_:)`) to `hasher` as its lowercase hex
    /// text (`hex(_:)`), without making the text.
    static func update(_ hasher: inout SHA256, withHexOf raw: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * TaskStateBytes.digestSize) { text in
            for index in 0..<raw.count {
                text[2 * index] = FileRecord.hexDigit(raw[index] >> 4)
                text[2 * index + 1] = FileRecord.hexDigit(raw[index] & 15)
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(text)[..<(2 * raw.count)]))
        }
    }
}

extension DefinitionDigests {
    /// Whether the definition and env digests of the task at `index` are those `stored` kept:
    /// compared raw when read back raw from the compiled plan.
    func areKept(in stored: StoredTask, at index: Int) -> Bool {
        let raw = withRaw(at: index) { definition, environment in
            stored.part(.definition, isRaw: definition) && stored.part(.environment, isRaw: environment)
        }
        if let raw { return raw }
        let digests = self[index]
        return stored.part(.definition, is: digests.definition) && stored.part(.environment, is: digests.environment)
    }
}
