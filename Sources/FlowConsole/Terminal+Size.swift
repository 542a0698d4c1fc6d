#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Terminal {
    /// The size of the terminal on `descriptor` (`TIOCGWINSZ`), or nil when it is not a terminal
    /// or does not say (some report 0 by 0).
    public static func size(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        #if canImport(Glibc)
        let result = ioctl(descriptor, UInt(TIOCGWINSZ), &size)
        #else
        let result = ioctl(descriptor, TIOCGWINSZ, &size)
        #endif
        guard result == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
