using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel;

TunnelThreadPool.QuietIfTunnel(args);
using var signals = StopSignals.Register();
return await SalvoCli.RunAsync(args, CliConsole.Standard(), signals.Token, () => signals.Received).ConfigureAwait(false);
