namespace Salvo.Pal;

/// <summary>
/// The engine's command queue: other threads ask for a receive to be armed, moved to the large buffer group or closed,
/// and the ring's thread carries the commands out at the start of its next turn, so the ring has one submitter.
/// </summary>
internal sealed partial class IoUringEngine
{
    public enum Command
    {
        Arm,
        Regroup,
        Close,
    }

    /// <summary>Queues a command for the ring's thread and wakes it.</summary>
    public void Post(IoUringReceiver receiver, Command command)
    {
        _commands.Enqueue((receiver, command));
        Wake();
    }

    private void RunCommands()
    {
        while (_commands.TryDequeue(out var next))
        {
            var receiver = next.Receiver;
            switch (next.Command)
            {
                case Command.Arm when !receiver.IsDisposed && !receiver.Armed && !receiver.Starved && !_releasing:
                    Arm(receiver);
                    break;
                case Command.Regroup when receiver.Armed && receiver.ArmedBuffers != _buffers.Large:
                    // Cancelled, the receive ends; its last completion re-arms it in the large group.
                    Cancel(receiver);
                    break;
                case Command.Close when receiver.Armed:
                    Cancel(receiver);
                    break;
                case Command.Close:
                    Release(receiver);
                    break;
            }
        }
    }
}
