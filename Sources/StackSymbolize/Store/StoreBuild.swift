/// The build folder a version lands in (docs/symbolication.md, "The store"): the rows' rule for
/// `appBuildVersion`, so a file and the frames that need it meet in one folder.
public enum StoreBuild {
    /// The build number of a `CFBundleVersion` or `--build` value: digits and dots, the integer
    /// part counting (`130.1` is build 130, `4.2.1` is build 4, `007` is build 7), at most
    /// 2147483647 as in the `app_build` column. Anything else (`system`, `beta`, `1a`) is no
    /// build number and never names a build folder.
    public static func number(fromVersion version: String) -> Int? {
        let integerPart = version.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !integerPart.isEmpty, integerPart.utf8.count <= 10,
            integerPart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            version.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }),
            let number = Int(integerPart), number <= Int(Int32.max)
        else { return nil }
        return number
    }

    /// Why `version` names no build folder, for an error that names the file and the value.
    public static func refusal(of version: String) -> String {
        let digitsAndDots =
            !version.isEmpty
            && version.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") })
        if digitsAndDots, !version.hasPrefix(".") {
            return "is larger than 2147483647, the most app_build holds (rows cannot name such a build)"
        }
        return "is not a build number (digits and dots)"
    }

    /// The folder name of a build number's folder: the number in decimal, no leading zeros.
    public static func folderName(fromVersion version: String) -> String? {
        number(fromVersion: version).map(String.init)
    }
}
