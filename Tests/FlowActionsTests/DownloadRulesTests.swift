import Testing

@testable import FlowActions

/// The download's pure decisions, value by value.
@Suite struct DownloadRulesTests {
    @Test func a206ContinuesTheKeptBytesOnlyWhenEverythingMatches() {
        func problem(
            _ range: String?, etag: String? = "\"v1\"", lastModified: String? = nil, validator: String = "\"v1\"", known: Int64? = 1000
        )
            -> String?
        {
            ResumedRange.problem(contentRange: range, etag: etag, lastModified: lastModified, keptBytes: 400, validator: validator, knownTotal: known)
        }
        #expect(problem("bytes 400-999/1000") == nil)
        #expect(problem("bytes 400-999/*", known: nil) == nil, "a * total is taken when the length was never known")
        #expect(problem("bytes 400-999/1000", known: nil) == nil)
        #expect(problem("bytes 400-999/*") == "HTTP 206 without the file's length (`*`), which was 1000 bytes")
        #expect(problem("bytes 400-1199/1200") == "HTTP 206 for a file of 1200 bytes, which was 1000")
        #expect(problem("bytes 0-999/1000") == "HTTP 206 resumed at byte 0, not 400")
        #expect(problem("bytes 400-999/1000", etag: "\"v2\"") == "HTTP 206 with ETag \"v2\", not \"v1\"")
        #expect(problem("bytes 400-999/1000", etag: "W/\"v1\"") == "HTTP 206 with ETag W/\"v1\", not \"v1\"")
        #expect(problem("bytes 400-999/1000", etag: nil) == "HTTP 206 with ETag none, not \"v1\"")
        #expect(problem(nil) == "HTTP 206 without a usable Content-Range")
        let date = "Mon, 02 Mar 2026 10:00:00 GMT"
        #expect(problem("bytes 400-999/1000", etag: nil, lastModified: date, validator: date) == nil)
        #expect(problem("bytes 400-999/1000", etag: nil, validator: date) == nil, "a 206 need not repeat Last-Modified")
        #expect(
            problem("bytes 400-999/1000", etag: nil, lastModified: "Tue, 03 Mar 2026 10:00:00 GMT", validator: date)
                == "HTTP 206 last modified Tue, 03 Mar 2026 10:00:00 GMT, not \(date)")
        #expect(
            ResumedRange.problem(contentRange: "bytes 0-9/10", etag: nil, lastModified: nil, keptBytes: 0, validator: nil, knownTotal: nil)
                == "HTTP 206 to a request for the whole file")
    }
}
