using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_chacha20_poly1305 (OpenSSL 3, include/openssl/evp.h).</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_chacha20_poly1305")]
    public static partial nint EvpChaCha20Poly1305();
}
