import FlowModel
import Testing

@testable import FlowConsole

@Suite struct ConsoleTextTests {
    @Test(arguments: [
        ("plain text\twith tab", "plain text\twith tab"),
        ("\u{1B}[1;31mred\u{1B}[0m", "red"),
        ("\u{1B}]0;window title\u{07}after", "after"),
        ("\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"),
        ("\u{9B}2Jcleared", "cleared"),
        ("bell\u{07} nul\u{0} del\u{7F} c1\u{85}", "bell nul del c1"),
        ("10%\r50%\r100%", "100%"),
        ("trailing cr\r", "trailing cr"),
        ("one\ntwo\r\nthree", "one two three"),
        ("\u{1B}(Bcharset", "charset"),
        ("unterminated \u{1B}[", "unterminated "),
        ("héllo → ✓", "héllo → ✓"),
    ])
    func sanitizes(input: String, expected: String) {
        #expect(ConsoleText.sanitized(input) == expected)
    }

    /// On a terminal with colour, a task's colours show as they would in its own terminal, and
    /// end with its line; anything that could move the cursor or retitle the window still goes.
    @Test(arguments: [
        ("\u{1B}[1;31mred\u{1B}[0m plain", "\u{1B}[1;31mred\u{1B}[0m plain\u{1B}[0m"),
        ("\u{1B}[38:5:208morange left on", "\u{1B}[38:5:208morange left on\u{1B}[0m"),
        ("\u{1B}[2J\u{1B}[32mgreen\u{1B}[1A", "\u{1B}[32mgreen\u{1B}[0m"),
        ("\u{1B}]0;title\u{07}\u{1B}[?25lhidden cursor", "hidden cursor"),
        ("\u{9B}31mC1 is not kept", "C1 is not kept"),
        ("no colour at all", "no colour at all"),
    ])
    func keepsColoursWhenAsked(input: String, expected: String) {
        #expect(ConsoleText.sanitized(input, keepingColours: true) == expected)
    }

    @Test func keepsNewlinesWhenAsked() {
        #expect(ConsoleText.sanitized("a\nb\u{1B}[0m\rc", newlines: .keep) == "a\nc")
    }

    @Test(
        arguments: [
            (0, "0.0s"), (49, "0.0s"), (50, "0.1s"), (1234, "1.2s"), (59_949, "59.9s"), (59_950, "1m00s"),
            (125_000, "2m05s"), (3_599_499, "59m59s"), (3_599_500, "1h00m"), (3_725_000, "1h02m"), (-5, "0.0s"),
        ] as [(Int64, String)])
    func formatsDurations(milliseconds: Int64, expected: String) {
        #expect(DurationText.string(milliseconds: milliseconds) == expected)
        // The plain log's bytes, appended after what a line already holds, read the same.
        var bytes = Array("[t1] succeeded in ".utf8)
        DurationText.append(milliseconds: milliseconds, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "[t1] succeeded in " + expected)
    }

    @Test(
        arguments: [
            (0, nil, ProgressUnit.bytes, "0 B"), (999, nil, .bytes, "999 B"), (1000, nil, .bytes, "1.0 kB"),
            (999_999, nil, .bytes, "1.0 MB"), (1_500_000, 6_000_000, .bytes, "1.5 MB of 6.0 MB (25%)"),
            (5_999_999, 6_000_000, .bytes, "6.0 MB of 6.0 MB (99%)"), (1, nil, .entries, "1 entry"),
            (120, 300, .entries, "120 of 300 entries (40%)"), (5, 0, .entries, "5 entries"),
        ] as [(Int64, Int64?, ProgressUnit, String)])
    func formatsProgress(done: Int64, total: Int64?, unit: ProgressUnit, expected: String) {
        #expect(ProgressText.string(done: done, total: total, unit: unit) == expected)
    }
}
