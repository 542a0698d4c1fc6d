import CArchive
import Foundation
import Testing

@testable import FlowActions

/// A zip's deflated entries are inflated whole by libdeflate on the read thread
/// (`WholeEntryInflater`), the others by libarchive: both give the same files, and corrupt
/// data fails the entry, naming it, with nothing at `to`.
@Suite struct DecompressWholeEntryTests {
    /// `mixed.zip`: deflated entries small and large (past `WholeEntryInflater.maxSize`), a
    /// stored one, an empty one, a folder. `bad-crc.zip` and `bad-data.zip`: `big.bin`'s CRC-32
    /// (in both headers) or its deflate data changed.
    static let archives = """
        import random, zlib
        random.seed(11)
        words = [b'alpha', b'beta', b'gamma', b'delta', b'entry', b'block']
        def text(n): return b' '.join(random.choice(words) for _ in range(n // 5))[:n]
        files = {'d/small.txt': text(3000), 'd/big.bin': text(3 << 20), 'd/huge.bin': text(5 << 20) + random.randbytes(1000),
                 'noise.bin': random.randbytes(300000), 'empty.txt': b''}
        os.makedirs('src/d')
        with zipfile.ZipFile('mixed.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            z.writestr(zipfile.ZipInfo('d/'), b'')
            for name, data in files.items():
                open('src/' + name, 'wb').write(data)
                z.writestr(name, data)
            z.writestr(zipfile.ZipInfo('stored.txt'), b'kept as it is')
        with zipfile.ZipFile('one.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            z.writestr('a.txt', b'first')
            z.writestr('big.bin', text(1 << 20))
            z.writestr('z.txt', b'last')
        blob = open('one.zip', 'rb').read()
        local = blob.find(b'PK\\x03\\x04', blob.find(b'PK\\x03\\x04') + 1)  # big.bin's: the data is deflated, 'first' is not in it
        central = blob.find(b'PK\\x01\\x02', blob.find(b'PK\\x01\\x02') + 1)
        bad = bytearray(blob)
        for at in (local + 14, central + 16):
            bad[at:at + 4] = struct.pack('<I', struct.unpack('<I', bad[at:at + 4])[0] ^ 1)
        open('bad-crc.zip', 'wb').write(bad)
        bad = bytearray(blob)
        data = local + 30 + len('big.bin')
        for at in range(data + 100, data + 140): bad[at] ^= 0x5a
        open('bad-data.zip', 'wb').write(bad)
        # Three files of one size, listed in the central directory last first, and the zip behind a
        # stub (a self-extracting archive's): each file must still get its own bytes.
        with zipfile.ZipFile('order.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            for n in 'abc': z.writestr(n + '.txt', (n.encode() * 5000 + text(5000))[:9000])
        blob = open('order.zip', 'rb').read()
        start, end = blob.find(b'PK\\x01\\x02'), blob.find(b'PK\\x05\\x06')
        records, at = [], start
        while at < end:
            n, e, c = struct.unpack('<HHH', blob[at + 28:at + 34])
            records.append(blob[at:at + 46 + n + e + c]); at += 46 + n + e + c
        open('reversed.zip', 'wb').write(blob[:start] + b''.join(reversed(records)) + blob[end:])
        open('stub.zip', 'wb').write(b'#!/bin/sh\\nexit 0\\n' + bytes(1000) + blob)
        """

    @Test func entriesInflatedHereAndByLibarchiveExtractAsWritten() throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract("mixed.zip", to: "mixed") == nil)
        for name in ["d/small.txt", "d/big.bin", "d/huge.bin", "noise.bin", "empty.txt"] {
            fixtures.expectSameBytes("mixed/" + name, as: "src/" + name)
        }
        #expect(fixtures.text("mixed/stored.txt") == "kept as it is")
        #expect(fixtures.listing("mixed") == ["d", "empty.txt", "noise.bin", "stored.txt"])
    }

    @Test(arguments: ["reversed.zip", "stub.zip"])
    func eachEntryGetsItsOwnBytesWhateverTheDirectorysOrder(archive: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract(archive, to: "x") == nil)
        for name in ["a", "b", "c"] {
            let text = try #require(fixtures.text("x/\(name).txt"))
            #expect(text.count == 9000 && text.hasPrefix(String(repeating: name, count: 5000)), "\(name)")
        }
    }

    @Test(arguments: [("bad-crc.zip", "ZIP bad CRC"), ("bad-data.zip", "ZIP ")])
    func aCorruptDeflatedEntryFailsNamingIt(archive: String, problem: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        let failure = try #require(fixtures.extract(archive))
        #expect(failure.reason.hasPrefix("entry 'big.bin' cannot be read: \(problem)"), "\(failure)")
        fixtures.expectOutUntouched()
    }

    @Test func theDirectoryKeepsLibarchivesOrderAndWhichEntriesAreInflatedWhole() {
        var directory = ZipDirectory()
        func add(_ offset: Int64, method: UInt16 = 8, flags: UInt16 = 0, compressed: UInt64 = 10, size: UInt64 = 100, crc: UInt32 = 0) {
            directory.add(headerOffset: offset, dataStart: 40, method: method, flags: flags, compressedSize: compressed, size: size, crc: crc)
        }
        add(300, crc: 3)
        add(0, crc: 1)
        add(300, crc: 4)  // a second entry at one offset: libarchive keeps the first listed
        add(100, method: 0)  // stored
        add(200, flags: 1)  // encrypted
        add(400, size: UInt64(WholeEntryInflater.maxSize) + 1)
        add(500, size: 0)
        directory.sort()
        #expect(directory.entries.map(\.headerOffset) == [0, 100, 200, 300, 400, 500])
        #expect(directory.entries.map(\.isWhole) == [true, false, false, true, false, false])
        #expect(directory.entries[3].crc == 3 && directory.entries[3].dataOffset == 340)
    }

    @Test func anEntryNotWhereTheDirectorySaysHandsTheRestToLibarchive() throws {
        var directory = ZipDirectory()
        for offset: Int64 in [0, 100, 200] {
            directory.add(headerOffset: offset, dataStart: 40, method: 8, flags: 0, compressedSize: 10, size: 100, crc: 0)
        }
        directory.sort()
        let entry = try #require(archive_entry_new())
        defer { archive_entry_free(entry) }
        archive_entry_set_filetype(entry, S_IFREG as mode_t)
        archive_entry_set_size(entry, 100)
        var whole = WholeEntries(directory: directory)
        archive_entry_set_filetype(entry, S_IFLNK as mode_t)
        archive_entry_set_size(entry, 0)
        #expect(whole.next(for: entry, at: 0) == nil)  // a symlink: libarchive's, and followed on
        archive_entry_set_filetype(entry, S_IFREG as mode_t)
        archive_entry_set_size(entry, 99)  // libarchive's header disagrees: another entry
        #expect(whole.next(for: entry, at: 60) == nil)
        archive_entry_set_size(entry, 100)
        #expect(whole.next(for: entry, at: 200) == nil)
        var followed = WholeEntries(directory: directory)
        archive_entry_set_filetype(entry, S_IFDIR as mode_t)
        #expect(followed.next(for: entry, at: 0) == nil)
        archive_entry_set_filetype(entry, S_IFREG as mode_t)
        #expect(followed.next(for: entry, at: 60)?.headerOffset == 100)
    }
}
