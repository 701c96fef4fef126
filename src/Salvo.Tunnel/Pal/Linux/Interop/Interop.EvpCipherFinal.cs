using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>
    /// EVP_CipherFinal_ex: when decrypting an AEAD, 1 only when the tag set before matches. Without a GC transition:
    /// for ChaCha20-Poly1305 it finishes one Poly1305 block and compares 16 bytes, and never blocks or calls back.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherFinal_ex")]
    [SuppressGCTransition]
    public static partial int EvpCipherFinal(nint context, byte* output, int* outputLength);
}
