import FlowFiles
import Glibc

/// Where an action writes its `to`: through a symbolic link to the link's target, as `curl -o`,
/// `wget -O` and `cp` write through one and `bsdtar -C` extracts into one; the link stays. The
/// temporary file (or staging folder) then goes beside the target, so that the rename putting
/// it in place replaces the target, not the link, and stays on the target's file system.
enum LinkedDestination {
    /// `to`, or the path at the end of its links (also a dangling link's target, which the
    /// write creates, as `tee` does); a loop of links is the task's failure, and so is a
    /// device, FIFO or socket there.
    static func resolved(_ to: String) throws(ActionFailure) -> String {
        guard let end = LinkTarget.end(of: to) else {
            throw ActionFailure("cannot write '\(to)': \(String(cString: strerror(ELOOP)))", retryable: false)
        }
        // The rename that puts the file in place would replace the node itself: as root,
        // `to: /dev/null` left a regular file where /dev/null was, for every program after.
        var status = stat()
        if lstat(end, &status) == 0, let kind = specialKind(status.st_mode) {
            throw ActionFailure(
                "'\(to)' is \(kind): 'to' is written as a file, which would replace it; name a file", retryable: false)
        }
        return end
    }

    private static func specialKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: nil
        }
    }
}
