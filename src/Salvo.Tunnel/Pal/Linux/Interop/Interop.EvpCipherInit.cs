using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CipherInit_ex: null cipher, key or IV keeps the one set before; <paramref name="encrypt"/> -1 keeps the direction. 1 on success.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CipherInit_ex")]
    public static partial int EvpCipherInit(SafeHandle context, nint cipher, nint engine, byte* key, byte* iv, int encrypt);
}
