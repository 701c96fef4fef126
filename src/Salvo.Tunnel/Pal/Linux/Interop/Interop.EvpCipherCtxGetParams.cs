using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>
    /// EVP_CIPHER_CTX_get_params (OpenSSL 3): asks the cipher for the parameters named in an OSSL_PARAM_END-terminated
    /// array, here the AEAD tag, which EVP_CIPHER_CTX_ctrl would first translate into the same array. 1 on success.
    /// Without a GC transition: it copies at most 16 bytes and never blocks or calls back.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CIPHER_CTX_get_params")]
    [SuppressGCTransition]
    public static partial int EvpCipherCtxGetParams(nint context, OsslParam* parameters);
}
