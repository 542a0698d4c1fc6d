import FlowFiles
import Glibc

/// Where an action writes its `to`: through a symbolic link to the link's target, as `curl -o`,
/// `wget -O` and `cp` write through one and `bsdtar -C` extracts into one; the link stays. The
/// temporary file (or staging folder) then goes beside the target, so that the rename putting
/// it in place replaces the target, not the link, and stays on the target's file system.
enum LinkedDestination {
    /// `to`, or the path at the end of its links (also a dangling link's target, which the
    /// write creates, as `tee` does); a loop of links is the task's failure.
    static func resolved(_ to: String) throws(ActionFailure) -> String {
        guard let end = LinkTarget.end(of: to) else {
            throw ActionFailure("cannot write '\(to)': \(String(cString: strerror(ELOOP)))", retryable: false)
        }
        return end
    }
}
