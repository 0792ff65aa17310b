import Testing

@Suite struct StackSymbolizeSmoke {
    @Test func builds() { #expect(Bool(true)) }
}
