using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Salvo.Tunnel.Crypto;
using BclChaCha20Poly1305 = System.Security.Cryptography.ChaCha20Poly1305;

namespace Salvo.Benchmarks;

/// <summary>
/// Picks the tunnel's data-path AEAD: the BCL's ChaCha20-Poly1305 (OpenSSL, set up per call) against NSec's
/// (libsodium) and <see cref="PlatformAead"/> (OpenSSL through EVP with a context kept per key), all but the BCL behind
/// <see cref="IAead"/>, sealing and opening a small (64 B) and a full (1,420 B, the tunnel MTU) packet in place
/// with span arguments, and opening a forged packet (one flipped tag byte), which on the BCL throws.
/// A forged packet must not cost more than a good one, or a flood of them is cheaper to send than to refuse.
/// Run: dotnet run -c Release --project benchmarks/Salvo.Benchmarks -- --filter *TunnelAead* --job short
/// </summary>
[MemoryDiagnoser]
public class TunnelAeadBenchmarks
{
    private const int TagSize = 16;

    private readonly byte[] _key = new byte[32];
    private readonly byte[] _nonce = new byte[12];
    private readonly byte[] _header = new byte[16];
    private BclChaCha20Poly1305 _bcl = null!;
    private IAeadKey _nsec = null!;
    private IAeadKey _platform = null!;
    private byte[] _plaintext = [];
    private byte[] _buffer = [];
    private byte[] _sealed = [];
    private byte[] _forged = [];

    [Params(64, 1420)]
    public int PayloadSize { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        RandomNumberGenerator.Fill(_key);
        RandomNumberGenerator.Fill(_nonce);
        RandomNumberGenerator.Fill(_header);
        _bcl = new BclChaCha20Poly1305(_key);
        _nsec = NSecAead.ChaCha20Poly1305.CreateKey(_key);
        _platform = (PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("No platform ChaCha20-Poly1305 here (Linux with libcrypto.so.3).")).CreateKey(_key);
        _plaintext = RandomNumberGenerator.GetBytes(PayloadSize);
        _buffer = new byte[PayloadSize + TagSize];
        _sealed = new byte[PayloadSize + TagSize];
        _nsec.Seal(_nonce, _header, _plaintext, _sealed);
        _forged = (byte[])_sealed.Clone();
        _forged[^1] ^= 0x01;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _bcl.Dispose();
        _nsec.Dispose();
        _platform.Dispose();
    }

    [Benchmark(Description = "BCL seal")]
    public void BclSeal() =>
        _bcl.Encrypt(_nonce, _plaintext, _buffer.AsSpan(0, PayloadSize), _buffer.AsSpan(PayloadSize), _header);

    [Benchmark(Description = "NSec seal")]
    public void NSecSeal() => _nsec.Seal(_nonce, _header, _plaintext, _buffer);

    [Benchmark(Description = "Platform seal")]
    public void PlatformSeal() => _platform.Seal(_nonce, _header, _plaintext, _buffer);

    [Benchmark(Description = "Platform open")]
    public bool PlatformOpen() => _platform.TryOpen(_nonce, _header, _sealed, _buffer.AsSpan(0, PayloadSize));

    [Benchmark(Description = "Platform open forged")]
    public bool PlatformOpenForged() => _platform.TryOpen(_nonce, _header, _forged, _buffer.AsSpan(0, PayloadSize));

    [Benchmark(Description = "BCL open")]
    public bool BclOpen() => BclTryOpen(_sealed);

    [Benchmark(Description = "NSec open")]
    public bool NSecOpen() => _nsec.TryOpen(_nonce, _header, _sealed, _buffer.AsSpan(0, PayloadSize));

    [Benchmark(Description = "BCL open forged")]
    public bool BclOpenForged() => BclTryOpen(_forged);

    [Benchmark(Description = "NSec open forged")]
    public bool NSecOpenForged() => _nsec.TryOpen(_nonce, _header, _forged, _buffer.AsSpan(0, PayloadSize));

    private bool BclTryOpen(byte[] ciphertext)
    {
        var body = ciphertext.AsSpan(0, PayloadSize);
        var tag = ciphertext.AsSpan(PayloadSize);
        try
        {
            _bcl.Decrypt(_nonce, body, tag, _buffer.AsSpan(0, PayloadSize), _header);
            return true;
        }
        catch (CryptographicException)
        {
            // The BCL reports a bad tag only by throwing (AuthenticationTagMismatchException); this is its cost.
            return false;
        }
    }
}
