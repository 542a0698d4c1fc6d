import Foundation

/// Extraction runs with a UTF-8 character type on its own thread (`uselocale`), the process's
/// locale untouched. flowrun never calls `setlocale`, so it runs in the C locale, where libarchive
/// cannot convert a name a zip flags as UTF-8 into the locale's ASCII and gives no name at all.
/// Under UTF-8 such names come through; names in other encodings pass as bytes either way.
enum ThreadLocale {
    nonisolated(unsafe) private static let utf8: locale_t? = (["C.UTF-8", "C.utf8", "en_US.UTF-8"] as [String]).lazy
        .compactMap { newlocale(1 << LC_CTYPE, $0, nil) }.first  // LC_CTYPE_MASK

    static func withUTF8<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let utf8 else { return try body() }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return try body()
    }
}
