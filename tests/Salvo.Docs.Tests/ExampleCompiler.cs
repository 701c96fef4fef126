using System.Globalization;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Salvo.Docs.Tests;

/// <summary>
/// Compiles a block as <c>dotnet new console</c> would build it (implicit usings, nullable on, latest C#), against
/// the shared framework, the Salvo libraries and the Microsoft.Extensions packages a reader adds beside them.
/// </summary>
internal static class ExampleCompiler
{
    // The usings a console project gets from the SDK (ImplicitUsings, Microsoft.NET.Sdk).
    private const string ImplicitUsings = """
        global using System;
        global using System.Collections.Generic;
        global using System.IO;
        global using System.Linq;
        global using System.Net.Http;
        global using System.Threading;
        global using System.Threading.Tasks;
        """;

    private static readonly string[] s_libraryPrefixes = ["Salvo.", "Microsoft.Extensions.", "System.", "NSec.", "BouncyCastle."];

    private static readonly Lazy<IReadOnlyList<string>> s_libraries = new(FindLibraries);

    private static readonly Lazy<IReadOnlyList<MetadataReference>> s_references = new(() =>
        FrameworkAssemblies().Concat(s_libraries.Value).Select(path => (MetadataReference)MetadataReference.CreateFromFile(path)).ToList());

    /// <summary>The libraries outside the shared framework that an example may use; a run copies them beside it.</summary>
    public static IReadOnlyList<string> Libraries => s_libraries.Value;

    /// <summary>
    /// Compiles <paramref name="code"/>, the text of <paramref name="block"/> (its port possibly replaced), into
    /// <paramref name="outputPath"/> when given. Returns the errors and warnings as <c>file:line: id: message</c> lines
    /// with the markdown file's line numbers; empty when it compiled cleanly.
    /// </summary>
    public static List<string> Compile(CodeBlock block, string code, string? outputPath = null)
    {
        var parse = CSharpParseOptions.Default.WithLanguageVersion(LanguageVersion.Latest);
        var example = CSharpSyntaxTree.ParseText(code, parse, path: block.File);
        var usings = CSharpSyntaxTree.ParseText(ImplicitUsings, parse, path: "ImplicitUsings.cs");
        var isProgram = example.GetRoot().DescendantNodes().OfType<GlobalStatementSyntax>().Any();
        var options = new CSharpCompilationOptions(
            isProgram ? OutputKind.ConsoleApplication : OutputKind.DynamicallyLinkedLibrary,
            nullableContextOptions: NullableContextOptions.Enable);
        var compilation = CSharpCompilation.Create(
            "Example" + block.Line.ToString(CultureInfo.InvariantCulture), [example, usings], s_references.Value, options);

        IEnumerable<Diagnostic> diagnostics;
        if (outputPath is null)
        {
            diagnostics = compilation.GetDiagnostics();
        }
        else
        {
            var result = compilation.Emit(outputPath);
            diagnostics = result.Diagnostics;
        }

        return diagnostics
            .Where(diagnostic => diagnostic.Severity >= DiagnosticSeverity.Warning)
            .Select(diagnostic => Describe(block, diagnostic))
            .ToList();
    }

    private static string Describe(CodeBlock block, Diagnostic diagnostic)
    {
        var span = diagnostic.Location.GetLineSpan();
        var inExample = span.Path == block.File;

        // Line 0 of the block's code is the line after its opening fence.
        var line = inExample ? block.Line + 1 + span.StartLinePosition.Line : block.Line;
        var column = inExample ? span.StartLinePosition.Character + 1 : 1;
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{block.File}:{line}:{column}: {diagnostic.Severity.ToString().ToLowerInvariant()} {diagnostic.Id}: {diagnostic.GetMessage(CultureInfo.InvariantCulture)}");
    }

    private static IEnumerable<string> FrameworkAssemblies() =>
        Directory.EnumerateFiles(RuntimeEnvironment.GetRuntimeDirectory(), "*.dll").Where(HasMetadata);

    private static List<string> FindLibraries()
    {
        var framework = FrameworkAssemblies().Select(Path.GetFileName).ToHashSet(StringComparer.OrdinalIgnoreCase);
        return Directory.EnumerateFiles(AppContext.BaseDirectory, "*.dll")
            .Where(path =>
            {
                var name = Path.GetFileName(path);
                return (name == "Salvo.dll" || s_libraryPrefixes.Any(prefix => name.StartsWith(prefix, StringComparison.Ordinal)))
                    && name != "Salvo.Docs.Tests.dll"
                    && !framework.Contains(name);
            })
            .Order(StringComparer.Ordinal)
            .ToList();
    }

    private static bool HasMetadata(string path)
    {
        using var stream = File.OpenRead(path);
        using var reader = new PEReader(stream);
        return reader.HasMetadata;
    }
}
