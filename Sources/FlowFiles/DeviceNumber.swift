import CLinux
import Glibc

/// A device number (`st_dev`) as the kernel names it in its own files (`/proc/locks`:
/// `MAJOR:MINOR`), split by glibc's `major(3)` and `minor(3)`.
package struct DeviceNumber: Equatable, Sendable {
    package let major: UInt64
    package let minor: UInt64

    package init(_ device: dev_t) {
        major = UInt64(flowrun_device_major(device))
        minor = UInt64(flowrun_device_minor(device))
    }
}
