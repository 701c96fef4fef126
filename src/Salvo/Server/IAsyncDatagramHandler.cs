namespace Salvo.Server;

/// <summary>
/// Handles datagrams asynchronously, one batch per call; otherwise as <see cref="IDatagramHandler"/>.
/// The worker awaits the task before it sends the replies and takes its next batch, so the batch stays
/// valid until the task completes.
/// </summary>
public interface IAsyncDatagramHandler
{
    /// <summary>Handles one batch; add replies to <see cref="DatagramContext.Replies"/> before completing.</summary>
    ValueTask HandleAsync(DatagramContext context);
}
