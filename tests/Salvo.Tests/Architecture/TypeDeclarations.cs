using System.Text.RegularExpressions;

namespace Salvo.Tests.Architecture;

/// <summary>The top-level types a source file declares, read off its text (files use file-scoped namespaces, so they start at column 0).</summary>
internal static partial class TypeDeclarations
{
    /// <summary>Each top-level type declaration in <paramref name="files"/>, with its stated accessibility (null when a partial part states none).</summary>
    public static List<TypeDeclaration> In(IEnumerable<string> files) => [.. files.SelectMany(file => Declaration().Matches(File.ReadAllText(file))
        .Select(match => new TypeDeclaration(
            file,
            match.Groups["name"].Value,
            match.Groups["access"].Success ? match.Groups["access"].Value : null,
            match.Groups["modifiers"].Value.Contains("partial", StringComparison.Ordinal))))];

    /// <summary>Whether <paramref name="text"/> names <paramref name="type"/> as a whole word.</summary>
    public static bool Mentions(string text, string type) => Regex.IsMatch(text, $@"\b{Regex.Escape(type)}\b");

    // Attributes may share the line; a record may be a record struct or class; a delegate's name follows its return type.
    [GeneratedRegex(
        @"^(?:\[[^\]\n]*\]\s*)*(?:(?<access>public|internal|file)\s+)?(?<modifiers>(?:(?:static|sealed|abstract|partial|readonly|ref|unsafe|new)\s+)*)(?:(?:class|struct|interface|enum|record(?:\s+(?:struct|class))?)\s+|delegate\s+[\w<>\[\],.?]+\s+)(?<name>\w+)",
        RegexOptions.Multiline)]
    private static partial Regex Declaration();
}

/// <summary>One top-level type declaration: the file, the name, the accessibility it states, and whether it is a partial part.</summary>
internal sealed record TypeDeclaration(string File, string Name, string? Access, bool IsPartial);
