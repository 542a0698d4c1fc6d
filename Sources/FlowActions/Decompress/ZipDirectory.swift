import CDeflate

/// A zip file's entries in the order libarchive extracts them (by their local header's offset;
/// of two entries at one offset the first listed, as libarchive keeps it), with what
/// `WholeEntryInflater` needs to inflate an entry's data itself: where it starts, its sizes
/// and CRC-32, as the central directory says (`ZipHeaderCheck` reads it and checks the local
/// headers against it), and the CRC-32 of its name, which `WholeEntries` checks libarchive's
/// header against. 32 bytes an entry.
struct ZipDirectory: Sendable {
    struct Entry: Sendable {
        /// Where its local header starts in the file.
        var headerOffset: Int64
        /// Its data starts this many bytes after the header.
        var dataStart: UInt32
        var compressedSize: UInt32
        /// Its size once inflated; `UInt32.max`: not inflated whole (see `isWhole`).
        var size: UInt32
        var crc: UInt32
        /// The CRC-32 of its name's bytes (`nameCRC(_:)`).
        var nameCRC: UInt32

        /// Deflated, not encrypted, and small enough for `WholeEntryInflater`: flowrun inflates
        /// its data; any other entry's libarchive does.
        var isWhole: Bool { size != UInt32.max }

        var dataOffset: Int64 { headerOffset + Int64(dataStart) }
    }

    private(set) var entries: [Entry] = []

    /// An entry as the central directory has it: `method` and `flags` its compression method
    /// and general purpose flags.
    mutating func add(
        headerOffset: Int64, dataStart: Int, method: UInt16, flags: UInt16, compressedSize: UInt64, size: UInt64, crc: UInt32,
        name: [UInt8] = []
    ) {
        let encrypted = flags & 0x41 != 0  // traditional or strong encryption
        let whole =
            method == 8 && !encrypted && size > 0 && size <= UInt64(WholeEntryInflater.maxSize)
            && compressedSize <= UInt64(WholeEntryInflater.maxCompressedSize)
        entries.append(
            Entry(
                headerOffset: headerOffset, dataStart: UInt32(dataStart), compressedSize: whole ? UInt32(compressedSize) : 0,
                size: whole ? UInt32(size) : UInt32.max, crc: crc, nameCRC: Self.nameCRC(name)))
    }

    /// A name's CRC-32: 4 bytes that tell libarchive's entry from the listed one when they are
    /// not the same (an entry the directory does not list).
    static func nameCRC(_ name: some Collection<UInt8>) -> UInt32 {
        let bytes = Array(name)
        return bytes.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }

    /// Puts the entries in libarchive's order, once all were added.
    mutating func sort() {
        let sorted = entries.enumerated().sorted { ($0.element.headerOffset, $0.offset) < ($1.element.headerOffset, $1.offset) }
        entries = []
        entries.reserveCapacity(sorted.count)
        for (_, entry) in sorted where entries.last?.headerOffset != entry.headerOffset { entries.append(entry) }
    }
}
