using System.Text;
using Salvo.Tunnel.Control;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// A control-socket connection's bytes: read line by line with <see cref="UapiLineReader"/> and answered request by
/// request as the socket does (<c>get=1</c> and an empty line; <c>set=1</c>, lines, an empty line), each set parsed
/// by <see cref="UapiSetParser"/> and, when it parses, applied to a real engine. Refusals: a non-zero errno, and
/// a line over the reader's bound, which ends the connection as the socket does.
/// </summary>
public sealed class UapiTarget : IFuzzTarget
{
    /// <summary>More than any valid connection needs; a bound so one input cannot hold the engine for long.</summary>
    private const int MaxRequests = 16;

    public string Name => "uapi";

    public string Description => "control socket get/set requests: UapiLineReader, UapiSetParser, TunnelEngine.Configure";

    public void Run(ReadOnlySpan<byte> input)
    {
        using var pair = new WireGuardPair();
        using var reader = new UapiLineReader(new MemoryStream(input.ToArray(), writable: false), UapiLimits.Default.MaxLineBytes);
        for (var request = 0; request < MaxRequests; request++)
        {
            switch (ReadLine(reader))
            {
                case "get=1":
                    if (ReadLine(reader) is not { Length: 0 })
                    {
                        return;
                    }

                    var (_, peers) = pair.Bob.GetControlSnapshot();
                    pair.Bob.WriteControlPeers(peers, 0, peers.Length, new System.Buffers.ArrayBufferWriter<byte>());
                    break;
                case "set=1":
                    var lines = new List<string>();
                    string? line;
                    while ((line = ReadLine(reader)) is { Length: > 0 })
                    {
                        lines.Add(line);
                    }

                    if (line is null)
                    {
                        // Cut off before its blank line: the socket applies nothing of it.
                        return;
                    }

                    if (UapiSetParser.TryParse(lines, out var change, out var error) == UapiErrno.None)
                    {
                        pair.Bob.Configure(change, pair.BobOut);
                    }
                    else if (string.IsNullOrEmpty(error))
                    {
                        throw new InvalidOperationException("A refused set request has no reason.");
                    }

                    break;
                default:
                    return;
            }
        }
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        const string Key = "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a";
        yield return ("get", Encoding.ASCII.GetBytes("get=1\n\n"));
        yield return ("set-device", Encoding.ASCII.GetBytes($"set=1\nprivate_key={Key}\nlisten_port=51820\nfwmark=0\nreplace_peers=true\n\n"));
        yield return ("set-peer", Encoding.ASCII.GetBytes(
            $"set=1\npublic_key={Key}\npreshared_key={Key}\nendpoint=[::1]:51820\npersistent_keepalive_interval=25\n" +
            "replace_allowed_ips=true\nallowed_ip=10.0.0.0/8\nallowed_ip=fd00::/64\nprotocol_version=1\n\nget=1\n\n"));
        yield return ("set-remove", Encoding.ASCII.GetBytes($"set=1\npublic_key={Key}\nupdate_only=true\nremove=true\n\n"));
        yield return ("set-bad-line", Encoding.ASCII.GetBytes("set=1\nnot a key\n\n"));
    }

    private static string? ReadLine(UapiLineReader reader)
    {
        var pending = reader.ReadLineAsync(CancellationToken.None);
        // A MemoryStream completes every read at once: the task is done when it returns.
        var status = pending.IsCompleted ? pending.Result : throw new InvalidOperationException("UapiLineReader did not finish a read of memory at once.");

        // A line past the limit ends the connection, as the socket does; so does the end of the stream.
        return status == UapiLineStatus.Line ? Encoding.Latin1.GetString(reader.Line) : null;
    }
}
