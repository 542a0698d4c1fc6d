import Testing

@testable import FlowActions

/// The output loop's table of watched descriptors: what is set is found under its number until
/// removed, numbers far apart and reused included.
@Suite struct DescriptorTableTests {
    @Test func aValueIsFoundUnderItsDescriptorUntilRemoved() {
        var table = DescriptorTable<String>()
        #expect(table[5] == nil)
        table[5] = "five"
        table[300] = "three hundred"
        table[0] = "zero"
        #expect(table[5] == "five")
        #expect(table[300] == "three hundred")
        #expect(table[6] == nil)
        #expect(table[-1] == nil)
        table[5] = nil
        #expect(table[5] == nil)
        #expect(table.entries.map(\.descriptor) == [0, 300])
        #expect(table.entries.map(\.value) == ["zero", "three hundred"])
        table[5] = "again"
        #expect(table[5] == "again")
        table[1000] = nil  // removing what was never there grows nothing
        #expect(table.entries.map(\.descriptor) == [0, 5, 300])
    }
}
