using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CipherUpdate: with a null <paramref name="output"/> the input is associated data. 1 on success.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherUpdate")]
    public static partial int EvpCipherUpdate(SafeHandle context, byte* output, int* outputLength, byte* input, int inputLength);
}
