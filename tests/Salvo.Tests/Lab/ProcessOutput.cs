namespace Salvo.Tests.Lab;

/// <summary>Reads a child process's redirected output without holding thread-pool threads.</summary>
internal static class ProcessOutput
{
    /// <summary>
    /// Reads <paramref name="reader"/> to its end on a thread of its own. ReadToEndAsync on a process pipe holds a
    /// thread-pool thread for as long as the tool runs (an anonymous pipe has no asynchronous read on Linux): two per
    /// tool, taken from the pool the code under test runs its connections on (see <see cref="ThreadPoolFloor"/>).
    /// </summary>
    public static Task<string> ReadToEndOnOwnThread(StreamReader reader)
    {
        var result = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                result.SetResult(reader.ReadToEnd());
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException)
            {
                result.SetException(e);
            }
        })
        { IsBackground = true, Name = "process output" };
        thread.Start();
        return result.Task;
    }
}
