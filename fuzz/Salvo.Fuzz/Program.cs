using SharpFuzz;

namespace Salvo.Fuzz;

/// <summary>
/// <c>Salvo.Fuzz TARGET</c>: runs one target under afl-fuzz (SharpFuzz's fork server; run once on standard input
/// outside afl). <c>Salvo.Fuzz TARGET FILE|DIR...</c>: replays inputs and prints each outcome, for triage.
/// <c>Salvo.Fuzz seeds DIR</c>: writes every target's seeds to DIR/TARGET/.
/// </summary>
internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length == 2 && args[0] == "seeds")
        {
            return WriteSeeds(args[1]);
        }

        if (args.Length == 0 || FuzzTargets.Find(args[0]) is not { } target)
        {
            Console.Error.WriteLine("usage: Salvo.Fuzz TARGET [FILE|DIR...] | Salvo.Fuzz seeds DIR");
            foreach (var each in FuzzTargets.All)
            {
                Console.Error.WriteLine($"  {each.Name,-14} {each.Description}");
            }

            return 2;
        }

        if (args.Length == 1)
        {
            Fuzzer.OutOfProcess.Run(stream =>
            {
                using var copy = new MemoryStream();
                stream.CopyTo(copy);
                target.Run(copy.GetBuffer().AsSpan(0, (int)copy.Length));
            });
            return 0;
        }

        return Replay(target, args[1..]);
    }

    private static int Replay(IFuzzTarget target, string[] paths)
    {
        var failed = 0;
        foreach (var file in paths.SelectMany(p => Directory.Exists(p) ? Directory.EnumerateFiles(p).Order(StringComparer.Ordinal) : (IEnumerable<string>)[p]))
        {
            try
            {
                target.Run(File.ReadAllBytes(file));
                Console.WriteLine($"ok    {file}");
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine($"CRASH {file}{Environment.NewLine}{e}");
            }
        }

        return failed == 0 ? 0 : 1;
    }

    private static int WriteSeeds(string directory)
    {
        foreach (var target in FuzzTargets.All)
        {
            var folder = Path.Combine(directory, target.Name);
            Directory.CreateDirectory(folder);
            foreach (var (name, bytes) in target.Seeds())
            {
                File.WriteAllBytes(Path.Combine(folder, $"seed-{name}.bin"), bytes);
            }

            Console.WriteLine($"{target.Name}: {Directory.EnumerateFiles(folder).Count()} files");
        }

        return 0;
    }
}
