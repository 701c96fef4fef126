using System.Runtime.InteropServices;

namespace Salvo.Pal;

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
