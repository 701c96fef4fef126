using Microsoft.Extensions.Options;
using Salvo.Server;

namespace Salvo.Hosting;

/// <summary>
/// Checks <see cref="DatagramServerOptions"/> when the host starts (with ValidateOnStart), so a bad value
/// stops start-up with a message naming the option instead of failing later on a socket.
/// </summary>
public sealed class DatagramServerOptionsValidator : IValidateOptions<DatagramServerOptions>
{
    /// <inheritdoc />
    public ValidateOptionsResult Validate(string? name, DatagramServerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = options.GetErrors();
        if (errors.Count == 0)
        {
            return ValidateOptionsResult.Success;
        }

        var prefix = string.IsNullOrEmpty(name) ? nameof(DatagramServerOptions) : $"{nameof(DatagramServerOptions)} '{name}'";
        var failures = new List<string>(errors.Count);
        foreach (var error in errors)
        {
            failures.Add($"{prefix}: {error}");
        }

        return ValidateOptionsResult.Fail(failures);
    }
}
