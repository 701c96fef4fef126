using System.Text;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// The lines of a configuration file as <c>text.Split('\n')</c> gives them (a '\r' stays on its line, and the piece
/// after the last '\n' is a line too), read a buffer at a time: only the line being parsed is held, never the file.
/// <see cref="TextReader.ReadLine"/> would also end a line at a lone '\r', which would number lines differently.
/// </summary>
internal static class ConfigLines
{
    /// <summary>Characters read at once.</summary>
    public const int BufferChars = 64 << 10;

    public static IEnumerable<string> Split(TextReader reader)
    {
        ArgumentNullException.ThrowIfNull(reader);
        var buffer = new char[BufferChars];
        var partial = new StringBuilder();
        int read;
        while ((read = reader.Read(buffer, 0, buffer.Length)) > 0)
        {
            var start = 0;
            int newline;
            while ((newline = Array.IndexOf(buffer, '\n', start, read - start)) >= 0)
            {
                if (partial.Length == 0)
                {
                    yield return new string(buffer, start, newline - start);
                }
                else
                {
                    partial.Append(buffer, start, newline - start);
                    yield return partial.ToString();
                    partial.Clear();
                }

                start = newline + 1;
            }

            partial.Append(buffer, start, read - start);
        }

        yield return partial.ToString();
    }
}
