using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;
using Salvo.Perf.Native;

namespace Salvo.Perf.Platform.Linux;

/// <summary>
/// Runs another program in this process, in place of this one (execvp(3)): the same process id, standard streams,
/// environment and parent, so whatever signals this process gets, the program gets, and its exit code is the
/// process's. Handled signals go back to their default action in the new program and ignored ones stay ignored
/// (execve(2)); the runtime opens its own descriptors close-on-exec, so only 0, 1 and 2 carry over.
/// </summary>
internal static class ProgramImage
{
    /// <summary>Becomes <paramref name="command"/>: the program, then its arguments. Returns only by throwing.</summary>
    /// <exception cref="IOException">The kernel refused the program (not found, not executable).</exception>
    [DoesNotReturn]
    public static void Replace(IReadOnlyList<string> command)
    {
        ArgumentOutOfRangeException.ThrowIfZero(command.Count);
        var arguments = new nint[command.Count + 1];
        int error;
        try
        {
            for (var i = 0; i < command.Count; i++)
            {
                arguments[i] = Marshal.StringToCoTaskMemUTF8(command[i]);
            }

            // Safety: every pointer is a live UTF-8 copy freed below, reached only if execvp returns; the last is
            // the zero execvp stops at. The array is pinned for the call by the marshaller.
            Libc.ExecVp(command[0], arguments);
            error = Marshal.GetLastPInvokeError();
        }
        finally
        {
            foreach (var pointer in arguments)
            {
                Marshal.FreeCoTaskMem(pointer);
            }
        }

        throw new IOException($"cannot run {command[0]}: {Marshal.GetPInvokeErrorMessage(error)}");
    }
}
