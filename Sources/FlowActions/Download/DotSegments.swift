/// RFC 3986 section 5.2.4 remove_dot_segments, as curl and wget apply it to a redirect's
/// target: `/a/b/../c` is `/a/c`, `/../x` is `/x`. Only literal `.` and `..` segments go
/// (`%2e` stays, as curl keeps it); empty segments stay (`/a//b/../c` is `/a//c`).
enum DotSegments {
    static func removed(from path: String) -> String {
        var input = Substring(path)
        var output = ""
        func dropLastSegment() {
            output = String(output[..<(output.lastIndex(of: "/") ?? output.startIndex)])
        }
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") || input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                dropLastSegment()
            } else if input == "/.." {
                input = "/"
                dropLastSegment()
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let end = input.dropFirst().firstIndex(of: "/") ?? input.endIndex
                output += input[..<end]
                input = input[end...]
            }
        }
        return output
    }
}
