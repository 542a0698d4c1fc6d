/// Why a run record cannot be read. Each is reported and the record is left alone: a record
/// never crashes flowrun, and one written by a newer flowrun is never misread.
package enum RecordProblem: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// Not a flowrun run record at all (another program's file, or garbage).
    case foreign(path: String)
    /// A flowrun record whose header is damaged.
    case corrupt(path: String, detail: String)
    /// Written by a newer flowrun, in a format this one does not know.
    case newer(path: String, version: Int)

    package var path: String {
        switch self {
        case .unreadable(let path, _), .foreign(let path), .corrupt(let path, _), .newer(let path, _): path
        }
    }

    package var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the run record \(path): \(reason)"
        case .foreign(let path):
            "\(path) is not a flowrun run record; ignored"
        case .corrupt(let path, let detail):
            "the run record \(path) is damaged (\(detail)); ignored"
        case .newer(let path, let version):
            "the run record \(path) was written by a newer flowrun (record format version \(version); this flowrun reads up to \(RecordHeader.currentVersion)); upgrade flowrun to read it"
        }
    }
}
