namespace Salvo.Server;

/// <summary>The values of the <c>salvo.drop.reason</c> tag.</summary>
internal static class DropReason
{
    public const string QueueFull = "queue_full";
    public const string Truncated = "truncated";
    public const string Stopped = "stopped";
}
