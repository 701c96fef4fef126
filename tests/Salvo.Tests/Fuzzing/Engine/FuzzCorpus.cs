using System.Runtime.CompilerServices;

namespace Salvo.Fuzzing;

/// <summary>
/// The stored seeds of a target: the files under Fuzzing/Corpus/&lt;target&gt;/, copied to the test output. Files named
/// seed-* are valid inputs made by the real encoders; regress-* are inputs that once broke a property.
/// </summary>
internal static class FuzzCorpus
{
    /// <summary>Set to 1 to (re)write the seed files from the encoders into the source tree.</summary>
    public const string WriteVariable = "SALVO_FUZZ_WRITE_CORPUS";

    public static IReadOnlyList<byte[]> Load(string target) => [.. Files(target).Select(File.ReadAllBytes)];

    /// <summary>The corpus files of <paramref name="target"/> in the test output, by name.</summary>
    public static IEnumerable<string> Files(string target, string pattern = "*")
    {
        var directory = Path.Combine(AppContext.BaseDirectory, "Fuzzing", "Corpus", target);
        return Directory.Exists(directory) ? Directory.EnumerateFiles(directory, pattern).Order(StringComparer.Ordinal) : [];
    }

    /// <summary>
    /// Compares the stored seed-* files with what the encoders make now; with SALVO_FUZZ_WRITE_CORPUS=1, writes them
    /// next to the calling source file instead. Returns the names whose stored bytes differ or are missing.
    /// </summary>
    public static IReadOnlyList<string> Check(string target, IReadOnlyDictionary<string, byte[]> seeds, [CallerFilePath] string caller = "")
    {
        if (Environment.GetEnvironmentVariable(WriteVariable) == "1")
        {
            var source = Path.Combine(Path.GetDirectoryName(caller)!, "Corpus", target);
            Directory.CreateDirectory(source);
            foreach (var (name, bytes) in seeds)
            {
                File.WriteAllBytes(Path.Combine(source, $"seed-{name}.bin"), bytes);
            }
        }

        var stored = Files(target, "seed-*").ToDictionary(f => Path.GetFileNameWithoutExtension(f)["seed-".Length..], File.ReadAllBytes);
        return [.. seeds.Where(s => !stored.TryGetValue(s.Key, out var bytes) || !bytes.AsSpan().SequenceEqual(s.Value)).Select(s => s.Key)];
    }
}
