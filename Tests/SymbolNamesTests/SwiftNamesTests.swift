import TestSupport
import Testing

@testable import SymbolNames

@Suite struct SwiftNamesTests {
    @Test(arguments: [
        ("$s6YuiApp0A5LinesV5parseyAA3NumVAFF", "YuiLines.parse"),
        ("_$s6YuiApp0A5LinesV5parseyAA3NumVAFF", "YuiLines.parse"),
        ("$s6YuiApp9ChatStoreV5applyyAA3NumVAA0C5EventVF", "ChatStore.apply"),
        ("$s6YuiApp10ThreadViewV4bodyAA3NumVvg", "ThreadView.body"),
        ("$s6YuiApp10ThreadViewV4bodyAA3NumVvgA2FcfU_", "closure in ThreadView.body"),
        ("$s6YuiApp0A5LinesV7measure_5widthAcA3NumV_AGtFZTf4nnd_n", "YuiLines.measure"),
        ("$s6YuiApp5crashyAA5FatalOAA3NumVF", "crash"),
        ("_ZN12IndexStoreDB18CanonicalPathCacheC2Ev", "CanonicalPathCache.CanonicalPathCache"),
        ("main", "main"),
        ("cmark_parser_new", "cmark_parser_new"),
    ])
    func simplified(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    @Test func demangleGivesTheFullName() {
        #expect(SwiftNames.demangle("$s6YuiApp0A5LinesV5parseyAA3NumVAFF") == "YuiApp.YuiLines.parse(YuiApp.Num) -> YuiApp.Num")
        #expect(SwiftNames.demangle("plain_c_function") == nil)
    }

    @Test(arguments: ["$s6YuiApp8Garbage!!", "$s", "_Z", "_ZN3foo", "$s999999999999Q", "_T0"])
    func malformedNamesStayRaw(_ name: String) {
        #expect(SwiftNames.simplified(name) == name)
    }

    @Test func garbageNeverCrashes() {
        var generator = SplitMix64(seed: 7)
        let alphabet = Array("$s_Z0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for _ in 0..<3000 {
            let length = Int(generator.next() % 60)
            let prefix = ["$s", "_$s", "_Z", "$S", "_T0", "_T", "__T"][Int(generator.next() % 7)]
            let body = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            _ = SwiftNames.simplified(prefix + body)
        }
    }

    // MARK: - Names that used to come back whole

    // Real symbols of the toolchain's Swift binaries (sourcekit-lsp, swift-package, docc,
    // swift-driver, swift-frontend), one table per kind of name.

    /// `function signature specialization <...> of`, `generic specialization <...> of`: the
    /// specialized function. The first two carry `[Closure Propagated : ...` headers, which the
    /// demangler prints without their closing bracket.
    @Test(arguments: [
        (
            "$sSr15_stableSortImpl2byySbx_xtKXE_tKFSS_Tg559$sSMsSkRzSL7ElementSTRpzrlE4sortyyFSbAB_ABtcfu_SaySSG_Tt1G5Tf1cn_n",
            "UnsafeMutableBufferPointer._stableSortImpl"
        ),
        (
            "$sSTsE6sorted2bySay7ElementQzGSbAD_ADtKXE_tKFSaySSG_Tg508$sSTsSL7c33RpzrlE6sortedSayABGyFSbAB_ABtcfu_I9SSG_Tt1G5Tf1cn_n",
            "Sequence.sorted"
        ),
        ("$s11DequeModule0A0VyxSicisTf4gnn_n", "Deque.subscript"),
        ("$sSS7cStringSSSays4Int8VG_tcfCTf4gn_n", "String.init"),
        ("$sSDyq_SgxcigSS_SSTg5", "Dictionary.subscript"),
        (
            "$sSMsSKRzrlE14_insertionSort6within9sortedEnd2byySny5IndexSlQzG_AFSb7ElementSTQz_AItKXEtKFSrySSG_Tg5",
            "MutableCollection._insertionSort"
        ),
        (
            "$sSMsSKRzrlE14_insertionSort6within9sortedEnd2byySny5IndexSlQzG_AFSb7ElementSTQz_AItKXEtKFSry7SWBCore3SDKCG_Tg5",
            "MutableCollection._insertionSort"
        ),
    ])
    func specializationsNameTheSpecializedFunction(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// `(1) suspend resume partial function for X`, `(14) await resume partial function for X`.
    @Test(arguments: [
        ("$s10SourceKitDAAC5crashyyYaFTY0_", "SourceKitD.crash"),
        ("$s8Diagnose0A7CommandV3runyyYaKFTQ13_", "DiagnoseCommand.run"),
        ("$s15SWBBuildService11ActiveBuildC4_runyyYaFTQ9_", "ActiveBuild._run"),
        ("$s10SourceKitDAACfdytSgyYacfU_TY0_", "closure in SourceKitD.deinit"),
        ("$sSq7SWBUtilE2oryxxyYaKXKYaKFTY0_", "Optional.or"),
    ])
    func asyncPartialFunctionsNameTheirFunction(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// A witness runs the conforming type's member: `NSObject.description`, not
    /// `CustomStringConvertible.description`. Conditional (`< where A: ...> Pair<A, B>`) and local
    /// conforming types included.
    @Test(arguments: [
        ("$s3AST4DeclCSHAASH9hashValueSivgTW", "Decl.hashValue"),
        ("$s3AST4DeclCSQAASQ2eeoiySbx_xtFZTW", "Decl.=="),
        ("$s7SWBUtil4PairVyxq_GSHAASHRzSHR_rlSH9hashValueSivgTW", "Pair.hashValue"),
        ("$s10SwiftBuild4PairVyxq_GSLAASLRzSLR_rlSL1goiySbx_xtFZTW", "Pair.>"),
        (
            "$s3SIL18registerPhiUpdateryyF0cD7ContextL_VAA0E0A2aEP8_bridgedSo07BridgedE0VvgTW",
            "registerPhiUpdater.PhiUpdaterContext._bridged"
        ),
        (
            "$s8SWBMacro20MacroValueAssignmentC8sequenceQrvg3SeqL_VStAASt4next7ElementQzSgyFTW",
            "MacroValueAssignment.sequence.Seq.next"
        ),
    ])
    func protocolWitnessesNameTheConformingTypesMember(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Reabstraction thunks serve no function of their own: plain, merged, behind a partial apply,
    /// specialized, with an unmangled suffix.
    @Test(arguments: [
        "$sIeg_IeyB_TR", "$sIeg_IeyB_TRTm", "$sIeg_ytIegr_TRTA", "$sxytIeghnr_xIeghn_r__lTRyt_ytTG5",
        "$sytIegr_Ieg_TRTA.121",
    ])
    func reabstractionThunksReadAsOneName(_ mangled: String) {
        #expect(SwiftNames.simplified(mangled) == SwiftNames.reabstractionThunkName)
    }

    /// Outlined copies and value witnesses name the type they work on (an optional's wrapped type);
    /// a tuple has no single type, so the operation names itself.
    @Test(arguments: [
        ("$sSSSgWOhTm", "String"),
        ("$sSSSgSgWOy", "String"),
        ("$s3WAT4NameVSgWOy", "Name"),
        ("$s3SIL10AccessBaseO9OptimizerE11InitializerOWOb", "AccessBase.Initializer"),
        ("$s3CLI3RunVwcp", "Run"),
        ("$sSS_SStWOh", "outlined destroy"),
        ("$sScsy7SWBUtil15SWBDispatchDataVs5Error_pG_AEtWOb", "outlined init with take"),
    ])
    func outlinedOperationsNameTheirType(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Closures inside specializations, in nested closures, behind partial applies, in a private
    /// extension's initializer (`(in _8428...)`).
    @Test(arguments: [
        ("$s11SKUtilities9DebouncerC12scheduleCallyyxFyyYacfU_yt_Tg5", "closure in Debouncer.scheduleCall"),
        (
            "$sSr15_stableSortImpl2byySbx_xtKXE_tKFySryxGz_SiztKXEfU_SS_Tg5",
            "closure in UnsafeMutableBufferPointer._stableSortImpl"
        ),
        ("$s7SWBUtil7PromiseCAAs5NeverORs_rlE5valuexvgyScCyxAEGXEfU_yt_Tg5", "closure in Promise.value"),
        ("$s8TSCBasic9tsc_awaityxyyxcXElFyxcfU_yyXEfU_", "closure in tsc_await"),
        (
            "$s7SWBCore25SwiftDriverJobCategorizerVyAcA0bcD0Vc33_8428D6B18ECC357705BE97EEC942D089LlfcSSycfU_TA",
            "closure in SwiftDriverJobCategorizer.init"
        ),
    ])
    func closuresNameTheirFunction(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Local functions, `defer` blocks and local types join the function they are declared in.
    @Test(arguments: [
        (
            "$s19SWBTaskConstruction21BuildRuleTaskProducerC13generateTasksSay7SWBCore07PlannedE0_pGyYaF6lookupL_y8SWBMacro15MacroExpressionCSgAI0M11DeclarationCF",
            "BuildRuleTaskProducer.generateTasks.lookup"
        ),
        ("$s8NIOPosix19SelectableEventLoopC3runyyKF6$deferL_yyF", "SelectableEventLoop.run.defer"),
        ("$s10SwiftBuild0aB10GetVersionSSyKF1CL_CfD", "SwiftBuildGetVersion.C.deinit"),
        (
            "$s11SwiftDriver12CachedOutputC4loadSbyYaKF15CallbackContextL_CfD",
            "CachedOutput.load.CallbackContext.deinit"
        ),
    ])
    func localDeclarationsJoinTheirFunction(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Extension members, operators (whose `<` is no bracket), a function printed as
    /// `log@Sendable (...)`, and members reached through default arguments, initial values,
    /// property wrappers, key paths and vtable thunks.
    @Test(arguments: [
        ("$sSS7SWBUtilE7newlineSSvgZ", "String.newline"),
        ("$ss5Int64V4X509E7leapochABvgZ", "Int64.leapoch"),
        ("$s7SWBUtil4PathV1loiySbAC_ACtFZ", "Path.<"),
        ("$s7SWBUtil7VersionV1loiySbAC_ACtFZ", "Version.<"),
        ("$s3CLI3RunV3log_7verboseySS_SbtYbF", "Run.log"),
        ("$s7NIOCore6NIOAnyV7forceAs4typexxm_tlFfA_", "NIOAny.forceAs"),
        ("$s7SWBUtil4DiffV4leftSayxGvpfi", "Diff.left"),
        ("$s9SwiftDocC7SnippetC5sliceSSSgvpfP", "Snippet.slice"),
        ("$sSJ9isNewlineSbvpSJTK", "Character.isNewline"),
        ("$s7SWBCore12FileTypeSpecC8typeNameSSvgZAA0D0CADSSvgZTV", "FileTypeSpec.typeName"),
    ])
    func membersKeepTheirTypeAndName(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Metadata accessors and witness tables name their type.
    @Test(arguments: [
        ("$sSo4statVMa", "stat"),
        ("$sS2SSKsWl", "String"),
        ("$s3AST4DeclCSHAASQWb", "Decl"),
    ])
    func metadataNamesItsType(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    // MARK: - Swift 3 names (`_T`)

    /// The runtime's `swift_demangle` no longer reads these; real Swift 3-era symbols (from
    /// Foundation and from an app's crash log) and an app's names in the same mangling, as Mach-O
    /// symbol tables also spell them (`__T`).
    @Test(arguments: [
        ("_TTWCSo8NSObjects23CustomStringConvertible10FoundationFS0_g11descriptionSS", "NSObject.description"),
        (
            "_TZFE10FoundationSS36_unconditionallyBridgeFromObjectiveCfGSqCSo8NSString_SS",
            "String._unconditionallyBridgeFromObjectiveC"
        ),
        ("_TFC10Foundation15NSSimpleCStringD", "NSSimpleCString.deinit"),
        ("_TFC12MessageModel9CdAccount14updateIdentityfT4withCS_7Account_T_", "CdAccount.updateIdentity"),
        ("_TZFC12MessageModel9CdAccount14updateOrCreatefT7accountCS_7Account_S0_", "CdAccount.updateOrCreate"),
        (
            "_TFFC9pEpForiOS26AccountVerificationService6verifyFT7accountC12MessageModel7Account_T_U_FT_T_",
            "closure in AccountVerificationService.verify"
        ),
        ("_TTRXFo___XFdCb___", SwiftNames.reabstractionThunkName),
        ("_TTSf4d___TTSg5Bi32____TFVs9Container11doSomethingfT_T_", "Container.doSomething"),
        ("_TPA__TFFC5MyApp14ViewController11viewDidLoadFT_T_U_FT_T_", "closure in ViewController.viewDidLoad"),
        ("_TToFC5MyApp14ViewController11viewDidLoadfT_T_", "ViewController.viewDidLoad"),
        ("__TFC5MyApp14ViewController11viewDidLoadfT_T_", "ViewController.viewDidLoad"),
        ("_TFC5MyApp11AppDelegateg6windowGSqCSo8UIWindow_", "AppDelegate.window"),
        ("_TTWV5MyApp4Users9EquatableS_ZFS1_oi2eefTxx_Sb", "User.=="),
        ("_TFV5MyApp4UserCfT4nameSS_S0_", "User.init"),
        (
            "_TFFC5MyApp14ViewController9tableViewFTCSo11UITableView14didSelectRowAtV10Foundation9IndexPath_T_L_6helperFT_T_",
            "ViewController.tableView.helper"
        ),
        ("_TFE5MyAppCSo16UIViewController9showAlertfT5titleSS_T_", "UIViewController.showAlert"),
        ("_TFC5MyApp14ViewController11viewDidLoadfT_T_.cold.1", "ViewController.viewDidLoad"),
    ])
    func swift3NamesSimplify(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.isSwiftMangled(mangled))
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    /// Full names as the toolchain's `swift-demangle --no-sugar` prints them.
    @Test(arguments: [
        (
            "_TTWCSo8NSObjects23CustomStringConvertible10FoundationFS0_g11descriptionSS",
            "protocol witness for Swift.CustomStringConvertible.description.getter : Swift.String in conformance __C.NSObject : Swift.CustomStringConvertible in Foundation"
        ),
        (
            "_TZFE10FoundationSS36_unconditionallyBridgeFromObjectiveCfGSqCSo8NSString_SS",
            "static (extension in Foundation):Swift.String._unconditionallyBridgeFromObjectiveC(Swift.Optional<__C.NSString>) -> Swift.String"
        ),
        ("_TFC10Foundation15NSSimpleCStringD", "Foundation.NSSimpleCString.__deallocating_deinit"),
        (
            "_TFFC9pEpForiOS26AccountVerificationService6verifyFT7accountC12MessageModel7Account_T_U_FT_T_",
            "closure #1 () -> () in pEpForiOS.AccountVerificationService.verify(account: MessageModel.Account) -> ()"
        ),
        (
            "_TTRXFo___XFdCb___",
            "reabstraction thunk helper from @callee_unowned @convention(block) () -> () to @callee_owned () -> ()"
        ),
        (
            "_TTSf4d___TTSg5Bi32____TFVs9Container11doSomethingfT_T_",
            "function signature specialization <Arg[0] = Dead> of generic specialization <Builtin.Int32> of Swift.Container.doSomething() -> ()"
        ),
        (
            "_TFCF5types1gFT1bSb_T_L0_10Collection3zimfT_T_",
            "zim() -> () in Collection #2 in types.g(b: Swift.Bool) -> ()"
        ),
        ("_TtGVV1a5Outer5InnerSi_Sb_", "a.Outer<Swift.Int>.Inner<Swift.Bool>"),
    ])
    func swift3NamesDemangleLikeTheToolchain(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.demangle(mangled) == expected)
    }

    /// C symbols that start with `_T` (libtiff's, the linker's), and names shaped like Swift 3's
    /// whose lengths do not add up, are not Swift and come back unchanged.
    @Test(arguments: [
        "_TIFFmalloc", "_TIFFClampDoubleToUInt32", "__TMC_END__", "_TFooBar", "_TFC12TestSwift4Sark3foofT3barSi_Si",
        "_TFC3foo3barCfT_", "_Tv3foo3barSiX", "_T",
    ])
    func cSymbolsStartingWithTStayAsTheyAre(_ name: String) {
        #expect(!SwiftNames.isSwiftMangled(name))
        #expect(SwiftNames.demangle(name) == nil)
        #expect(SwiftNames.simplified(name) == name)
    }

    /// Each local type below takes the previous one twice, so printing doubles per level: the
    /// name is refused instead of printed in 2^40 characters.
    @Test func swift3NameThatPrintsExponentiallyIsRefused() {
        var name = "_TtTCF4test1fFT_T_L_1A"
        for level in 1..<40 {
            let previous = level == 1 ? "S0_" : "S\(level - 1)_"
            name += "CFS_1gFT\(previous)\(previous)_T_L_1B"
        }
        name += "_"
        #expect(SwiftNames.demangle(name) == nil)
        #expect(SwiftNames.simplified(name) == name)
    }

    @Test func damagedSwift3NamesNeverCrash() {
        var generator = SplitMix64(seed: 11)
        let seeds = [
            "_TTWCSo8NSObjects23CustomStringConvertible10FoundationFS0_g11descriptionSS",
            "_TZFE10FoundationSS36_unconditionallyBridgeFromObjectiveCfGSqCSo8NSString_SS",
            "_TTSf4d___TTSg5Bi32____TFVs9Container11doSomethingfT_T_", "_TTRXFo___XFdCb___",
            "_TFCF5types1gFT1bSb_T_L0_10Collection3zimfT_T_",
        ].map { Array($0.utf8) }
        let alphabet = Array("_0123456789SsCVOPFfTtGgxqwWuRrzZLIiUDdEeabcMXKBo".utf8)
        for _ in 0..<5000 {
            var bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + generator.next() % 4) where bytes.count > 4 {
                let at = 2 + Int(generator.next() % UInt64(bytes.count - 2))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: if bytes.count > 4 { bytes.remove(at: at) }
                }
            }
            _ = SwiftNames.simplified(String(decoding: bytes, as: UTF8.self))
        }
    }
}
