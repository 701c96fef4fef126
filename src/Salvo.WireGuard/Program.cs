using Salvo.WireGuard;

using var signals = StopSignals.Register();
return await WireGuardCli.RunAsync(args, DaemonConsole.Standard(), signals.Token).ConfigureAwait(false);
