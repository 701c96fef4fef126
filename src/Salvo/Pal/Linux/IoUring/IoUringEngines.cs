using System.Runtime.Versioning;

namespace Salvo.Pal;

/// <summary>
/// The process's io_uring engines, set up at the first socket that asks for the backend: one per core up to four, each
/// with its own thread, and sockets spread over them in turn, so thousands of sockets need a handful of threads. If the
/// kernel refuses io_uring or a feature this backend needs, <see cref="Refusal"/> says which, once.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class IoUringEngines
{
    private const string DisabledSetting = "/proc/sys/kernel/io_uring_disabled";

    private static readonly Lazy<(IoUringEngine[] Engines, string? Refusal)> s_engines = new(Create);
    private static int s_next;

    /// <summary>Null when the engines run; otherwise what the kernel refused.</summary>
    public static string? Refusal => s_engines.Value.Refusal;

    // A thread's own engine: fewer small buffers than a shared one (4.5 MiB), since each receiving thread has one, and
    // as many large ones (4.2 MiB): a server's batches are full-size by default, and 16 ran dry under 16 requests in flight.
    private const int ThreadSmallBuffers = 2048;
    private const int ThreadLargeBuffers = 64;

    [ThreadStatic]
    private static IoUringEngine? t_engine;

    [ThreadStatic]
    private static bool t_refused;

    /// <summary>
    /// The calling thread's own engine, driven by its blocking receives (no engine thread, no wake-up between threads);
    /// null where the backend does not run or the kernel refused another ring.
    /// </summary>
    public static IoUringEngine? ForThisThread
    {
        get
        {
            if (t_engine is not null || t_refused || Refusal is not null)
            {
                return t_engine;
            }

            t_engine = IoUringEngine.TryCreate(-1, out _, ThreadSmallBuffers, ThreadLargeBuffers, drivenByCaller: true);
            t_refused = t_engine is null;
            return t_engine;
        }
    }

    /// <summary>
    /// Retires the calling thread's own engine, when it has one, freeing its ring and 8.7 MiB of buffers (left mapped,
    /// not freed, when a receive on it does not end in time): a thread that ends without this keeps them until the
    /// process ends. A later claim on this thread makes a new engine.
    /// </summary>
    public static void ReleaseThisThread()
    {
        t_engine?.Retire();
        t_engine = null;
    }

    /// <summary>The engine for the next socket, in turn.</summary>
    public static IoUringEngine Next()
    {
        var engines = s_engines.Value.Engines;
        return engines[(int)((uint)Interlocked.Increment(ref s_next) % (uint)engines.Length)];
    }

    private static (IoUringEngine[], string?) Create()
    {
        // kernel.io_uring_disabled (6.6): 0 allows io_uring, 1 only for the io_uring_group, 2 for no one.
        if (File.Exists(DisabledSetting) && File.ReadAllText(DisabledSetting).Trim() is var disabled && disabled != "0")
        {
            var refusal = $"kernel.io_uring_disabled is {disabled}";
            if (disabled == "2")
            {
                return ([], refusal);
            }
        }

        var count = Math.Clamp(Environment.ProcessorCount, 1, 4);
        var engines = new IoUringEngine[count];
        for (var i = 0; i < count; i++)
        {
            var engine = IoUringEngine.TryCreate(i, out var refusal);
            if (engine is null)
            {
                return ([], refusal);
            }

            engines[i] = engine;
        }

        return (engines, null);
    }
}
