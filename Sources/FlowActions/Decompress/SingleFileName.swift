import FlowModel
import Foundation

/// The name a single compressed file (`app.log.gz`) is written under: the name in its gzip
/// header when it has one, else the archive's own name without its last extension, a tar's
/// short one (`app.tgz`) becoming `.tar` as gunzip, xz, bzip2 and zstd name it. As bytes:
/// a gzip header's name is latin-1 by RFC 1952, and `gzip -N` writes it back byte for byte.
///
/// The header is read from a regular file only (`isRegularFile`): a FIFO opened a second time
/// waits for a writer that has gone (the run hung, out of a cancel's reach), or takes bytes the
/// extraction's own reader was to read.
enum SingleFileName {
    static func of(archive path: String, isRegularFile: Bool) -> [UInt8] {
        if isRegularFile, let stored = gzipStoredName(path), let name = usable(stored) { return name }
        let base = path.pathName
        let stem = (base as NSString).deletingPathExtension
        let tar = tarSuffixes.contains((base as NSString).pathExtension) ? ".tar" : ""
        return usable(Array((stem + tar).utf8)) ?? Array("data".utf8)
    }

    /// A compressed tar's short suffixes: `gzip -d` (tgz, taz), `xz -d` (txz, tlz), `bzip2 -d`
    /// (tbz2, tbz) and `zstd -d` (tzst) write such a file as `NAME.tar`.
    private static let tarSuffixes: Set<String> = ["tgz", "taz", "txz", "tlz", "tbz2", "tbz", "tzst"]

    /// The last component only: a header naming `../x` or `/etc/x` still lands inside `to`.
    private static func usable(_ name: [UInt8]) -> [UInt8]? {
        let last = name.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []
        return last.isEmpty || last.elementsEqual(".".utf8) || last.elementsEqual("..".utf8) ? nil : last
    }

    /// RFC 1952: ID1 ID2 CM FLG MTIME(4) XFL OS, then FEXTRA (2-byte length), then FNAME.
    private static func gzipStoredName(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 * 1024), head.count > 10 else { return nil }
        let bytes = [UInt8](head)
        guard bytes[0] == 0x1f, bytes[1] == 0x8b, bytes[3] & 0x08 != 0 else { return nil }
        var index = 10
        if bytes[3] & 0x04 != 0 {
            guard bytes.count > 12 else { return nil }
            index += 2 + (Int(bytes[10]) | Int(bytes[11]) << 8)
        }
        guard index < bytes.count, let end = bytes[index...].firstIndex(of: 0) else { return nil }
        return Array(bytes[index..<end])
    }
}
