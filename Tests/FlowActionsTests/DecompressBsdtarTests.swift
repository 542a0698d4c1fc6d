import FlowModel
import Foundation
import Testing

@testable import FlowActions

private let corpusToolsInstalled = ["/usr/bin/bsdtar", "/usr/bin/zip", "/usr/bin/tar"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Extraction compared with `bsdtar -x` on archives the test makes: tars from GNU tar, bsdtar and
/// Python's tarfile in each of their formats, zips from Python, Info-ZIP and bsdtar; names in
/// UTF-8, latin-1, cp437, cp866, koi8-r and Shift-JIS, hard links, symlinks, sparse files, long
/// names, a 40-folder-deep file, a file larger than the read rings, duplicate entries and empty
/// archives. Every archive bsdtar extracts extracts to the same
/// names, bytes, modes, times and links, or is in `refusals` with its reason (README).
@Suite(.enabled(if: corpusToolsInstalled, "needs bsdtar (libarchive-tools), zip and GNU tar: scripts/install-deps --tests"))
struct DecompressBsdtarTests {
    /// Archives bsdtar extracts that flowrun refuses on purpose, with words from the reason.
    /// A 0-byte file: refused as GNU tar refuses it (a failed download must not look extracted).
    static let refusals: [String: String] = ["zero-bytes.tar": "is empty (0 bytes): not an archive"]

    /// Made by python3 in the fixture folder: sources in src/ and short/, archives in corpus/.
    static let corpusScript = #"""
        import subprocess, zlib
        os.makedirs('corpus', exist_ok=True)
        T = 1_600_000_000  # one mtime for everything, so that times compare too

        def run(*argv, ok=(0,)):
            done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if done.returncode not in ok:
                raise SystemExit('%s: %s' % (' '.join(argv), done.stderr.decode(errors='replace')))

        def put(root, name, data=b'', mode=0o644):
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'wb') as f: f.write(data)
            os.chmod(path, mode)

        def tree(root, names, long=True):
            """A source tree: names is a list of byte names for files in 'names/'."""
            os.makedirs(root)
            put(root, 'app/bin/tool', b'#!/bin/sh\necho hi\n', 0o755)
            put(root, 'app/README', b'read me\n')
            put(root, 'app/private', b'secret\n', 0o600)
            put(root, 'app/empty', b'')
            os.makedirs(os.path.join(root, 'app/open'), mode=0o777); os.chmod(os.path.join(root, 'app/open'), 0o777)
            put(root, 'app/open/all', b'all\n', 0o666)
            os.makedirs(os.path.join(root, 'app/nothing'))
            os.symlink('README', os.path.join(root, 'app/docs'))
            os.symlink('../README', os.path.join(root, 'app/bin/readme'))
            os.link(os.path.join(root, 'app/bin/tool'), os.path.join(root, 'app/bin/alias'))
            os.link(os.path.join(root, 'app/README'), os.path.join(root, 'app/README.again'))
            with open(os.path.join(root, 'app/sparse.img'), 'wb') as f:
                f.write(b'head'); f.seek(1 << 20); f.write(b'tail')
            if long:
                put(root, 'app/' + 'long-' * 30 + '/' + 'n' * 150, b'long\n')
                put(root, 'app/' + '/'.join('d%02d' % i for i in range(40)) + '/leaf', b'deep\n')
                put(root, 'app/big.bin', bytes((i * 7919) % 251 for i in range(5 << 19)))  # more than a read ring
            rootb = os.fsencode(root)
            os.makedirs(os.path.join(rootb, b'names'))
            for name in names:
                with open(os.path.join(rootb, b'names', name), 'wb') as f: f.write(name)
            for folder, dirs, files in os.walk(rootb):
                for name in dirs + files:
                    os.utime(os.path.join(folder, name), (T, T), follow_symlinks=False)
            os.utime(rootb, (T, T))

        utf8 = ['日本語.txt'.encode(), 'naïve.txt'.encode(), 'Ünïcödé/'.encode()[:-1]]
        raw = [b'caf\xe9', b'\x93\xfa\x96\x7b', b'a\xff', b'a\xfe', b'\x82']  # latin-1, Shift-JIS, bytes, cp437
        tree('src', utf8 + raw)
        tree('short', [b'plain.txt'], long=False)   # for v7 and ustar, which hold no long names

        # GNU tar and bsdtar, each of their formats
        for fmt in ['gnu', 'pax', 'ustar', 'v7', 'oldgnu', 'posix']:
            source = 'src' if fmt in ('gnu', 'pax', 'posix', 'oldgnu') else 'short'
            run('tar', '--format=' + fmt, '--sparse', '-cf', 'corpus/gnutar-%s.tar' % fmt, '-C', source, '.', ok=(0, 2))
        for fmt in ['pax', 'ustar', 'v7', 'gnutar', 'paxr']:
            source = 'src' if fmt in ('pax', 'gnutar', 'paxr') else 'short'
            run('bsdtar', '--format', fmt, '-cf', 'corpus/bsdtar-%s.tar' % fmt, '-C', source, '.', ok=(0, 1))
        run('tar', '--format=gnu', '-czf', 'corpus/gnutar.tar.gz', '-C', 'src', 'app')
        run('tar', '--format=pax', '-cJf', 'corpus/gnutar-pax.tar.xz', '-C', 'src', 'app')
        run('bsdtar', '--format', 'zip', '-cf', 'corpus/bsdtar.zip', '-C', 'src', '.')
        run('bsdtar', '--format', 'zip', '--options', 'zip:compression=store', '-cf', 'corpus/bsdtar-stored.zip', '-C', 'short', '.')

        # Info-ZIP: symlinks kept (-y), zip64 (-fz), streamed from a pipe
        run('sh', '-c', 'cd src && zip -q -r -y ../corpus/infozip.zip .')
        run('sh', '-c', 'cd short && zip -q -r -y -fz ../corpus/infozip-fz.zip .')
        run('sh', '-c', 'cd short && zip -q -r -fz- -X ../corpus/infozip-nofz.zip .')
        run('sh', '-c', 'echo hi | zip -q > corpus/infozip-streamed.zip')

        # Python's tarfile: every format, names as bytes
        def add_tree(t, root):
            for folder, dirs, files in os.walk(root):
                dirs.sort(); files.sort()
                for name in dirs + files:
                    path = os.path.join(folder, name)
                    t.add(path, arcname=os.path.relpath(path, root), recursive=False)
        for fmt, name in [(tarfile.GNU_FORMAT, 'gnu'), (tarfile.PAX_FORMAT, 'pax'), (tarfile.USTAR_FORMAT, 'ustar')]:
            with tarfile.open('corpus/python-%s.tar' % name, 'w', format=fmt, encoding='utf-8', errors='surrogateescape') as t:
                add_tree(t, 'src' if fmt != tarfile.USTAR_FORMAT else 'short')
        with tarfile.open('corpus/python-latin1.tar', 'w', format=tarfile.GNU_FORMAT, encoding='latin-1') as t:
            for name in ['café', 'über/straße']:
                info = tarfile.TarInfo(name); info.size = 4; info.mtime = T; t.addfile(info, io.BytesIO(b'data'))

        def entry(t, name, data=b'', kind=tarfile.REGTYPE, link='', mode=0o644):
            info = tarfile.TarInfo(name); info.type = kind; info.linkname = link; info.mode = mode; info.mtime = T
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        with tarfile.open('corpus/python-duplicates.tar', 'w') as t:  # the last of two same-named entries wins
            entry(t, 'same', b'first'); entry(t, 'dir/', kind=tarfile.DIRTYPE, mode=0o700); entry(t, 'same', b'second')
            entry(t, 'dir/', kind=tarfile.DIRTYPE, mode=0o755); entry(t, 'dir/f', b'f')
        with tarfile.open('corpus/python-late-folder.tar', 'w') as t:  # a folder's entry after its files
            entry(t, 'late/file', b'x'); entry(t, 'late/', kind=tarfile.DIRTYPE, mode=0o750)
        with tarfile.open('corpus/python-hardlinks.tar', 'w') as t:
            entry(t, 'a', b'a'); entry(t, 'b', kind=tarfile.LNKTYPE, link='a'); entry(t, 'sub/c', kind=tarfile.LNKTYPE, link='a')
            entry(t, 's', kind=tarfile.SYMTYPE, link='a'); entry(t, 't', kind=tarfile.LNKTYPE, link='s')
        tarfile.open('corpus/python-empty.tar', 'w').close()
        open('corpus/zero-bytes.tar', 'wb').close()

        # Python's zipfile: UTF-8 flagged names, modes, a symlink, zip64 entries and an end record past 65,535 entries
        with zipfile.ZipFile('corpus/python.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            for name, data, mode in [('top/日本語.txt', b'ja', 0o644), ('top/run.sh', b'#!/bin/sh\n', 0o755), ('top/dir/', b'', 0o40755)]:
                info = zipfile.ZipInfo(name, (2020, 9, 13, 12, 26, 40)); info.external_attr = (mode if mode > 0o7777 else 0o100000 | mode) << 16
                z.writestr(info, data)
            link = zipfile.ZipInfo('top/link', (2020, 9, 13, 12, 26, 40)); link.external_attr = 0o120777 << 16; z.writestr(link, 'run.sh')
            with z.open('top/big.txt', 'w', force_zip64=True) as f: f.write(b'zip64 ' * 1000)
        zipfile.ZipFile('corpus/python-empty.zip', 'w').close()

        \#(DecompressNameTests.rawZip)
        rawzip('corpus/raw-cp437.zip', [('é'.encode('cp437'), b'e', 0, b''), ('ü/x'.encode('cp437'), b'u', 0, b''), ('ж'.encode('cp866'), b'cp866', 0, b''), ('ж'.encode('koi8-r'), b'koi8', 0, b'')])
        rawzip('corpus/raw-sjis.zip', [('日本/ソ.txt'.encode('cp932'), b's', 0, b'')])
        rawzip('corpus/raw-latin1.zip', [('café'.encode('latin-1'), b'c', 0, b'')])
        rawzip('corpus/raw-utf8-noflag.zip', [('日本.txt'.encode(), b'n', 0, b'')])
        rawzip('corpus/raw-unicode-path.zip', [('Ü.txt'.encode('cp437'), b'u', 0, unicode_path('Ü.txt'.encode('cp437'), 'Ü.txt'.encode()))])
        rawzip('corpus/raw-padded.zip', [(b'p.txt', b'padded', 0, b'\0\0\0'), (b'q.txt', b'q', 0, struct.pack('<HHB4s', 0x5455, 5, 1, b'\0' * 4) + b'\0\0')])
        """#

    @Test func extractionMatchesBsdtar() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.corpusScript)
        var differences: [String] = []
        let archives = fixtures.listing("corpus")
        #expect(archives.count > 30, "the corpus was made")
        for archive in archives {
            let reference = "bsdtar/" + archive, ours = "ours/" + archive
            try FileManager.default.createDirectory(atPath: fixtures.path(reference), withIntermediateDirectories: true)
            let bsdtarExtracted = try Self.status(["bsdtar", "-xf", fixtures.path("corpus/" + archive), "-C", fixtures.path(reference)]) == 0
            let failure = fixtures.extract("corpus/" + archive, to: ours)
            switch (bsdtarExtracted, failure) {
            case (true, nil):
                differences += Self.compare(TreeSnapshot(fixtures.path(reference)), TreeSnapshot(fixtures.path(ours)), archive)
            case (true, let failure?):
                if let reason = Self.refusals[archive], failure.reason.contains(reason) { continue }
                differences.append("\(archive): bsdtar extracts it, flowrun fails: \(failure.reason)")
            case (false, nil):
                // bsdtar also exits 1 on a warning (a pax name that is not UTF-8), having extracted all.
                let compared = Self.compare(TreeSnapshot(fixtures.path(reference)), TreeSnapshot(fixtures.path(ours)), archive)
                if !compared.isEmpty { differences.append("\(archive): bsdtar fails, flowrun extracts it") }
                differences += compared
            case (false, _?):
                continue
            }
        }
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// As another user than root, modes are masked by the umask: bsdtar run as nobody is the reference.
    @Test(.enabled(if: geteuid() == 0, "runs bsdtar as the user nobody, which needs root"))
    func modesMatchBsdtarRunAsAnotherUser() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.corpusScript)
        try fixtures.run(["chmod", "-R", "a+rX", fixtures.folder])
        var differences: [String] = []
        for archive in ["gnutar-gnu.tar", "bsdtar-pax.tar", "infozip.zip", "python.zip", "python-duplicates.tar"] {
            let reference = fixtures.path("nobody/" + archive), ours = fixtures.path("ours/" + archive)
            try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
            try fixtures.run(["chown", "nobody", reference])
            // The temporary folder may be closed to others: bsdtar starts in its folder and reads
            // the archive root opened for it, as a seekable file.
            let user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
            let extracted = try Self.status(user + ["bsdtar", "-xf", "/dev/stdin"], in: reference, input: fixtures.path("corpus/" + archive))
            try #require(extracted == 0, "bsdtar as nobody extracts \(archive)")
            var extractor = ArchiveExtractor(from: fixtures.path("corpus/" + archive), to: ours, format: nil, stripComponents: 0, limits: ExtractionLimits())
            extractor.preservePermissions = false
            try extractor.run(isCancelled: { false }, progress: { _, _ in })
            differences += Self.compare(TreeSnapshot(reference), TreeSnapshot(ours), archive)
        }
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    static func compare(_ reference: TreeSnapshot, _ ours: TreeSnapshot, _ archive: String) -> [String] {
        let paths = Set(reference.entries.keys).union(ours.entries.keys).sorted { $0.lexicographicallyPrecedes($1) }
        return paths.compactMap { path in
            let expected = reference.entries[path], actual = ours.entries[path]
            guard expected != actual else { return nil }
            return "\(archive): '\(BytePath.shown(path))' is \(actual ?? "missing"), bsdtar: \(expected ?? "missing")"
        }
    }

    /// `argv`'s exit status, its output dropped; names in UTF-8 as a UTF-8 locale reads them.
    static func status(_ argv: [String], in folder: String? = nil, input: String? = nil) throws -> Int32 {
        let process = Process()
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = Array(UmaskedChild.argv(["/usr/bin/env", "LC_ALL=C.UTF-8"] + argv).dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Every path below a folder, by its bytes, with what a user would check of it: type, mode,
/// modification time, contents or link target, and which paths are one file (hard links).
struct TreeSnapshot {
    var entries: [[UInt8]: String] = [:]

    init(_ root: String) {
        var inodes: [UInt64: [UInt8]] = [:]
        walk(BytePath(root), [], &inodes)
    }

    private mutating func walk(_ root: BytePath, _ relative: [[UInt8]], _ inodes: inout [UInt64: [UInt8]]) {
        let folder = root.appending(relative)
        let names = ((try? FileTree.children(folder)) ?? []).sorted { $0.lexicographicallyPrecedes($1) }
        for name in names {
            let path = relative + [name]
            let key = Array(path.joined(separator: [UInt8(ascii: "/")]))
            let full = root.appending(path)
            guard let info = FileTree.status(full) else { continue }
            let mode = String(info.st_mode & 0o7777, radix: 8), time = info.st_mtim.tv_sec
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                // A folder the archive has no entry for is made at extraction, at "now": the two
                // extractions may straddle a second, so such a time is only said to be recent.
                let made = abs(Int(time) - Int(Date().timeIntervalSince1970)) < 3600
                entries[key] = "folder \(mode) \(made ? "made at extraction" : String(time))"
                walk(root, path, &inodes)
            case S_IFLNK:
                entries[key] = "symlink to '\(BytePath.shown(FileTree.readLink(full) ?? []))'"
            case S_IFREG:
                if info.st_nlink > 1, let first = inodes[UInt64(info.st_ino)] {
                    entries[key] = "a hard link to '\(BytePath.shown(first))'"
                    continue
                }
                if info.st_nlink > 1 { inodes[UInt64(info.st_ino)] = key }
                entries[key] = "file \(mode) \(time) \(info.st_size) bytes, checksum \(Self.checksum(full))"
            default:
                entries[key] = "special \(info.st_mode)"
            }
        }
    }

    /// A hash of the file's bytes: both trees are hashed in the same process, with the same seed.
    private static func checksum(_ path: BytePath) -> String {
        let fd = path.withCString { open($0, O_RDONLY) }
        guard fd >= 0 else { return "unreadable" }
        defer { close(fd) }
        var hasher = Hasher()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            buffer.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return String(hasher.finalize(), radix: 16)
    }
}
