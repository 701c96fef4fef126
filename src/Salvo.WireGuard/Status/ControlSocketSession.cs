using System.Net.Sockets;
using System.Text;
using Salvo.WireGuard.Linux;

namespace Salvo.WireGuard.Status;

/// <summary>
/// One connection to a tunnel's wg control socket, as <c>show</c> makes it: whose network namespace the daemon runs in,
/// then <c>get=1</c> (what <c>wg show</c> reads) and Salvo's <c>get=salvo</c> on the same connection. Everything the
/// socket sends is treated as hostile: lines and answers are bounded, and a daemon that stalls is given up on.
/// </summary>
internal sealed class ControlSocketSession : IDisposable
{
    /// <summary>Longer than any line of a get answer (an allowed_ip or endpoint line is under 100 characters).</summary>
    internal const int MaxLineChars = 4096;

    /// <summary>A 100,000-peer get=1 is about 35 MB of text; past this the answer is not read on.</summary>
    internal const int MaxAnswerChars = 256 << 20;

    private static readonly TimeSpan s_timeout = TimeSpan.FromSeconds(5);

    private readonly Socket _socket;
    private readonly StreamReader _reader;

    private ControlSocketSession(Socket socket)
    {
        _socket = socket;
        _socket.ReceiveTimeout = _socket.SendTimeout = (int)s_timeout.TotalMilliseconds;
        _reader = new StreamReader(new NetworkStream(socket, ownsSocket: false), Encoding.Latin1, detectEncodingFromByteOrderMarks: false);
    }

    /// <summary>The pid of the daemon that answered; null when the kernel did not say.</summary>
    public int? DaemonProcess => PeerNetworkNamespace.PeerProcess(_socket);

    /// <summary>
    /// Connects to <paramref name="path"/>; null when nobody listens there (a socket file left by a daemon that is
    /// gone). Throws <see cref="DaemonException"/> when the socket is root-only and this process is not root.
    /// </summary>
    public static ControlSocketSession? Connect(string path)
    {
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            socket.Connect(new UnixDomainSocketEndPoint(path));
            return new ControlSocketSession(socket);
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.AddressNotAvailable)
        {
            socket.Dispose();
            return null;
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.AccessDenied)
        {
            socket.Dispose();
            throw new DaemonException(RootOnly(path), DaemonException.FailureExitCode);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>What a user who is not root is told: wg's sockets are mode 0600, owned by root, as wireguard-go makes them.</summary>
    internal static string RootOnly(string path) =>
        $"show: the wg control socket {path} is root-only (mode 0600, as wireguard-go makes it); run 'sudo {DaemonExecutable.Name} show'";

    /// <summary>The answer's key=value lines without the errno line; null when the daemon closed without answering (an operation it does not know).</summary>
    public IReadOnlyList<(string Key, string Value)>? Request(string operation, string interfaceName)
    {
        _socket.Send(Encoding.ASCII.GetBytes(operation + "\n\n"));
        var lines = new List<(string, string)>();
        var total = 0;
        while (true)
        {
            string? line;
            try
            {
                line = ReadLine(interfaceName);
            }
            catch (IOException) when (lines.Count == 0)
            {
                return null;
            }

            if (line is null)
            {
                return lines.Count == 0 ? null : throw Broken(interfaceName, "the answer ended before its errno line");
            }

            total += line.Length + 1;
            if (total > MaxAnswerChars)
            {
                throw Broken(interfaceName, $"the answer is longer than {MaxAnswerChars} characters");
            }

            var equals = line.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                throw Broken(interfaceName, "a line of the answer is not key=value");
            }

            var (key, value) = (line[..equals], line[(equals + 1)..]);
            if (key == "errno")
            {
                // The answer ends with an empty line after its errno line; it is read so the next request starts clean.
                if (ReadLine(interfaceName) is not { Length: 0 })
                {
                    throw Broken(interfaceName, "the errno line is not followed by an empty line");
                }

                return value == "0" ? lines : throw Broken(interfaceName, $"it answered {operation} with errno={(int.TryParse(value, out var errno) ? errno : '?')}");
            }

            lines.Add((key, value));
        }
    }

    public void Dispose()
    {
        _reader.Dispose();
        _socket.Dispose();
    }

    /// <summary>A line without its '\n', at most <see cref="MaxLineChars"/> long; null at the end of the stream.</summary>
    private string? ReadLine(string interfaceName)
    {
        var line = new StringBuilder();
        while (true)
        {
            var next = _reader.Read();
            if (next < 0)
            {
                return line.Length == 0 ? null : line.ToString();
            }

            if (next == '\n')
            {
                return line.ToString();
            }

            if (line.Length >= MaxLineChars)
            {
                throw Broken(interfaceName, $"a line of the answer is longer than {MaxLineChars} characters");
            }

            line.Append((char)next);
        }
    }

    private static DaemonException Broken(string interfaceName, string why) =>
        new($"show: {interfaceName}: the wg control socket's answer cannot be read: {why}", DaemonException.FailureExitCode);
}
