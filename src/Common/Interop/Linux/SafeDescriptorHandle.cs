using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>
/// A descriptor this process opened itself (a TUN device, a BPF object or link, a netlink or AF_XDP socket; sockets the
/// runtime opens have its own handle). Imports take it as
/// a <see cref="SafeHandle"/>, so the marshaller holds a reference for the length of each call and a concurrent
/// dispose closes the descriptor only after the last call using it returns.
/// </summary>
internal sealed class SafeDescriptorHandle : SafeHandle
{
    public SafeDescriptorHandle(int descriptor)
        : base(invalidHandleValue: -1, ownsHandle: true) => SetHandle(descriptor);

    /// <summary>Descriptors are the low 32 bits (C's <c>int fd</c>); open(2) marks failure with -1.</summary>
    public override bool IsInvalid => (int)handle < 0;

    protected override bool ReleaseHandle() => Libc.Close((int)handle) == 0;
}
