namespace Salvo.Server;

/// <summary>
/// Handles datagrams synchronously, one batch per call. Called concurrently from different workers but
/// never concurrently for the same worker (<see cref="DatagramContext.WorkerIndex"/>).
/// </summary>
/// <remarks>
/// An exception is counted (<see cref="DatagramServerStatistics.HandlerErrors"/>), logged at most once a
/// second per worker, and the worker goes on with the next batch; replies added before it are still sent.
/// </remarks>
public interface IDatagramHandler
{
    /// <summary>Handles one batch; add replies to <see cref="DatagramContext.Replies"/>.</summary>
    void Handle(in DatagramContext context);
}
