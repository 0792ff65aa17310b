/// A crash report as one `crash` diagnostic row (docs/crash-reports.md): the last exception
/// backtrace's frames, else the crashed thread's, as the row's stack (`imageOffset` is already an offset into the image), the build,
/// version, OS and device from the report, its moment as the period, and a key made from the
/// report's bytes. Nothing else of the report goes into the row: no paths, queue or thread names,
/// termination text, incident or crash-reporter identifiers.
enum CrashReportRow {
    static func row(
        _ report: AppleCrashReport, ordinal: Int, options: ConversionOptions, place: String,
        problem: (IPSReader.Problem) -> Void
    ) -> Row? {
        var refused = false
        func refuse(_ key: String, _ message: String) {
            problem((.error, "\(place), \(key)", message))
            refused = true
        }
        var build = 0
        if let text = report.buildVersion {
            switch ColumnPatterns.appBuild(text) {
            case .success(let number): build = number
            case .failure(let refusal): refuse("build_version", refusal.message)
            }
        } else {
            refuse("build_version", "missing (nor bundleInfo.CFBundleVersion); rows need the build")
        }
        let version = report.appVersion ?? ""
        if report.appVersion == nil {
            refuse("app_version", "missing; rows need the version")
        } else if !ColumnPatterns.isDottedNumber(version) {
            refuse("app_version", "\(InputText.quoted(version)) does not fit app_version (digits and dots only)")
        }
        var os = ""
        if let text = report.osVersion {
            if let number = ColumnPatterns.osNumber(text) {
                os = number
            } else {
                refuse("os_version", "\(InputText.quoted(text)) holds no version number")
            }
        } else {
            refuse("os_version", "missing; rows need the OS")
        }
        let device = report.modelCode ?? ""
        if report.modelCode == nil {
            refuse("modelCode", "missing; rows need the device model")
        } else if !ColumnPatterns.isDevice(device) {
            refuse("modelCode", "\(InputText.quoted(device)) is not a model identifier (like iPhone17,2) or arm64")
        }
        guard let time = report.time, let moment = Timestamp.iso8601(time) else {
            refuse("captureTime", "missing or not a timestamp (nor the header's timestamp); rows need the period")
            return nil
        }
        guard !refused else { return nil }
        var stack: [StackFrame] = []
        for frame in report.rowFrames.prefix(StackNormalizer.maxFrames) {
            let image = frame.imageIndex.map { report.images[$0] }
            stack.append(
                StackFrame(
                    image: image?.name.flatMap { ColumnPatterns.imageName($0.utf8.prefix(1024)) }, uuid: image?.uuid,
                    offset: frame.imageOffset))
        }
        // The key: the report's bytes and the user; not its place in the file, so the same report in
        // two files (a download and a copy in a bundle) is one row.
        var keyName = report.digest
        keyName.append(contentsOf: Array("\ncrash\n\(options.userID ?? "")".utf8))
        let row = Row(
            user_id: options.userID, row_key: NameBasedUUID.make(namespace: NameBasedUUID.rowKeyNamespace, name: keyName),
            kind: .diagnostic, name: DiagnosticName.crash.rawValue, app_build: build, app_version: version, os: os,
            device: device, promotion: options.promotionOverride ?? DeviceModels.hasPromotion(device), low_power: false,
            thermal: 0, period_start: moment, period_end: moment, n: 1, buckets: nil, p50: nil, p95: nil, max: nil, value: nil,
            stack: stack.isEmpty ? nil : stack, exception_type: number(report.exceptionType, in: CrashCause.exceptionNames),
            signal: number(report.signal, in: CrashCause.signalNames),
            termination_code: CrashCause.terminationCode(namespace: report.terminationNamespace, code: report.terminationCode),
            bundle_id: report.bundleID.flatMap { ColumnPatterns.isBundleID($0) ? $0 : nil })
        return row
    }

    /// The number of a name the report spells (`EXC_BAD_ACCESS`, `SIGSEGV`); `nil` for a name not
    /// in the table, which a row cannot keep (its columns are numbers).
    private static func number(_ name: String?, in table: [Int: String]) -> Int? {
        guard let name else { return nil }
        return table.first { $0.value == name }?.key
    }
}
