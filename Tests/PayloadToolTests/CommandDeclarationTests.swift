import Testing

@testable import PayloadTool

/// The option declarations every command's parsing, usage line and help are made from.
@Suite struct CommandDeclarations {
    static let descriptions = PayloadTool.commands

    /// The usage line names every option (`rows`' once lacked `--jobs`).
    @Test(arguments: descriptions.map(\.name))
    func usageNamesEveryOption(command: String) throws {
        let description = try #require(Self.descriptions.first { $0.name == command })
        #expect(description.optionsMissingFromUsage.isEmpty, "\(command)")
    }

    /// No spelling names two options (an alias such as `-o` or `-arch` included), nor `-h`.
    @Test(arguments: descriptions.map(\.name))
    func eachOptionIsDeclaredOnce(command: String) throws {
        let description = try #require(Self.descriptions.first { $0.name == command })
        let names = (description.options + [CommandDescription.helpOption]).flatMap(\.spellings)
        #expect(Set(names).count == names.count, "\(command): \(names)")
    }

    /// Placeholders are upper-case words, or the words of a choice as typed (`on|off`, `linkage`),
    /// and no help text writes a metavariable another way (`<url>`, `<ROOT>`).
    @Test(arguments: descriptions.map(\.name))
    func placeholdersFollowOneStyle(command: String) throws {
        let description = try #require(Self.descriptions.first { $0.name == command })
        for option in description.options {
            guard let placeholder = option.placeholder else { continue }
            let isUpperCase = placeholder == placeholder.uppercased() && !placeholder.contains("<")
            let isChoice = option.completion == .words(placeholder.components(separatedBy: "|"))
            #expect(isUpperCase || isChoice, "\(command) \(option.name) \(placeholder)")
        }
        let angled = description.help.split(separator: "\n").filter { line in
            line.range(of: "<[A-Za-z][A-Za-z -]*>", options: .regularExpression) != nil
        }
        #expect(angled.isEmpty, "\(command): \(angled)")
    }

    @Test func helpPutsLongNamesOnTheirOwnLine() {
        let help = RowsOptions.description.help
        #expect(help.contains("  --format json|jsonl|csv|sql\n                          json (default"))
        #expect(help.contains("  --jobs N                Files converted at once"))
    }
}

/// Each kind of value is checked by one parser, with each command's wording of the refusal.
@Suite struct ValueParsers {
    let context = ValueContext(name: "--count", synopsis: "--count N")

    @Test func integersOutsideTheirRangeAreRefusedInTheChosenWording() {
        let parser = ValueParser<Int>.integer(in: 1...64, .invalidValue(detail: " (1 to 64)."))
        #expect((try? parser.parse("64", for: context)) == 64)
        #expect(throws: UsageError.self) { try parser.parse("65", for: context) }
        do {
            _ = try ValueParser<Int>.integer(in: 1...10, .isInvalidFor("a whole number from 1 to 10")).parse("0", for: context)
            Issue.record("0 was accepted")
        } catch {
            #expect(error.message == "The value '0' is invalid for '--count N': a whole number from 1 to 10.")
        }
    }

    @Test func secondsAreFiniteAndNotNegative() {
        for text in ["-1", "nan", "inf", "x"] {
            #expect(throws: UsageError.self) { try ValueParser<Double>.seconds.parse(text, for: context) }
        }
        #expect((try? ValueParser<Double>.seconds.parse("0.5", for: context)) == 0.5)
    }

    @Test func aChoiceListsItsWordsAsThePlaceholder() {
        let parser = ValueParser<Bool>.choice(["on": true, "off": false], .invalidValue(detail: " (on or off)."))
        #expect(parser.placeholder == "on|off")
        #expect((try? parser.parse("off", for: context)) == false)
    }

    @Test func timeZonesAreNamesOrOffsets() {
        #expect((try? ValueParser.timeZone.parse("+01:30", for: context))?.secondsFromGMT() == 5400)
        #expect((try? ValueParser.timeZone.parse("Europe/Berlin", for: context)) != nil)
        for text in ["+25:00", "Mars/Olympus", "Berlin", "+0100"] {
            #expect(throws: UsageError.self) { try ValueParser.timeZone.parse(text, for: context) }
        }
    }
}
