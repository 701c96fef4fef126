namespace Salvo.Server;

/// <summary>The server's values of the drop-reason tag (<see cref="Salvo.Diagnostics.SalvoMeter.DropReasonTag"/>).</summary>
internal static class DropReason
{
    public const string QueueFull = "queue_full";
    public const string Truncated = "truncated";
    public const string Stopped = "stopped";
}
