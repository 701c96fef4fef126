using System.Diagnostics;
using System.Globalization;
using Salvo.Benchmarks.MultiBuffer;
using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks;

/// <summary>
/// Every ChaCha20-Poly1305 candidate this CPU can run against OpenSSL at every plaintext length from 0 to 65,535
/// (<see cref="EveryLengthCheck"/>): sealed and opened, tags compared, a tampered tag refused at each length. Prints
/// one line per candidate and exits 1 naming the first difference (with the seed that repeats it) if any candidate
/// differs. A stride above 1 checks a subset (see <see cref="EveryLengthCheck.Lengths"/>), as the unit test does.
/// Usage: aead-every-length [stride=1] [seed=random]
/// </summary>
internal static class AeadEveryLength
{
    public static int Run(string[] args)
    {
        var stride = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 1;
        var seed = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : Random.Shared.Next();
        var openSsl = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("No platform ChaCha20-Poly1305 here (Linux with libcrypto.so.3).");
        var lengths = EveryLengthCheck.Lengths(stride);
        Console.WriteLine(
            $"{lengths.Length:N0} lengths from 0 to {EveryLengthCheck.LargestLength:N0} (stride {stride}), seed {seed}; " +
            $"lanes: AVX-512 {ChaCha20Lanes16.IsSupported}, AVX2 {ChaCha20Lanes8.IsSupported}");
        var wrong = 0;
        foreach (var candidate in AeadCandidate.Available(openSsl))
        {
            var watch = Stopwatch.StartNew();
            var difference = EveryLengthCheck.FirstDifference(candidate, openSsl, lengths, seed);
            var outcome = difference is null ? "matches OpenSSL at every length" : $"DIFFERS: {difference}";
            Console.WriteLine($"{candidate.Name}: {outcome} ({watch.Elapsed.TotalSeconds:F1} s)");
            wrong += difference is null ? 0 : 1;
        }

        return wrong == 0 ? 0 : 1;
    }
}
