using Salvo.Perf.Cli;

using var cancellation = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // The first Ctrl+C ends the run cleanly (sockets closed, partial report); a second one kills.
    if (!cancellation.IsCancellationRequested)
    {
        e.Cancel = true;
        cancellation.Cancel();
    }
};

return await SalvoCli.RunAsync(args, CliConsole.Standard(), cancellation.Token).ConfigureAwait(false);
