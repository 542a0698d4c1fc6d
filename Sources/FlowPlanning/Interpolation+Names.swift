extension Interpolation {
    /// Every name `text` refers to (`${NAME}`, `${NAME:-WORD}`, and those inside WORD), whether
    /// or not its value would be taken; `$${` is a literal `${` and refers to none. What a field
    /// can read of the environment, for `PlanCache`'s key: a name in a malformed reference may
    /// be listed too, which costs at most a plan made again.
    package static func names(in text: String) -> Set<String> {
        // Most fields name nothing: no walk by characters (~12 K instructions a download's URL).
        guard text.utf8.contains(UInt8(ascii: "$")) else { return [] }
        var names: Set<String> = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            rest = rest[dollar...]
            if rest.hasPrefix("$${") {
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("${") {
                rest = rest.dropFirst(2)
                let name = rest.prefix { $0 != "}" && $0 != ":" && $0 != "$" }
                if isName(String(name)) { names.insert(String(name)) }
                rest = rest.dropFirst(name.count)
            } else {
                rest = rest.dropFirst()
            }
        }
        return names
    }
}
