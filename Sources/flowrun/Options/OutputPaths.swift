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
enum OutputPaths {
    static func refuseOverlaps(workflow: String, eventsFile: String?, junit: String?, others: [(String, String?)] = []) throws {
        let outputs = ([("--events-file", eventsFile), ("--junit", junit)] + others).compactMap { option, path in path.map { (option, $0) } }
        let workflowFile = FileIdentity(workflow)
        for (index, (option, path)) in outputs.enumerated() {
            let identity = FileIdentity(path)
            if identity.canBeDestroyed, identity == workflowFile {
                throw CommandFailure("\(option) \(path) is the workflow file \(workflow); it would be overwritten")
            }
            for (otherOption, otherPath) in outputs[..<index] where identity.canBeDestroyed && identity == FileIdentity(otherPath) {
                throw CommandFailure("\(otherOption) \(otherPath) and \(option) \(path) are the same file; give each its own")
            }
        }
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

        var canBeDestroyed: Bool {
            if case .file(_, _, true) = self { return false }
            return true
        }
    }
}
