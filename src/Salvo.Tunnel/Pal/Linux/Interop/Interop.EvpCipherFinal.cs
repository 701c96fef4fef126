using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CipherFinal_ex: when decrypting an AEAD, 1 only when the tag set before matches.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherFinal_ex")]
    public static partial int EvpCipherFinal(SafeHandle context, byte* output, int* outputLength);
}
