using System.Diagnostics.CodeAnalysis;
using Salvo.Pal;

namespace Salvo;

// What this process offers of each backend, before any socket is opened.
public sealed partial class DatagramSocket
{
    /// <summary>
    /// How the threads that drive the shared io_uring rings of <see cref="DatagramBackend.IoUring"/> sockets (up to four,
    /// one per core) are named: this, a space and the ring's number. They do those sockets' receive work in the kernel, so
    /// a receiver's CPU time is its own thread's plus theirs. The kernel keeps 15 characters of a thread's name
    /// (TASK_COMM_LEN 16 with the terminator), so top -H and /proc/self/task/*/comm show this prefix without the number.
    /// </summary>
    public const string IoUringThreadNamePrefix = "Salvo io_uring";

    /// <summary>
    /// Whether a socket asking for <paramref name="backend"/> gets it in this process. The io_uring backend is probed once
    /// per process, here or at the first socket that asks for it.
    /// </summary>
    /// <param name="backend">The backend to ask about.</param>
    /// <param name="reason">
    /// Null when the backend runs; otherwise why not: it needs another operating system (options asking for it are
    /// refused), or what the kernel refused (<see cref="DatagramBackend.IoUring"/> then falls back to
    /// <see cref="DatagramBackend.LinuxBatched"/>), or for <see cref="DatagramBackend.AfXdp"/> what the process lacks (root, or
    /// CAP_NET_RAW, CAP_BPF and CAP_NET_ADMIN) or the kernel refused; options asking for it are then refused.
    /// </param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="backend"/> is not a defined backend.</exception>
    public static bool IsBackendAvailable(DatagramBackend backend, [NotNullWhen(false)] out string? reason)
    {
        if (!Enum.IsDefined(backend))
        {
            throw new ArgumentOutOfRangeException(nameof(backend), backend, "Unknown backend.");
        }

        reason = Platform.Current.RefuseBackend(backend) ?? Platform.Current.BackendFallback(backend);
        return reason is null;
    }
}
