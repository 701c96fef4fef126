namespace Salvo.Tunnel.Configuration;

/// <summary>A configuration file that cannot be used; the message names the line and the key.</summary>
public sealed class TunnelConfigurationException : FormatException
{
    /// <summary>Makes the exception for <paramref name="key"/> on line <paramref name="line"/> (0: the file as a whole, and no line is named).</summary>
    public TunnelConfigurationException(int line, string? key, string problem)
        : base((line > 0 ? $"line {line}: " : string.Empty) + (key is null ? problem : $"{key}: {problem}"))
    {
        Line = line;
        Key = key;
    }

    /// <summary>Creates an exception with a message only.</summary>
    public TunnelConfigurationException()
    {
    }

    /// <summary>Creates an exception with a message only.</summary>
    public TunnelConfigurationException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and cause.</summary>
    public TunnelConfigurationException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The 1-based line the problem is on (0 for the file as a whole).</summary>
    public int Line { get; }

    /// <summary>The key the problem is with, or null.</summary>
    public string? Key { get; }
}
