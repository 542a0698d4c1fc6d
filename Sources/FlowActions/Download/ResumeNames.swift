import Foundation

/// The fixed names a resumable download's partial file and its `ResumeRecord` take beside
/// `to`: `.NAME.flowrun-resume.part` and `.NAME.flowrun-resume.meta`. Not `TemporaryName`s
/// (their suffix holds a dot), so `LeftoverSweep` leaves them for the next run to resume.
struct ResumeNames {
    var partial: String
    var record: String

    static let partialSuffix = ".flowrun-resume.part"
    static let recordSuffix = ".flowrun-resume.meta"

    /// Nil for a name too long to take the suffixes (`NAME_MAX`): such a download starts over.
    init?(destination: String) {
        let (folder, name) = FilePathParts.split(destination)
        guard name.utf8.count + 1 + Self.partialSuffix.utf8.count <= 255 else { return nil }
        partial = folder + "/." + name + Self.partialSuffix
        record = folder + "/." + name + Self.recordSuffix
    }
}
