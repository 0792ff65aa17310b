import Testing

@Suite struct PayloadToolSmoke {
    @Test func builds() { #expect(Bool(true)) }
}
