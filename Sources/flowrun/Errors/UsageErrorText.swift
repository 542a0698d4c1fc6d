/// ArgumentParser's usage errors in flowrun's own form: `Error: Unknown option '--evnets'. Did
/// you mean '--events'?` becomes `flowrun: error: unknown option '--evnets'; did you mean
/// '--events'?`, as flowrun's other errors read; the usage lines after it stay.
enum UsageErrorText {
    static func flowrunStyle(_ message: String) -> String {
        guard message.hasPrefix("Error: ") else { return message }
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var first = String(lines[0].dropFirst("Error: ".count))
        // "Unknown option" reads as the sentence start it was; "URL ..." keeps its capitals.
        if let head = first.first, head.isUppercase, first.dropFirst().first?.isLowercase == true {
            first = head.lowercased() + first.dropFirst()
        }
        lines[0] = "flowrun: error: " + first.replacingOccurrences(of: ". Did you mean ", with: "; did you mean ")
        return lines.joined(separator: "\n")
    }
}
