import FlowModel
import FlowReport
import Foundation
import Glibc

/// Refuses, before a run (or an export, or a report), outputs that would destroy data:
/// `--events-file`, `--junit` or another output naming the workflow file, or two naming one file,
/// where one would overwrite the other.
///
/// "The same" means the same file: the same device and inode when it exists (so `./a.xml` and
/// `a.xml`, or a symbolic link to the workflow, are caught), or else the same path once its
/// folder is resolved. A character device (a terminal, `/dev/null`), a FIFO or a socket (a pipe
/// behind `/dev/stdout`) is never refused: it is written into, never replaced, and writing to it
/// twice destroys nothing.
///
/// A standard output or error redirected to a regular file (`> x`, `>> x`) is an output too:
/// `--events-file x > x` wrote both into one file, each over the other, and `--junit x > x`
/// renamed the report over the log.
enum OutputPaths {
    static func refuseOverlaps(workflow: String, eventsFile: String?, junit: String?, others: [(String, String?)] = []) throws {
        let named = ([("--events-file", eventsFile), ("--junit", junit)] + others).compactMap { option, path in
            path.map { (name: "\(option) \($0)", identity: FileIdentity($0)) }
        }
        let standard = [(STDOUT_FILENO, "standard output"), (STDERR_FILENO, "standard error")].compactMap { descriptor, name in
            FileIdentity(descriptor: descriptor).map { (name: name + Self.shownPath(of: descriptor), identity: $0) }
        }
        let workflowFile = FileIdentity(workflow)
        for (index, output) in (named + standard).enumerated() where output.identity.canBeDestroyed {
            if output.identity == workflowFile {
                let harm = index < named.count ? "it would be overwritten" : "the run's output would be written into it"
                throw CommandFailure("\(output.name) is the workflow file \(workflow); \(harm)")
            }
            // Standard output and error on one file (`> log 2>&1`) is no overlap: one is not compared with the other.
            for other in named.prefix(index) where output.identity == other.identity {
                throw CommandFailure("\(other.name) and \(output.name) are the same file; give each its own")
            }
        }
    }

    /// ` (PATH)`: the file a redirected descriptor was opened on, as the kernel names it.
    private static func shownPath(of descriptor: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, Int(PATH_MAX))
        guard count > 0 else { return "" }
        return " (" + String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) + ")"
    }

    /// Refuses, as a usage error (exit 2) before anything is written, an output path that
    /// cannot be written: a folder, one in a folder that does not exist (`curl -o` and `tar -f`
    /// fail there; flowrun makes no folder for an output), a loop of links.
    static func refuseUnwritable(_ paths: [String]) throws {
        for path in paths {
            do throws(WriteFailure) {
                try ReportFile.checkDestination(path)
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    /// What tells two paths to one file apart from two files.
    private enum FileIdentity: Equatable {
        case file(device: UInt64, inode: UInt64, isWrittenInto: Bool)
        /// A file that does not exist yet, by its path with the folder resolved.
        case missing(String)

        init(_ path: String) {
            var status = stat()
            if stat(path, &status) == 0 {
                self = .file(
                    device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
                    isWrittenInto: [S_IFCHR, S_IFIFO, S_IFSOCK].contains(status.st_mode & S_IFMT))
                return
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            let folder = url.deletingLastPathComponent().path
            let resolved =
                realpath(folder, nil).map { pointer in
                    defer { free(pointer) }
                    return String(cString: pointer)
                } ?? folder
            self = .missing(resolved + "/" + url.lastPathComponent)
        }

        /// A standard descriptor redirected to a regular file; nil for a terminal, a pipe, `/dev/null`.
        init?(descriptor: Int32) {
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            self = .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), isWrittenInto: false)
        }

        var canBeDestroyed: Bool {
            if case .file(_, _, true) = self { return false }
            return true
        }
    }
}
