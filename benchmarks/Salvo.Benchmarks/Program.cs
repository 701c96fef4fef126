using BenchmarkDotNet.Running;
using Salvo.Benchmarks;

if (args.Length > 0 && args[0] == "io-models")
{
    return IoModelComparison.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "many-sockets" && OperatingSystem.IsLinux())
{
    return ManySocketsDriver.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "many-sockets-serve")
{
    return ManySocketsServer.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "aead-cost")
{
    return AeadPacketCost.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "aead-batch")
{
    return AeadBatchComparison.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "aead-every-length")
{
    return AeadEveryLength.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "tunnel-peers")
{
    return TunnelPeerScale.Run(args[1..]);
}

if (args.Length > 0 && args[0] == "handshake-storm")
{
    return HandshakeStorm.Run(args[1..]);
}

BenchmarkSwitcher.FromAssembly(typeof(IoModelComparison).Assembly).Run(args);
return 0;
