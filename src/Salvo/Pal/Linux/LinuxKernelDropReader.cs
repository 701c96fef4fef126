using System.Globalization;
using System.Net.Sockets;
using System.Runtime.Versioning;

namespace Salvo.Pal;

/// <summary>
/// Reads how many datagrams the kernel dropped on given sockets because their receive buffer was full:
/// the last column ("drops", sk_drops) of /proc/net/udp and /proc/net/udp6, matched by socket inode
/// (net/ipv4/udp.c, udp4_format_sock).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxKernelDropReader : IKernelDropCounters
{
    private readonly string[] _inodes;
    private readonly string _table;
    private readonly Lock _lock = new();

    // The last value seen per socket: once a socket closes it leaves the table, and its count must not fall to 0.
    private readonly long[] _last;

    private LinuxKernelDropReader(string[] inodes, string table)
    {
        _inodes = inodes;
        _table = table;
        _last = new long[inodes.Length];
    }

    public static LinuxKernelDropReader? TryCreate(IReadOnlyList<Socket> sockets)
    {
        if (sockets.Count == 0)
        {
            return null;
        }

        try
        {
            var inodes = new string[sockets.Count];
            for (var i = 0; i < sockets.Count; i++)
            {
                // The descriptor's link reads "socket:[inode]".
                var target = new FileInfo($"/proc/self/fd/{sockets[i].Handle}").LinkTarget;
                if (target is null || !target.StartsWith("socket:[", StringComparison.Ordinal))
                {
                    return null;
                }

                inodes[i] = target["socket:[".Length..^1];
            }

            var table = sockets[0].AddressFamily == AddressFamily.InterNetworkV6 ? "/proc/net/udp6" : "/proc/net/udp";
            return File.Exists(table) ? new LinuxKernelDropReader(inodes, table) : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Drops per socket, in the order given (the last value seen for a closed one); null when the table cannot be read.</summary>
    public long[]? Read()
    {
        string[] lines;
        try
        {
            lines = File.ReadAllLines(_table);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }

        var drops = new long[_inodes.Length];
        lock (_lock)
        {
            _last.CopyTo(drops, 0);
        }

        // Columns: sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops.
        for (var line = 1; line < lines.Length; line++)
        {
            var fields = lines[line].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length < 13)
            {
                continue;
            }

            var index = Array.IndexOf(_inodes, fields[9]);
            if (index >= 0 && long.TryParse(fields[^1], NumberStyles.None, CultureInfo.InvariantCulture, out var value))
            {
                drops[index] = value;
            }
        }

        lock (_lock)
        {
            drops.CopyTo(_last, 0);
        }

        return drops;
    }
}
