import FlowModel
import Foundation

/// `dotenv:` files: `KEY=VALUE` lines read as docker compose reads a `.env` file.
///
/// Blank lines and lines starting with `#` are skipped; `export ` before a key is allowed; an
/// unquoted value is trimmed and ends at ` #`; a single-quoted value is taken as it is; a
/// double-quoted one understands `\n`, `\t`, `\\`, `\"` and `\$`; both quoted forms may span
/// lines, and only blanks and a comment may follow the closing quote. Unquoted and
/// double-quoted values expand `${OTHER}` as compose does (`DotenvInterpolation`).
enum Dotenv {
    /// The entries of `text`, in order, and a problem for each line that is not `KEY=VALUE`.
    static func parse(
        _ text: String, file: String, environment: [String: String] = [:]
    ) -> (
        entries: [EnvironmentEntry], problems: [Diagnostic]
    ) {
        var scope = DotenvScope(environment: environment)
        return parse(text, file: file, scope: &scope)
    }

    /// As `parse(_:file:environment:)`, with the keys of earlier files in `scope`, and this
    /// file's added to it.
    static func parse(_ text: String, file: String, scope: inout DotenvScope) -> (entries: [EnvironmentEntry], problems: [Diagnostic]) {
        var entries: [EnvironmentEntry] = []
        var problems: [Diagnostic] = []
        // "\r\n" is one Character to Swift, never equal to "\n": a CRLF file splits on it too.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        var number = 0
        while number < lines.count {
            let line = lines[number]
            number += 1
            let lineNumber = number
            var rest = line.drop { $0 == " " || $0 == "\t" }
            if rest.isEmpty || rest.hasPrefix("#") { continue }
            // `export` then blanks, a space or a tab, as compose and python-dotenv take it.
            if rest.hasPrefix("export ") || rest.hasPrefix("export\t") {
                rest = rest.dropFirst(7).drop { $0 == " " || $0 == "\t" }
            }
            let column = line.count - rest.count + 1
            guard let equals = rest.firstIndex(of: "=") else {
                problems.append(Diagnostic(.dotenvLine, at: SourceLocation(file: file, line: lineNumber, column: column)))
                continue
            }
            let key = String(rest[..<equals]).trimmingCharacters(in: .whitespaces)
            guard EnvironmentEntry.isValidName(key) else {
                problems.append(Diagnostic(.dotenvName(key), at: SourceLocation(file: file, line: lineNumber, column: column)))
                continue
            }
            var value = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            let at = SourceLocation(file: file, line: lineNumber, column: column)
            guard let quote = value.first, quote == "'" || quote == "\"" else {
                if let comment = value.range(of: " #") { value = value[..<comment.lowerBound] }
                while let last = value.last, last.unicodeScalars.allSatisfy(CharacterSet.whitespaces.contains) { value = value.dropLast() }
                let valueColumn = line.distance(from: line.startIndex, to: value.startIndex) + 1
                expandAndAdd(
                    key, value, doubleQuoted: false, line: lineNumber, column: valueColumn, file: file, at: at, scope: &scope,
                    to: &entries, &problems)
                continue
            }
            // A quoted value runs to its closing quote, on this line or a later one.
            var text = String(value.dropFirst())
            var closed: String?
            var trailing = Substring()
            while closed == nil {
                if let end = closingQuote(quote, in: text) {
                    closed = String(text[..<end])
                    trailing = text[text.index(after: end)...].drop { $0 == " " || $0 == "\t" || $0 == "\r" }
                } else if number < lines.count {
                    text += "\n" + lines[number]
                    number += 1
                } else {
                    break
                }
            }
            guard let closed else {
                problems.append(Diagnostic(.dotenvUnclosed(quote), at: at))
                continue
            }
            // After the closing quote only blanks and a comment may follow on its line: the rest
            // was dropped without a word (`A='abc'def` set `abc`; the shell gives `abcdef`).
            if !trailing.isEmpty, !trailing.hasPrefix("#") {
                let column = lines[number - 1].count - trailing.count + 1
                problems.append(
                    Diagnostic(.dotenvAfterQuote(String(trailing), quote), at: SourceLocation(file: file, line: number, column: column)))
                continue
            }
            if quote == "'" {
                if add(EnvironmentEntry(name: key, value: closed), at: at, to: &entries, &problems) {
                    scope.defined[key] = closed
                    scope.secretNames.remove(key)
                }
            } else {
                let valueColumn = line.distance(from: line.startIndex, to: value.startIndex) + 2
                expandAndAdd(
                    key, Substring(closed), doubleQuoted: true, line: lineNumber, column: valueColumn, file: file, at: at,
                    scope: &scope, to: &entries, &problems)
            }
        }
        return (entries, problems)
    }

    /// `raw` expanded (escapes read too when `doubleQuoted`) and added as `key`'s value, or the
    /// expansion's error; the key is then visible to later lines.
    private static func expandAndAdd(
        _ key: String, _ raw: Substring, doubleQuoted: Bool, line: Int, column: Int, file: String, at location: SourceLocation,
        scope: inout DotenvScope, to entries: inout [EnvironmentEntry], _ problems: inout [Diagnostic]
    ) {
        var interpolation = DotenvInterpolation(file: file, doubleQuoted: doubleQuoted, scope: scope)
        do {
            let value = try interpolation.expand(raw, line: line, column: column)
            scope = interpolation.scope
            guard add(EnvironmentEntry(name: key, value: value), at: location, to: &entries, &problems) else { return }
            scope.defined[key] = value
            if interpolation.tookSecret { scope.secretNames.insert(key) } else { scope.secretNames.remove(key) }
        } catch {
            scope.environmentNames.formUnion(interpolation.scope.environmentNames)
            problems.append(error.diagnostic)
        }
    }

    /// A value with a NUL is refused: the environment is C strings, so it would end there.
    @discardableResult
    private static func add(
        _ entry: EnvironmentEntry, at location: SourceLocation, to entries: inout [EnvironmentEntry], _ problems: inout [Diagnostic]
    ) -> Bool {
        guard !entry.value.utf8.contains(0) else {
            problems.append(Diagnostic(.dotenvNul(entry.name), at: location))
            return false
        }
        entries.append(entry)
        return true
    }

    private static func closingQuote(_ quote: Character, in text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if quote == "\"", text[index] == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if text[index] == quote { return index }
            index = text.index(after: index)
        }
        return nil
    }

    /// Reads each file of `files` (relative to `directory`; `?path` may be missing), in order,
    /// adding each to `sources` (a missing one without contents: its coming is a change too).
    static func read(
        _ files: [Located<String>], directory: String, sources: inout [SourceFile], scope: inout DotenvScope
    ) -> (entries: [EnvironmentEntry], problems: [Diagnostic]) {
        var entries: [EnvironmentEntry] = []
        var problems: [Diagnostic] = []
        for file in files {
            let optional = file.value.hasPrefix("?")
            let path = optional ? String(file.value.dropFirst()) : file.value
            let absolute = path.isAbsolutePath ? path : directory + "/" + path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder) else {
                if !optional { problems.append(Diagnostic(.dotenvMissing(path), at: file.location)) }
                sources.append(SourceFile(path: absolute, contents: nil))
                continue
            }
            // Said as such, as an include naming a folder is: reading it would fail as if it were text.
            guard !isFolder.boolValue else {
                problems.append(Diagnostic(.dotenvFolder(path), at: file.location))
                continue
            }
            guard let data = FileManager.default.contents(atPath: absolute), let text = String(data: data, encoding: .utf8) else {
                problems.append(Diagnostic(.dotenvUnreadable(path), at: file.location))
                continue
            }
            // The path as read, not standardized: through a symlinked folder, `link/..` is the
            // link target's parent to the kernel, and the cache must check the file read.
            sources.append(SourceFile(path: absolute, contents: [UInt8](data)))
            // Problems name the file as the workflow names it, relative to the workflow's file.
            let shown =
                file.location.file.utf8.contains(UInt8(ascii: "/")) && !path.isAbsolutePath
                ? file.location.file.pathFolder + "/" + path : path
            let parsed = parse(text, file: shown, scope: &scope)
            entries += parsed.entries
            problems += parsed.problems
        }
        return (entries, problems)
    }
}

extension Diagnostic.Message {
    static func optionalDotenvAsKey(_ key: String) -> Self {
        Self(
            "an item of 'dotenv' reads as a mapping: in a [...] list YAML takes '?' for a key",
            hint: "quote it: \"?\(key)\"")
    }
    static let dotenvLine = Self("expected KEY=VALUE (a comment starts with #)")
    static func dotenvName(_ name: String) -> Self {
        Self("invalid environment variable name '\(name)': use letters, digits and _, not starting with a digit")
    }
    static func dotenvNul(_ name: String) -> Self {
        Self("the value of '\(name)' holds a NUL character (\\0): a variable's value would end there")
    }
    static func dotenvUnclosed(_ quote: Character) -> Self {
        Self("the value's \(quote) is never closed")
    }
    static func dotenvAfterQuote(_ text: String, _ quote: Character) -> Self {
        Self("unexpected '\(text)' after the value's closing \(quote): quote the whole value")
    }
    static func dotenvMissing(_ path: String) -> Self {
        Self("dotenv file '\(path)' does not exist", hint: "mark a file that may be missing with '?': '?\(path)'")
    }
    static func dotenvFolder(_ path: String) -> Self {
        Self("dotenv file '\(path)' is a folder: name a KEY=VALUE file in it")
    }
    static func dotenvUnreadable(_ path: String) -> Self {
        Self("cannot read dotenv file '\(path)' as UTF-8 text")
    }
}
