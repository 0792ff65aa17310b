/// A text report's frames put in their images, once every line is read (the images come last).
enum CrashTextFrames {
    /// Each frame in its image: by the line's own `base + offset`, else the image whose range
    /// holds the address; a frame in no image keeps its address as the offset, with no image.
    /// Consecutive lines of one address marked `[inlined]` are one frame with an inline chain.
    /// `.row` reads an image line whole only when a frame lies in it: a report lists hundreds of
    /// images, and a row's frames lie in a few.
    static func place(
        _ frames: [(thread: Int?, line: CrashTextLines.FrameLine)], imageLines: [TextBytes], detail: CrashReportDetail,
        in report: inout AppleCrashReport
    ) {
        var words: [TextBytes] = []
        var lineOfImage: [TextBytes] = []
        var isWhole: [Bool] = []
        for line in imageLines {
            if detail == .full {
                guard let image = CrashTextLines.binaryImage(line, words: &words) else { continue }
                report.images.append(image)
            } else {
                guard let (start, end, _) = CrashTextLines.binaryImageRange(line) else { continue }
                let (last, overflow) = end.subtractingReportingOverflow(start)
                report.images.append(AppleCrashReport.Image(base: start, size: overflow || last == UInt64.max ? nil : last + 1))
            }
            lineOfImage.append(line)
            isWhole.append(detail == .full)
        }
        let listed = report.images.count
        /// Whether image `index` can hold frames, reading its line whole first if not yet read.
        func answers(_ index: Int) -> Bool {
            if !isWhole[index] {
                isWhole[index] = true
                report.images[index] = CrashTextLines.binaryImage(lineOfImage[index], words: &words) ?? AppleCrashReport.Image()
            }
            return !report.images[index].answersNothing
        }
        func holding(_ address: UInt64) -> Int? {
            (0..<listed).first { index in
                guard let base = report.images[index].base, let size = report.images[index].size, address >= base, address - base < size
                else { return false }
                return answers(index)
            }
        }
        var inlined: [AppleCrashReport.ReportName] = []
        for (position, pending) in frames.enumerated() {
            let line = pending.line
            if let name = line.name, name.isInlined, position + 1 < frames.count, frames[position + 1].thread == pending.thread,
                frames[position + 1].line.address == line.address
            {
                inlined.append(name)
                continue
            }
            var imageIndex = holding(line.address)
            var offset = line.address
            if let (base, lineOffset) = line.baseAndOffset {
                if imageIndex == nil { imageIndex = (0..<listed).first { report.images[$0].base == base && answers($0) } }
                // `0x0 + 0` on a `???` line says nothing: a frame in no image keeps its address.
                if imageIndex != nil { offset = lineOffset }
            } else if let index = imageIndex, let base = report.images[index].base {
                offset = line.address - base
            }
            if imageIndex == nil, !line.imageName.isEmpty, !CrashTextLines.equals(line.imageName, "???") {
                // Named on its line but in no listed image: the name is kept, with no UUID.
                let name = CrashTextLines.joinedWords(line.imageName)
                if let known = report.images[listed...].firstIndex(where: { $0.name == name }) {
                    imageIndex = known
                } else {
                    report.images.append(AppleCrashReport.Image(name: name))
                    imageIndex = report.images.count - 1
                }
            }
            var frame = AppleCrashReport.Frame(imageIndex: imageIndex, imageOffset: offset, address: line.address)
            frame.names = inlined + (line.name.map { [$0] } ?? [])
            frame.hasSymbol = !frame.names.isEmpty
            inlined = []
            if let thread = pending.thread {
                report.threads[thread].frames.append(frame)
            } else {
                report.lastExceptionBacktrace.append(frame)
            }
        }
    }
}
