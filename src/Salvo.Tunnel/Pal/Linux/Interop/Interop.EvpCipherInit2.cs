using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>
    /// EVP_CipherInit_ex2 (OpenSSL 3): null cipher, key or IV keeps the one set before; <paramref name="encrypt"/> -1
    /// keeps the direction; <paramref name="parameters"/> (null or OSSL_PARAM_END-terminated) go to the cipher in the
    /// same call. 1 on success. Without a GC transition: with a nonce and no key it only resets the state and runs one
    /// ChaCha20 block for the Poly1305 key (about 0.1 us on this host), and it never blocks or calls back.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherInit_ex2")]
    [SuppressGCTransition]
    public static partial int EvpCipherInit(nint context, nint cipher, byte* key, byte* iv, int encrypt, OsslParam* parameters);
}
