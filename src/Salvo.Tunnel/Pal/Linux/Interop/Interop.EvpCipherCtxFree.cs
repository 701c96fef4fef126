using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CIPHER_CTX_free (OpenSSL 3, include/openssl/evp.h).</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CIPHER_CTX_free")]
    public static partial void EvpCipherCtxFree(nint context);
}
