import Foundation
import Glibc
import Testing

@testable import FlowFiles

/// `WorkingFolder`: a path inside flowrun's working folder is looked up from there, and names
/// the same file.
@Suite struct WorkingFolderTests {
    func lookup(_ path: String, prefix: String?) -> String {
        WorkingFolder.withLookupPath(path, prefix: prefix.map { Array($0.utf8) }) { String(cString: $0) }
    }

    @Test(arguments: [
        ("/work/in/0.txt", "/work/", "in/0.txt"),
        ("/work/a", "/work/", "a"),
        ("/work/", "/work/", "/work/"),  // the folder itself: whole
        ("/work", "/work/", "/work"),
        ("/workshop/a", "/work/", "/workshop/a"),  // another folder that starts the same
        ("/other/work/a", "/work/", "/other/work/a"),
        ("work/a", "/work/", "work/a"),
        ("/etc/hosts", "/", "etc/hosts"),  // working in `/`
    ])
    func aPathInTheFolderIsLookedUpFromIt(path: String, prefix: String, expected: String) {
        #expect(lookup(path, prefix: prefix) == expected)
    }

    @Test func withoutAFolderEveryPathIsWhole() {
        #expect(lookup("/work/a", prefix: nil) == "/work/a")
    }

    /// The real working folder: each regular file in it has the status its absolute path gives.
    @Test func aFileInTheWorkingFolderHasTheStatusOfItsAbsolutePath() throws {
        let folder = FileManager.default.currentDirectoryPath
        #expect(WorkingFolder.prefix == Array((folder.hasSuffix("/") ? folder : folder + "/").utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        var compared = 0
        for name in names {
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                #expect(FileStatus.of(path: path) == nil, "\(path)")
                continue
            }
            #expect(FileStatus.of(path: path) == FileStatus(info), "\(path)")
            compared += 1
        }
        #expect(FileStatus.of(path: folder + "/no such file \(UUID().uuidString)") == nil)
        #expect(compared > 0, "the working folder holds a file (the package's)")
    }
}
