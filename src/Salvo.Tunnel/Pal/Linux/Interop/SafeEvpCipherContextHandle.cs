using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>
/// An EVP_CIPHER_CTX holding one key. Its user holds a reference on the handle for a whole operation and passes
/// the raw pointer to the imports, so a context disposed while another thread uses it is freed only after that
/// operation ends, and later operations throw <see cref="ObjectDisposedException"/>. EVP_CIPHER_CTX_free wipes the key
/// schedule (OPENSSL_cleanse).
/// </summary>
internal sealed class SafeEvpCipherContextHandle : SafeHandle
{
    public SafeEvpCipherContextHandle()
        : base(invalidHandleValue: 0, ownsHandle: true) => SetHandle(Libcrypto.EvpCipherCtxNew());

    public override bool IsInvalid => handle == 0;

    protected override bool ReleaseHandle()
    {
        Libcrypto.EvpCipherCtxFree(handle);
        return true;
    }
}
