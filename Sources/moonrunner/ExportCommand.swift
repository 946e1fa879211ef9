import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSystem

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a session as GPX, TCX, FIT, GeoJSON, CSV or an SVG picture (?EXPORT).",
        discussion: "The file streams from the daemon piece by piece and is written as it arrives; with -o it "
            + "appears under its name only once complete.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Session id (see `moonrunner sessions`).", completion: SessionCompletion.kind) var id: Int64
    @Option(name: .shortAndLong, help: "gpx, tcx, fit, geojson, csv or svg.",
            completion: .list(RequestParser.exportFormats))
    var format = "gpx"
    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.", completion: .file())
    var output: String?

    func validate() throws {
        guard RequestParser.exportFormats.contains(format.lowercased()) else {
            throw ValidationError("--format must be one of \(RequestParser.exportFormats.joined(separator: ", "))")
        }
    }

    func run() throws {
        let client = try options.connect()
        let headerLine = try options.call(.export(id: id, format: format.lowercased()), on: client)
        if options.json { out(headerLine) }
        let header = try options.decode(ExportReply.self, headerLine)
        var assembler: ExportAssembler
        do {
            assembler = try ExportAssembler(header: header)
        } catch {
            throw fail("\(error)", ExitCodes.dataError)
        }
        let toStdout = output == nil || output == "-"
        if toStdout, !options.json, header.encoding == "base64", isatty(STDOUT_FILENO) == 1 {
            throw fail("\(header.format) is a binary format; write it with -o FILE or redirect standard output",
                       ExitCodes.usage)
        }
        let sink = try FileSink(path: toStdout || options.json ? nil : output)
        while !assembler.isComplete {
            let line: String
            do {
                line = try client.nextReply()
            } catch {
                sink.abandon()
                throw fail("the export stopped after \(assembler.bytes) of \(header.bytes) bytes: \(error)", ExitCodes.unavailable)
            }
            if options.json { out(line) }
            do {
                let piece = try assembler.accept(try ReplyEncoder.decode(ExportDataReply.self, from: line))
                if !options.json { try sink.write(piece) }
            } catch let e as FileSink.Failure {
                sink.abandon()
                throw fail(e.description, ExitCodes.ioError)
            } catch {
                sink.abandon()
                throw fail("the export is damaged: \(error) (\(line.prefix(120)))", ExitCodes.dataError)
            }
        }
        if options.json { return }
        do {
            try sink.finish()
        } catch {
            throw fail("\(error)", ExitCodes.ioError)
        }
        if let path = output, !toStdout {
            OutputFile.standardError.write("wrote \(header.bytes) bytes of \(header.format) (session #\(header.session)) to \(path)\n")
        }
    }
}

/// Where an export goes: standard output, or a temporary file renamed into
/// place when complete, so that a failed export never leaves half a file.
final class FileSink {
    struct Failure: Error, CustomStringConvertible { var description: String }

    private let target: String?
    private let temporary: String?
    private let handle: OutputFile

    init(path: String?) throws {
        guard let path else {
            target = nil
            temporary = nil
            handle = OutputFile.standardOutput
            return
        }
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temp = (dir.isEmpty ? "." : dir) + "/.\(name).\(getpid()).part"
        let h: OutputFile
        do {
            h = try OutputFile.create(path: temp)
        } catch {
            throw fail("cannot write \(path): \(error)", ExitCodes.ioError)
        }
        target = path
        temporary = temp
        handle = h
    }

    func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw Failure(description: "cannot write \(target ?? "standard output"): \(fileErrorText(error))")
        }
    }

    func finish() throws {
        guard let target, let temporary else { return }
        handle.close()
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(target): \(reason)")
        }
    }

    func abandon() {
        guard let temporary else { return }
        handle.close()
        unlink(temporary)
    }
}
