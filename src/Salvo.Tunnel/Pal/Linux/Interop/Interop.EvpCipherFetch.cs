using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CIPHER_fetch (OpenSSL 3): the provider's implementation of a cipher by name, or 0; freed with EVP_CIPHER_free.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CIPHER_fetch")]
    public static partial nint EvpCipherFetch(nint libraryContext, byte* algorithm, byte* properties);
}
