import Testing

@Suite struct PayloadDecodeSmoke {
    @Test func builds() { #expect(Bool(true)) }
}
