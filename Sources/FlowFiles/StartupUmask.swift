import CLinux
import Glibc

/// The umask flowrun started with, which fixes the modes of what it creates.
///
/// libarchive's disk writer reads the umask by setting it to 0 and back at every entry
/// (`DiskWriter` in FlowActions). A file or folder created by another thread in that moment (a
/// download's temporary file, a state file, a `mkdir -p`) would get 0666 or 0777 from the
/// kernel. Created with `masking(mode)`, it gets the same mode under either umask.
package enum StartupUmask {
    /// Read before main (`flowrun_startup_umask`).
    package static let value: mode_t = flowrun_startup_umask()

    /// `mode` less what the user's umask takes away.
    package static func masking(_ mode: mode_t) -> mode_t {
        mode & ~value
    }
}
