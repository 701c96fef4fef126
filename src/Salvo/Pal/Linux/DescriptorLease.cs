using System.Runtime.InteropServices;

namespace Salvo.Pal;

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

/// <summary>
/// A reference on a <see cref="SafeHandle"/> held across a kernel operation that outlives the call submitting it (an
/// io_uring multishot receive, from its submission to its last completion): the descriptor cannot be closed, nor its
/// number reused, while the kernel may still act on it. The runtime's Socket.Dispose waits for the release.
/// </summary>
internal sealed class DescriptorHold(SafeHandle handle)
{
    private bool _held;

    public int Descriptor => (int)handle.DangerousGetHandle();

    /// <summary>Takes the reference once; later calls do nothing.</summary>
    /// <exception cref="ObjectDisposedException">The handle is already closed.</exception>
    public void Acquire()
    {
        if (!_held)
        {
            handle.DangerousAddRef(ref _held);
        }
    }

    /// <summary>Lets the reference go, if held.</summary>
    public void Release()
    {
        if (_held)
        {
            _held = false;
            handle.DangerousRelease();
        }
    }
}
