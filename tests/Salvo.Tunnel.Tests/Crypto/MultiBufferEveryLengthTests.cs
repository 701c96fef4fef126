using Salvo.Benchmarks.MultiBuffer;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The multi-buffer ChaCha20-Poly1305 experiment (benchmarks/Salvo.Benchmarks/MultiBuffer, compiled in here) against
/// OpenSSL over lengths 0 to 65,535: all up to 256, every 61st, and the last 64, in shuffled batches under random keys
/// and nonces. The full sweep of every length takes minutes with the scalar candidate, so it runs by command
/// (`Salvo.Benchmarks aead-every-length`, docs/benchmarks.md), not here.
/// </summary>
public sealed class MultiBufferEveryLengthTests
{
    /// <summary>A prime stride, so the lengths checked fall at every offset within a 16- and a 64-byte block.</summary>
    private const int Stride = 61;

    [Fact]
    public void Scalar_MatchesOpenSsl_AcrossTheLengths() => AssertMatches("managed scalar");

    [LanesFact(8)]
    public void EightLanes_MatchOpenSsl_AcrossTheLengths() => AssertMatches("managed multi-buffer x8");

    [LanesFact(16)]
    public void SixteenLanes_MatchOpenSsl_AcrossTheLengths() => AssertMatches("managed multi-buffer x16");

    [Theory]
    [InlineData(5_002, false)]
    [InlineData(5_002, true)]
    [InlineData(65_535, false)]
    public void CandidateWrongAtOneLength_IsCaught(int length, bool opensForgeries)
    {
        var openSsl = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");
        var wrong = new AeadCandidate("wrong at one length", 1, key => new WrongAtOneLength(openSsl.CreateKey(key), length, opensForgeries));

        var difference = EveryLengthCheck.FirstDifference(wrong, openSsl, EveryLengthCheck.Lengths(Stride), seed: 39);

        Assert.NotNull(difference);
        Assert.Contains($"a {length}-byte packet", difference, StringComparison.Ordinal);
    }

    [Fact]
    public void Lengths_WithStrideOne_AreEveryLengthOnce() =>
        Assert.Equal(Enumerable.Range(0, 65_536), EveryLengthCheck.Lengths(1));

    [Fact]
    public void Lengths_WithAStride_KeepTheEdges()
    {
        var lengths = EveryLengthCheck.Lengths(Stride);

        Assert.Equal(Enumerable.Range(0, 257), lengths.Take(257));
        Assert.Equal(Enumerable.Range(65_472, 64), lengths.TakeLast(64));
        Assert.Contains(Stride * 500, lengths);
    }

    private static void AssertMatches(string name)
    {
        var openSsl = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");
        var candidate = AeadCandidate.Available(openSsl).Single(candidate => candidate.Name == name);

        Assert.Null(EveryLengthCheck.FirstDifference(candidate, openSsl, EveryLengthCheck.Lengths(Stride), seed: 39));
    }

    /// <summary>
    /// OpenSSL, except at one plaintext length: there it seals a wrong last tag byte, or (<c>opensForgeries</c>) seals
    /// correctly but takes any tag on opening.
    /// </summary>
    private sealed class WrongAtOneLength(IAeadKey inner, int length, bool opensForgeries) : IAeadKey
    {
        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
        {
            inner.Seal(nonce, associatedData, plaintext, ciphertext);
            if (plaintext.Length == length && !opensForgeries)
            {
                ciphertext[^1] ^= 1;
            }
        }

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
        {
            if (ciphertext.Length - 16 == length && opensForgeries)
            {
                // Decrypts and answers true whatever the tag says: a forged tag opens.
                _ = inner.TryOpen(nonce, associatedData, ciphertext, plaintext);
                return true;
            }

            return inner.TryOpen(nonce, associatedData, ciphertext, plaintext);
        }

        public void Dispose() => inner.Dispose();
    }

    /// <summary>Skipped where the CPU lacks the vector width these lanes need (AVX2 for 8, AVX-512 for 16).</summary>
    private sealed class LanesFactAttribute : FactAttribute
    {
        public LanesFactAttribute(int lanes)
        {
            var supported = lanes == 16 ? ChaCha20Lanes16.IsSupported : ChaCha20Lanes8.IsSupported;
            if (!supported)
            {
                Skip = $"this CPU cannot run {lanes} ChaCha20 lanes ({(lanes == 16 ? "no AVX-512" : "no AVX2")})";
            }
        }
    }
}
