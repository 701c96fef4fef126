using System.Text;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>A thread-safe writer whose text a test can wait on while a command is still running.</summary>
internal sealed class LiveWriter : TextWriter
{
    private readonly StringBuilder _text = new();
    private readonly Lock _lock = new();

    public override Encoding Encoding => Encoding.UTF8;

    public string Text
    {
        get
        {
            lock (_lock)
            {
                return _text.ToString();
            }
        }
    }

    public override void Write(char value)
    {
        lock (_lock)
        {
            _text.Append(value);
        }
    }

    public override void Write(string? value)
    {
        lock (_lock)
        {
            _text.Append(value);
        }
    }

    /// <summary>Waits (bounded) until the text contains <paramref name="fragment"/>; returns the text.</summary>
    public string WaitFor(string fragment, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (!Text.Contains(fragment, StringComparison.Ordinal))
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"'{fragment}' did not appear within {timeout.TotalSeconds} s; text so far: {Text}");
            }

            Thread.Sleep(20);
        }

        return Text;
    }
}

/// <summary>Bounded polling for counters that other threads advance.</summary>
internal static class Eventually
{
    /// <summary>Polls <paramref name="condition"/> every 10 ms until true or <paramref name="timeout"/>; returns the last result.</summary>
    public static bool True(Func<bool> condition, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            Thread.Sleep(10);
        }

        return true;
    }
}

/// <summary>Reads the port from a command's "listening on ADDRESS:PORT" line.</summary>
internal static partial class Listening
{
    public static bool Said(string text) => Line().IsMatch(text);

    public static string Port(string text) => Line().Match(text).Groups[1].Value;

    [System.Text.RegularExpressions.GeneratedRegex(@"listening on [^\s]*:(\d+)", System.Text.RegularExpressions.RegexOptions.CultureInvariant)]
    private static partial System.Text.RegularExpressions.Regex Line();
}
