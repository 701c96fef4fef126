using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>
/// A reference on a <see cref="SafeHandle"/> held across a call that takes the descriptor inside a structure (poll's
/// <c>pollfd</c>), where the import cannot take the handle itself and the marshaller cannot hold it for us.
/// </summary>
internal readonly ref struct DescriptorLease
{
    private readonly SafeHandle _handle;

    /// <exception cref="ObjectDisposedException">The handle is already closed.</exception>
    public DescriptorLease(SafeHandle handle)
    {
        var added = false;
        handle.DangerousAddRef(ref added);
        _handle = handle;
    }

    public int Descriptor => (int)_handle.DangerousGetHandle();

    public void Dispose() => _handle.DangerousRelease();
}
