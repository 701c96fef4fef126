namespace Salvo.Tunnel.Routing;

/// <summary>The kernel refused part of an interface's setup, or a route is in the way; the message says which and why.</summary>
public sealed class InterfaceSetupException : Exception
{
    /// <summary>Creates the exception with no message.</summary>
    public InterfaceSetupException()
    {
    }

    /// <summary>Creates the exception with <paramref name="message"/>.</summary>
    public InterfaceSetupException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with <paramref name="message"/> and its cause.</summary>
    public InterfaceSetupException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
