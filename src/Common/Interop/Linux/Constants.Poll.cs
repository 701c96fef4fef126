namespace Salvo.Interop.Linux;

// poll(2) events: include/uapi/asm-generic/poll.h. The rest of Constants is each assembly's own.
internal static partial class Constants
{
    public const short POLLIN = 0x001;
    public const short POLLOUT = 0x004;
    public const short POLLERR = 0x008;
    public const short POLLHUP = 0x010;
}
