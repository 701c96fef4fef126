using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Security.Cryptography;
using Salvo.Interop.Linux;

namespace Salvo.Tunnel.Pal;

/// <summary>
/// ChaCha20-Poly1305 from OpenSSL's libcrypto through EVP, with one context per key and direction kept for the key's
/// life and the cipher fetched from its provider once per process: an operation gives the nonce (and, opening, the
/// expected tag) in one init call, runs the cipher and finishes, then takes the tag when sealing. No key setup, no
/// EVP_CIPHER_CTX_ctrl (which OpenSSL 3 only translates into the parameter array given here directly), and each
/// context pinned once per operation rather than once per call: 7 % off a 1,420-byte seal and 6 % off an open
/// against a ctrl call for the tag and a SafeHandle per call (docs/benchmarks.md, "The tunnel at the cipher's speed";
/// what is left above <c>openssl speed</c> is OpenSSL's own per-message work). On this host's AVX-512 CPU OpenSSL seals 1,420 bytes
/// 3.3 times as fast as libsodium; the BCL's ChaCha20Poly1305, which also uses OpenSSL, sets its context up again on
/// every call and loses most of that. A forged message costs what a good one does (the tag is checked at
/// EVP_CipherFinal_ex, after decryption), never more.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class OpenSslChaCha20Poly1305Key : AeadKey
{
    private static readonly Lazy<nint> s_cipher = new(Fetch);

    private readonly SafeEvpCipherContextHandle _seal;
    private readonly SafeEvpCipherContextHandle _open;
    private readonly Lock _sealGate = new();
    private readonly Lock _openGate = new();

    private OpenSslChaCha20Poly1305Key(ReadOnlySpan<byte> key)
    {
        _seal = CreateContext(key, encrypt: 1);
        try
        {
            _open = CreateContext(key, encrypt: 0);
        }
        catch
        {
            _seal.Dispose();
            throw;
        }
    }

    /// <summary>Whether libcrypto.so.3 loads and has ChaCha20-Poly1305 (probed once).</summary>
    public static bool IsAvailable => s_cipher.Value != 0;

    /// <summary>OSSL_CIPHER_PARAM_AEAD_TAG (include/openssl/core_names.h), NUL-terminated.</summary>
    private static ReadOnlySpan<byte> TagParameter => "tag\0"u8;

    /// <summary>A key, or null where libcrypto is missing.</summary>
    /// <exception cref="ArgumentException">The key is not 32 bytes.</exception>
    public static OpenSslChaCha20Poly1305Key? TryCreate(ReadOnlySpan<byte> key)
    {
        if (key.Length != 32)
        {
            throw new ArgumentException($"A ChaCha20-Poly1305 key is 32 bytes, not {key.Length}.", nameof(key));
        }

        return IsAvailable ? new OpenSslChaCha20Poly1305Key(key) : null;
    }

    public override unsafe void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
    {
        if (nonce.Length != NonceSize || ciphertext.Length != plaintext.Length + TagSize)
        {
            throw new ArgumentException($"ChaCha20-Poly1305 takes a {NonceSize}-byte nonce and a ciphertext {TagSize} bytes longer than the plaintext.");
        }

        lock (_sealGate)
        {
            var added = false;
            try
            {
                _seal.DangerousAddRef(ref added);
                var context = _seal.DangerousGetHandle();

                // Safety: the context stays allocated until the DangerousRelease below (a Dispose meanwhile only marks
                // it), every span is pinned for the calls, each pointer goes with its span's length, OpenSSL writes
                // only plaintext.Length bytes of ciphertext and then the 16-byte tag right after them, inside
                // ciphertext, and the tag's parameter name is a NUL-terminated literal in the assembly's data.
                fixed (byte* nonceBytes = nonce)
                fixed (byte* associated = associatedData)
                fixed (byte* input = plaintext)
                fixed (byte* output = ciphertext)
                fixed (byte* tagName = TagParameter)
                {
                    int written = 0;
                    int finalWritten = 0;
                    var tag = stackalloc OsslParam[2];
                    tag[0] = OsslParam.OctetString(tagName, output + plaintext.Length, TagSize);
                    tag[1] = default;
                    var ok = Libcrypto.EvpCipherInit(context, 0, null, nonceBytes, -1, null) == 1
                        && (associatedData.IsEmpty || Libcrypto.EvpCipherUpdate(context, null, &written, associated, associatedData.Length) == 1)
                        && (plaintext.IsEmpty || Libcrypto.EvpCipherUpdate(context, output, &written, input, plaintext.Length) == 1)
                        && Libcrypto.EvpCipherFinal(context, output + plaintext.Length, &finalWritten) == 1
                        && Libcrypto.EvpCipherCtxGetParams(context, tag) == 1;
                    if (!ok)
                    {
                        throw new CryptographicException("OpenSSL refused to seal with ChaCha20-Poly1305.");
                    }
                }
            }
            finally
            {
                if (added)
                {
                    _seal.DangerousRelease();
                }
            }
        }
    }

    public override unsafe bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
    {
        var length = ciphertext.Length - TagSize;
        if (nonce.Length != NonceSize || length < 0 || plaintext.Length != length)
        {
            return false;
        }

        lock (_openGate)
        {
            var added = false;
            try
            {
                _open.DangerousAddRef(ref added);
                var context = _open.DangerousGetHandle();

                // Safety: the context stays allocated until the DangerousRelease below, every span is pinned for the
                // calls, each pointer goes with its span's length; OpenSSL writes at most length bytes of plaintext
                // and copies the expected tag from the 16 bytes after the ciphertext at the init call, before any
                // plaintext is written, so an in-place open cannot overwrite it first.
                fixed (byte* nonceBytes = nonce)
                fixed (byte* associated = associatedData)
                fixed (byte* input = ciphertext)
                fixed (byte* output = plaintext)
                fixed (byte* tagName = TagParameter)
                {
                    int written = 0;
                    int finalWritten = 0;
                    var tag = stackalloc OsslParam[2];
                    tag[0] = OsslParam.OctetString(tagName, input + length, TagSize);
                    tag[1] = default;
                    return Libcrypto.EvpCipherInit(context, 0, null, nonceBytes, -1, tag) == 1
                        && (associatedData.IsEmpty || Libcrypto.EvpCipherUpdate(context, null, &written, associated, associatedData.Length) == 1)
                        && (length == 0 || Libcrypto.EvpCipherUpdate(context, output, &written, input, length) == 1)
                        && Libcrypto.EvpCipherFinal(context, output + length, &finalWritten) == 1;
                }
            }
            finally
            {
                if (added)
                {
                    _open.DangerousRelease();
                }
            }
        }
    }

    public override void Dispose()
    {
        _seal.Dispose();
        _open.Dispose();
    }

    private static unsafe SafeEvpCipherContextHandle CreateContext(ReadOnlySpan<byte> key, int encrypt)
    {
        var context = new SafeEvpCipherContextHandle();
        var ok = false;
        if (!context.IsInvalid)
        {
            // Safety: the 32-byte key is pinned for the call, and the context, not yet shared, cannot be disposed
            // during it; EVP_CipherInit_ex2 copies the key into the context's key schedule.
            fixed (byte* keyBytes = key)
            {
                ok = Libcrypto.EvpCipherInit(context.DangerousGetHandle(), s_cipher.Value, keyBytes, null, encrypt, null) == 1;
            }
        }

        if (!ok)
        {
            context.Dispose();
            throw new CryptographicException("OpenSSL refused a ChaCha20-Poly1305 context.");
        }

        return context;
    }

    /// <summary>The provider's ChaCha20-Poly1305, fetched once and held for the process's life; 0 where libcrypto.so.3 or the cipher is missing.</summary>
    private static unsafe nint Fetch()
    {
        if (!NativeLibrary.TryLoad(Libcrypto.LibraryName, out _))
        {
            return 0;
        }

        try
        {
            // Safety: both names are NUL-terminated literals in the assembly's data; a null library context is the default one.
            fixed (byte* name = "ChaCha20-Poly1305\0"u8)
            {
                return Libcrypto.EvpCipherFetch(0, name, null);
            }
        }
        catch (EntryPointNotFoundException)
        {
            return 0;
        }
    }
}
