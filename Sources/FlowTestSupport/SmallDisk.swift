import Foundation
import Glibc

/// A small tmpfs, mounted for a test that needs a full disk. Only root can mount one (as the
/// CI runs the suite); elsewhere `isAvailable` is false and such tests are skipped, saying so.
package struct SmallDisk {
    package let path: String

    /// Why a test that needs one is skipped (a `Comment` at the test: this target is no test target).
    package static let skipMessage = "needs root to mount a small tmpfs (the CI runs as root)"

    /// Whether a tmpfs can be mounted here: tried once, for real.
    package static let isAvailable: Bool = {
        guard geteuid() == 0, let probe = try? SmallDisk(kilobytes: 64) else { return false }
        probe.remove()
        return true
    }()

    package init(kilobytes: Int) throws {
        path = NSTemporaryDirectory() + "flowrun-small-disk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]) else {
            rmdir(path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Mounts a small tmpfs at `path` (an existing empty folder), for a test that needs one
    /// folder on another file system.
    package static func mount(at path: String, kilobytes: Int) -> Bool {
        run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path])
    }

    package static func unmount(_ path: String) {
        _ = run(["umount", path])
    }

    package func remove() {
        Self.unmount(path)
        rmdir(path)
    }

    /// Fills the disk to the last byte with `filler`.
    package func fill() {
        let descriptor = open(path + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 1, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        while write(descriptor, block, 1) > 0 {}
    }

    private static func run(_ argv: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
