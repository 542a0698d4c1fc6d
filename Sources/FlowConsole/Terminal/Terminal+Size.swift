import Glibc

extension Terminal {
    /// The size of the terminal on `descriptor` (`TIOCGWINSZ`), or nil when it is not a terminal
    /// or does not say (some report 0 by 0).
    package static func size(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        let result = ioctl(descriptor, UInt(TIOCGWINSZ), &size)
        guard result == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
