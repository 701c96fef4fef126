using Microsoft.Extensions.Options;
using Salvo.Server;

namespace Salvo.Hosting;

/// <summary>
/// Checks <see cref="DatagramServerOptions"/> when the host starts (with ValidateOnStart), so a bad value
/// stops start-up with a message naming the option instead of failing later on a socket. Options read from configuration
/// are reported by their key (<c>Salvo:Server:Workers: Workers must be at least 1 (was 0).</c>), with each value that did not
/// parse and each key that is no option.
/// </summary>
public sealed class DatagramServerOptionsValidator : IValidateOptions<DatagramServerOptions>
{
    /// <inheritdoc />
    public ValidateOptionsResult Validate(string? name, DatagramServerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = options.GetErrors();
        var configuration = DatagramServerConfiguration.Of(options);
        if (errors.Count == 0 && (configuration is null || configuration.Errors.Count == 0))
        {
            return ValidateOptionsResult.Success;
        }

        var prefix = string.IsNullOrEmpty(name) ? nameof(DatagramServerOptions) : $"{nameof(DatagramServerOptions)} '{name}'";
        var failures = new List<string>(errors.Count);
        if (configuration is not null)
        {
            // Read from configuration: each message names the key to change.
            failures.AddRange(configuration.Errors);
        }

        foreach (var error in errors)
        {
            failures.Add(configuration is null ? $"{prefix}: {error}" : configuration.Locate(error));
        }

        return ValidateOptionsResult.Fail(failures);
    }
}
