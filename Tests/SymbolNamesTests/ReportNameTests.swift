import Testing

@testable import SymbolNames

/// Names a crash report already gives (Apple writes them demangled, Swift's without the module)
/// simplify to what the same function's mangled name simplifies to, so a frame the report names
/// and one our debug file names make one signature.
@Suite struct ReportNameTests {
    @Test(arguments: [
        // From real reports (Tests/Fixtures/crash-reports/real).
        ("specialized static SettingsReset.deleteAllLocalData(context:)", "SettingsReset.deleteAllLocalData"),
        ("DataSettingsView.factoryReset()", "DataSettingsView.factoryReset"),
        ("closure #1 in closure #4 in DataSettingsView.body.getter", "closure in DataSettingsView.body"),
        ("YuiLines.fail", "YuiLines.fail"),
        ("__TCCAccessRequest_block_invoke.231", "__TCCAccessRequest_block_invoke.231"),
        ("foo.cold.1", "foo.cold.1"),
        ("-[UIApplication _run]", "-[UIApplication _run]"),
        ("__pthread_kill", "__pthread_kill"),
        ("main", "main"),
    ])
    func aReportsNameSimplifiesAsOurs(report: String, simplified: String) {
        #expect(SymbolName.simplifiedReportName(report) == simplified)
    }

    /// The same function named by the demangler (with its module) and by a report (without).
    @Test func oneFunctionOneName() {
        let ours = SwiftNames.simplifiedSwift("YuiApp.ChatStore.apply(_: Swift.Int) -> ()")
        #expect(ours == "ChatStore.apply")
        #expect(SymbolName.simplifiedReportName("ChatStore.apply(_:)") == ours)
        #expect(
            SymbolName.simplifiedReportName("mlx::core::gpu::eval(mlx::core::array&)")
                == SwiftNames.simplifiedCxx("mlx::core::gpu::eval(mlx::core::array&)"))
    }
}
