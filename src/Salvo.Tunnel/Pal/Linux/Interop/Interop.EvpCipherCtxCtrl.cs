using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: declarations only; each caller says why the pointers it passes are valid for the length of the call.
internal static unsafe partial class Libcrypto
{
    /// <summary>EVP_CIPHER_CTX_ctrl: here, get or set the 16-byte AEAD tag. 1 on success.</summary>
    [LibraryImport(LibraryName, EntryPoint = "EVP_CIPHER_CTX_ctrl")]
    public static partial int EvpCipherCtxCtrl(SafeHandle context, int type, int argument, byte* pointer);
}
