using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>
    /// EVP_CipherUpdate: with a null <paramref name="output"/> the input is associated data. 1 on success. With the GC
    /// transition: a 65,535-byte packet takes tens of microseconds.
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherUpdate")]
    public static partial int EvpCipherUpdate(nint context, byte* output, int* outputLength, byte* input, int inputLength);
}
