// Renders thumbs.1 from `thumbs --experimental-dump-help` (swift-argument-parser's
// JSON description of every command, argument and option), so that the man page
// is generated from the argument definitions and cannot drift from them.
//
//   thumbs --experimental-dump-help | swift scripts/manpage.swift "thumbs 0.1.0" > thumbs.1
//
// A script rather than argument-parser's `generate-manual` plugin: the plugin
// builds the package's products itself, in its own configuration and without
// --static-swift-stdlib, which would mean a second release build of everything
// (`make build-static` already has the binary this reads).
import Foundation

struct Tool: Decodable {
    var serializationVersion: Int
    var command: Command
}

struct Command: Decodable {
    var commandName: String
    var abstract: String?
    var discussion: String?
    var shouldDisplay: Bool?
    var defaultSubcommand: String?
    var subcommands: [Command]?
    var arguments: [Argument]?
}

struct Argument: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }
    var kind: String
    var shouldDisplay: Bool
    var isOptional: Bool
    var isRepeating: Bool
    var names: [Name]?
    var valueName: String?
    var defaultValue: String?
    var allValues: [String]?
    var abstract: String?
    var discussion: String?
}

/// Text for roff: backslashes escaped, hyphens literal, and no line that
/// starts with a control character.
func roff(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\e")
        .replacingOccurrences(of: "-", with: "\\-")
        .split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
        .joined(separator: "\n")
}

/// A block of text as written (discussions are laid out by hand: examples, lists).
func preformatted(_ text: String) -> String {
    ".nf\n" + roff(text.trimmingCharacters(in: .newlines)) + "\n.fi"
}

func flagName(_ name: Argument.Name) -> String {
    switch name.kind {
    case "long": return "--" + name.name
    case "short": return "-" + name.name
    default: return "-" + name.name
    }
}

func label(_ argument: Argument) -> String {
    let value = argument.valueName.map { "\\fI<\(roff($0))>\\fR" } ?? ""
    var text: String
    if argument.kind == "positional" {
        text = value
    } else {
        text = (argument.names ?? []).map { "\\fB" + roff(flagName($0)) + "\\fR" }.joined(separator: ", ")
        if argument.kind == "option" { text += " " + value }
    }
    return argument.isRepeating ? text + " ..." : text
}

func synopsis(_ path: String, _ command: Command) -> String {
    var parts = ["\\fB\(roff(path))\\fR"]
    if let subcommands = command.subcommands, !subcommands.isEmpty { parts.append("[\\fIsubcommand\\fR]") }
    for argument in command.arguments ?? [] where argument.shouldDisplay && argument.kind == "positional" {
        let text = label(argument)
        parts.append(argument.isOptional ? "[\(text)]" : text)
    }
    if (command.arguments ?? []).contains(where: { $0.shouldDisplay && $0.kind != "positional" }) {
        parts.append("[\\fIoptions\\fR]")
    }
    return parts.joined(separator: " ")
}

func arguments(_ command: Command) -> String {
    var lines: [String] = []
    for argument in command.arguments ?? [] where argument.shouldDisplay {
        lines.append(".TP")
        lines.append(label(argument))
        var body = roff(argument.abstract ?? "")
        if let values = argument.allValues, !values.isEmpty {
            body += " (values: " + roff(values.joined(separator: ", ")) + ")"
        }
        if let value = argument.defaultValue, !value.isEmpty {
            body += " (default: " + roff(value) + ")"
        }
        lines.append(body)
        if let discussion = argument.discussion, !discussion.isEmpty {
            lines.append(".RS")
            lines.append(preformatted(discussion))
            lines.append(".RE")
        }
    }
    return lines.joined(separator: "\n")
}

func section(_ path: String, _ command: Command, isRoot: Bool) -> [String] {
    var lines: [String] = []
    if !isRoot {
        lines.append(".SS \"\(roff(path))\"")
        lines.append(synopsis(path, command))
        lines.append(".PP")
        if let abstract = command.abstract { lines.append(roff(abstract)) }
        if let discussion = command.discussion, !discussion.isEmpty {
            lines.append(".PP")
            lines.append(preformatted(discussion))
        }
        let options = arguments(command)
        if !options.isEmpty { lines.append(options) }
    }
    for subcommand in command.subcommands ?? [] where subcommand.shouldDisplay ?? true && subcommand.commandName != "help" {
        lines += section(path + " " + subcommand.commandName, subcommand, isRoot: false)
    }
    return lines
}

let version = CommandLine.arguments.dropFirst().first ?? ""
let tool = try JSONDecoder().decode(Tool.self, from: FileHandle.standardInput.readDataToEndOfFile())
guard tool.serializationVersion == 0 else {
    FileHandle.standardError.write(Data("unknown dump-help version \(tool.serializationVersion)\n".utf8))
    exit(1)
}
let root = tool.command
let name = root.commandName
var page: [String] = [
    ".\\\" Generated by scripts/manpage.swift from `\(name) --experimental-dump-help`. Do not edit.",
    ".TH \"\(name.uppercased())\" \"1\" \"\" \"\(roff(version))\" \"User Commands\"",
    ".SH NAME",
    "\(roff(name)) \\- \(roff(root.abstract ?? ""))",
    ".SH SYNOPSIS",
    synopsis(name, root),
]
if let defaultSubcommand = root.defaultSubcommand {
    page.append(".PP")
    page.append("The subcommand defaults to \\fB\(roff(defaultSubcommand))\\fR: \\fB\(roff(name)) \\fIargs\\fR means \\fB\(roff(name + " " + defaultSubcommand)) \\fIargs\\fR.")
}
page.append(".SH DESCRIPTION")
page.append(roff(root.abstract ?? ""))
if let discussion = root.discussion, !discussion.isEmpty {
    page.append(".PP")
    page.append(preformatted(discussion))
}
let rootOptions = arguments(root)
if !rootOptions.isEmpty {
    page.append(".SH OPTIONS")
    page.append(rootOptions)
}
let commands = section(name, root, isRoot: true)
if !commands.isEmpty {
    page.append(".SH COMMANDS")
    page += commands
}
print(page.joined(separator: "\n"))
