import Foundation

/// Checks that a zip's central directory and its local headers agree on each entry's name and
/// sizes. libarchive reads the name from the local header and checks the sizes only, so a zip
/// whose directory lists `good.txt` would silently extract another name.
///
/// One entry at a time, by `pread`. What it read is kept as the zip's `ZipDirectory` (32 bytes
/// an entry), from which the read thread inflates the entries it can itself.
struct ZipHeaderCheck {
    private let fd: Int32
    private let path: String

    static func check(_ path: String) throws(ActionFailure) -> ZipDirectory {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ActionFailure("cannot read '\(path)': \(FileTree.errorText())") }
        defer { close(fd) }
        var directory = ZipDirectory()
        try ZipHeaderCheck(fd: fd, path: path).run(into: &directory)
        directory.sort()
        return directory
    }

    private func run(into directory: inout ZipDirectory) throws(ActionFailure) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ActionFailure("cannot read '\(path)': \(FileTree.errorText())") }
        let size = Int64(info.st_size)
        let tailStart = max(0, size - 65_557)
        let tail = try read(at: tailStart, count: Int(size - tailStart))
        let signatures = (0...max(0, tail.count - 22)).reversed().lazy.filter { tail.count >= 22 && u32(tail, $0) == 0x0605_4b50 }
        // The record whose comment ends the file: a comment may hold the signature too. The last
        // signature where none does (bytes appended after the zip).
        guard let end = signatures.first(where: { Int(u16(tail, $0 + 20)) == tail.count - $0 - 22 }) ?? signatures.first else {
            throw broken("has no end of central directory record (truncated?)")
        }
        var count = Int64(u16(tail, end + 10)), directorySize = Int64(u32(tail, end + 12)), directoryOffset = Int64(u32(tail, end + 16))
        // The central directory ends where the end record starts, or the zip64 one when there is one.
        var directoryEnd = tailStart + Int64(end)
        if end >= 20, u32(tail, end - 20) == 0x0706_4b50 {
            // A zip64 record wins over the classic one, as for libarchive: its counts are not saturated.
            let record = try zip64Record(said: Int64(u64(tail, end - 12)), locator: tailStart + Int64(end - 20))
            count = Int64(u64(record.bytes, 32))
            directorySize = Int64(u64(record.bytes, 40))
            directoryOffset = Int64(u64(record.bytes, 48))
            directoryEnd = record.position
        }
        // Bytes before the archive (a self-extracting stub) shift every offset alike.
        let shift = max(0, directoryEnd - directorySize - directoryOffset)
        var position = directoryOffset + shift
        // libarchive reads records up to the end record, whatever the count says: so does this,
        // or an entry left out would take the next listed entry's place and bytes.
        var index: Int64 = 0
        while true {
            if index >= count { guard try u32(read(at: position, count: 4), 0) == 0x0201_4b50 else { break } }
            index += 1
            let header = try read(at: position, count: 46)
            guard u32(header, 0) == 0x0201_4b50 else { throw broken("has a damaged central directory") }
            let nameLength = Int(u16(header, 28)), extraLength = Int(u16(header, 30)), commentLength = Int(u16(header, 32))
            let variable = try read(at: position + 46, count: nameLength + extraLength)
            let name = Array(variable[0..<nameLength])
            var sizes = Sizes(compressed: UInt64(u32(header, 20)), uncompressed: UInt64(u32(header, 24)))
            var offset = UInt64(u32(header, 42))
            sizes.widen(extra: Array(variable[nameLength...]), offset: &offset)
            let headerOffset = Int64(offset) + shift
            let listed = Listed(name: name, sizes: sizes, method: u16(header, 10), flags: u16(header, 8), crc: u32(header, 16))
            let dataStart = try compare(listed, localAt: headerOffset)
            directory.add(
                headerOffset: headerOffset, dataStart: dataStart, method: listed.method, flags: listed.flags,
                compressedSize: sizes.compressed, size: sizes.uncompressed, crc: listed.crc, name: name)
            position += 46 + Int64(nameLength + extraLength + commentLength)
        }
    }

    /// The zip64 end record: where its locator says, or just before the locator when bytes
    /// before the archive shifted it.
    private func zip64Record(said: Int64, locator: Int64) throws(ActionFailure) -> (bytes: [UInt8], position: Int64) {
        for position in [said, locator - 56] where position >= 0 && position + 56 <= locator {
            let bytes = try read(at: position, count: 56)
            if u32(bytes, 0) == 0x0606_4b50 { return (bytes, position) }
        }
        throw broken("has a damaged zip64 end record")
    }

    /// An entry as the central directory lists it.
    private struct Listed {
        var name: [UInt8]
        var sizes: Sizes
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
    }

    /// Where the entry's data starts, from its local header. libarchive reads the method, the
    /// encryption and a non-zero CRC-32 from the local header: where they disagree with the
    /// directory's, which the whole-entry inflate uses, bsdtar fails the entry (or warns and
    /// checks the other CRC-32), so flowrun refuses it.
    private func compare(_ listed: Listed, localAt position: Int64) throws(ActionFailure) -> Int {
        let name = listed.name, sizes = listed.sizes
        let shown = String(decoding: name, as: UTF8.self)
        let header = try read(at: position, count: 30)
        guard u32(header, 0) == 0x0403_4b50 else { throw .entry(shown, "has no local header where the central directory says") }
        let nameLength = Int(u16(header, 26)), extraLength = Int(u16(header, 28))
        let variable = try read(at: position + 30, count: nameLength + extraLength)
        let localName = Array(variable[0..<nameLength])
        guard localName == name else {
            throw .entry(shown, "is named '\(String(decoding: localName, as: UTF8.self))' in its local header: the zip's headers disagree")
        }
        let dataStart = 30 + nameLength + extraLength
        guard u16(header, 8) == listed.method, u16(header, 6) & 0x41 == listed.flags & 0x41 else {
            throw .entry(shown, "has a compression method or encryption in its local header that disagrees with the central directory")
        }
        let localCRC = u32(header, 14)
        guard localCRC == 0 || localCRC == listed.crc else {
            throw .entry(shown, "has a CRC-32 in its local header that disagrees with the central directory")
        }
        guard u16(header, 6) & 0x08 == 0 else { return dataStart }  // sizes follow the data, in a descriptor
        var local = Sizes(compressed: UInt64(u32(header, 18)), uncompressed: UInt64(u32(header, 22)))
        var unused: UInt64 = 0
        local.widen(extra: Array(variable[nameLength...]), offset: &unused)
        guard local == sizes else {
            throw .entry(shown, "has sizes in its local header that disagree with the central directory")
        }
        return dataStart
    }

    /// An entry's sizes, read from the zip64 extra field where the 32-bit ones are saturated.
    private struct Sizes: Equatable {
        var compressed: UInt64
        var uncompressed: UInt64

        mutating func widen(extra: [UInt8], offset: inout UInt64) {
            var index = 0
            while index + 4 <= extra.count {
                let id = u16(extra, index), length = Int(u16(extra, index + 2))
                var field = index + 4
                if id == 0x0001 {
                    for value in [\Sizes.uncompressed, \Sizes.compressed] where self[keyPath: value] == 0xFFFF_FFFF && field + 8 <= extra.count {
                        self[keyPath: value] = u64(extra, field)
                        field += 8
                    }
                    if offset == 0xFFFF_FFFF && field + 8 <= extra.count { offset = u64(extra, field) }
                    return
                }
                index += 4 + length
            }
        }
    }

    private func broken(_ problem: String) -> ActionFailure {
        ActionFailure("'\(path)' \(problem)")
    }

    private func read(at offset: Int64, count: Int) throws(ActionFailure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw broken(got == 0 ? "ends early" : "cannot be read: \(FileTree.errorText())") }
            done += got
        }
        return bytes
    }
}

private func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
private func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16 }
private func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(bytes, at)) | UInt64(u32(bytes, at + 4)) << 32 }
