/// Apple's system images as MetricKit names them in `binaryName` (the image's file name, no
/// path). A frame in one of them is a system frame; every other named image is the app's code,
/// whether or not its debug file is at hand (docs/top.md, "App frames").
///
/// Where the list comes from: the libraries of `/usr/lib` and the public and private frameworks
/// of the iOS shared cache, as Apple's crash reports and MetricKit call stacks name them (the
/// frameworks of the iOS SDK's `System/Library/Frameworks`, plus the private frameworks that
/// carry the UI run loop and SwiftUI: `UIKitCore`, `SwiftUICore`, `AttributeGraph`,
/// `GraphicsServices`, `FrontBoardServices`, `BaseBoard`, `RunningBoardServices`, ...). Every
/// library named `lib….dylib` counts as a system library: Apple's `/usr/lib` holds them (and
/// the `libswift*.dylib` an app may carry for back deployment are Apple's too). `--app-image NAME`
/// overrides the list for an image an app ships under such a name.
public enum SystemImages {
    /// Executables and frameworks of the system, by file name.
    public static let names: Set<String> = [
        // The dynamic linker and the UI run loop.
        "dyld", "dyld_sim", "GraphicsServices", "FrontBoardServices", "BaseBoard", "RunningBoardServices",
        "BoardServices", "UIKitCore", "UIKit", "UIKitServices", "UIFoundation", "TextInput", "TextInputCore",
        "SwiftUI", "SwiftUICore", "AttributeGraph", "Combine", "Observation", "SwiftData",
        // Foundation and Core layers.
        "CoreFoundation", "Foundation", "FoundationEssentials", "FoundationInternationalization", "CoreServices",
        "CFNetwork", "Network", "Security", "SystemConfiguration", "MobileCoreServices", "UniformTypeIdentifiers",
        "CoreData", "CloudKit", "CoreLocation", "CoreMotion", "CoreBluetooth", "CoreTelephony", "CoreNFC",
        "CoreSpotlight", "CoreML", "Vision", "NaturalLanguage", "Speech", "CoreHaptics", "BackgroundTasks",
        "os", "OSLog", "IOKit", "IOSurface", "IOSurfaceAccelerator", "libobjc.A.dylib",
        // Graphics, media, text.
        "QuartzCore", "CoreGraphics", "CoreText", "CoreImage", "ImageIO", "CoreVideo", "CoreMedia", "Metal",
        "MetalKit", "MetalPerformanceShaders", "AGXMetalG13X", "AGXMetalG14", "AGXMetalG15", "AGXMetalG16",
        "OpenGLES", "GLKit", "SceneKit", "SpriteKit", "ARKit", "RealityKit", "AVFoundation", "AVFCore",
        "AVFAudio", "AVKit", "AudioToolbox", "AudioToolboxCore", "CoreAudio", "MediaToolbox", "MediaPlayer",
        "MediaRemote", "VideoToolbox", "Accelerate", "vImage", "vecLib", "PhotosUI", "Photos", "PhotoLibraryServices",
        "PDFKit", "QuickLook", "QuickLookThumbnailing", "LinkPresentation", "CoreAnimation",
        // Web, maps, accounts, services.
        "WebKit", "WebCore", "JavaScriptCore", "WebKitLegacy", "SafariServices", "AuthenticationServices",
        "LocalAuthentication", "MapKit", "StoreKit", "PassKit", "GameKit", "GameController", "UserNotifications",
        "UserNotificationsUI", "Intents", "IntentsUI", "AppIntents", "WidgetKit", "ActivityKit", "Contacts",
        "ContactsUI", "EventKit", "EventKitUI", "HealthKit", "HomeKit", "MessageUI", "Messages", "CallKit",
        "PushKit", "WatchConnectivity", "MultipeerConnectivity", "NetworkExtension", "ExternalAccessory",
        "AdSupport", "AppTrackingTransparency", "DeviceCheck", "CryptoKit", "CryptoTokenKit", "Social",
        "Accounts", "AddressBook", "AddressBookUI", "AssetsLibrary", "DocumentManager", "FileProvider",
        "FileProviderUI", "VisionKit", "SharedWithYou", "TipKit", "Charts", "DeveloperToolsSupport",
        "CoreTransferable", "ManagedSettings", "FamilyControls", "ScreenTime", "NearbyInteraction",
        "SensorKit", "ClassKit", "CarPlay", "CoreAudioKit", "AppleArchive", "Compression",
        // Private frameworks seen in real iOS 26 MetricKit stacks (Tests/Fixtures/real-metrickit)
        // and Apple's crash reports: the UI update cycle, colour management, audio, layout.
        "UpdateCycle", "ColorSync", "AudioSession", "caulk", "CoreAutoLayout", "RenderBox", "CoreUI", "CoreSVG",
        "CoreMaterial", "CoreUtils", "AppleJPEG", "TextureIO", "ManagedConfiguration", "AssertionServices",
        "SpringBoardServices", "UIAccessibility", "AccessibilityUtilities", "AXCoreUtilities", "CoreDuet",
        "ProtocolBuffer", "MobileAsset", "ShareSheet", "Sharing", "IntentsCore", "DocumentManagerCore",
        "UIKitMacHelper", "Espresso", "AppleNeuralEngine", "MPSCore", "MPSNeuralNetwork",
        "CoreRE", "CoreServicesInternal", "CoreAnalytics", "SafariSafeBrowsing", "CorePrediction",
        "OSAnalytics", "CrashReporterSupport", "LaunchServices", "MobileKeyBag", "ProofReader", "TextInputUI",
        "KeyboardServices", "CoreDisplay", "Celestial", "MediaExperience", "CoreMIDI", "Chronod", "BackBoardServices",
    ]

    /// True when a frame in the image named `name` is a system frame.
    public static func contains(_ name: String) -> Bool {
        if names.contains(name) { return true }
        // Apple's /usr/lib: libsystem_kernel.dylib, libswiftCore.dylib, libdispatch.dylib, ...
        return name.hasPrefix("lib") && name.hasSuffix(".dylib")
    }
}
