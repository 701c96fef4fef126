using Salvo.Perf.Cli;

using var signals = StopSignals.Register();
return await SalvoCli.RunAsync(args, CliConsole.Standard(), signals.Token, () => signals.Received).ConfigureAwait(false);
